// A search's model side (configurations, variants, rows and their memory) reads no GPU option but FP4 cores, and
// none of the limits, ranking and demand a serving fleet lifts for its per-source searches: those searches take
// the whole scenario's model side, and building it afresh from the lifted scenario gives the same tables.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  modelSideOf,
  modelSidesFor,
  modelView,
  recentModelSides,
  type ModelSides,
} from '../../src/core/plan/model-side.js';
import { loadLaunchers } from '../../src/core/engines/registry.js';
import { resolveModel } from '../../src/io/load-model.js';
import { loadScenario, resolveHardware } from '../../src/io/load-scenario.js';
import { plan } from '../../src/core/plan/index.js';
import type { Scenario } from '../../src/schema/scenario.js';

const DIR = join(import.meta.dirname, '..', '..', 'scenarios');

/** What plan-fleet.ts fleetCandidates searches each GPU source with. */
const lifted = (s: Scenario): Scenario => ({
  ...s,
  job: s.job.kind === 'inference' ? { ...s.job, requestsPerSecond: undefined } : s.job,
  limits: { ...s.limits, budgetUsd: 123, deadlineHours: 4, maxSlowdown: 2 },
  rank: 'time',
});

describe('model sides', () => {
  for (const file of [
    'serve-mixed-fleet.yaml',
    '70b-qlora-rent-cheapest.yaml',
    'dpo-llama-3.1-8b.yaml',
  ])
    it(`${file}: the lifted scenario shares the model side, and building it afresh gives the same rows`, async () => {
      await loadLaunchers();
      const s = loadScenario(join(DIR, file));
      const arch = resolveModel(s.model);
      const memo = modelSidesFor(s, arch);
      const side = modelSideOf(s, arch, false, undefined, memo);
      const other = lifted(s);
      expect(modelView(other)).toBe(memo.view);
      expect(modelSideOf(other, arch, false, undefined, memo)).toBe(side);
      const fresh = modelSideOf(other, arch, false, undefined, undefined);
      expect(fresh).not.toBe(side);
      expect(fresh.built.rows).toEqual(side.built.rows);
      expect(fresh.built.mem).toEqual(side.built.mem);
      expect(fresh.built.modelPruned).toEqual(side.built.modelPruned);
      expect(fresh.bases).toEqual(side.bases);
    });

  it("serve-mixed-fleet: each GPU source's model side, made after the one over every source, is a fresh one's", async () => {
    await loadLaunchers();
    const s = loadScenario(join(DIR, 'serve-mixed-fleet.yaml'));
    const arch = resolveModel(s.model);
    // What plan() offers the exact -ngl search per GPU option (plan.ts capacities).
    const caps = resolveHardware(s).options.map(
      (h) => h.gpu.memoryMiB * 1024 * 1024 * (1 - s.limits.memoryMargin),
    );
    expect(new Set(caps).size).toBeGreaterThan(1);
    const memo = modelSidesFor(s, arch);
    const sideOf = (m: ModelSides | undefined, c: number[]) =>
      modelSideOf(lifted(s), arch, false, undefined, m, false, false, c);
    const all = modelSideOf(s, arch, false, undefined, memo, false, false, caps);
    expect(memo.surfaces.size).toBeGreaterThan(0);
    for (const cap of caps) {
      const side = sideOf(memo, [cap]);
      expect(side).not.toBe(all);
      const fresh = sideOf(undefined, [cap]);
      expect(side.bases).toEqual(fresh.bases);
      expect(side.built.rows).toEqual(fresh.built.rows);
      // Memory figures and the estimates counted (searched.memoryEvaluations) are a lone search's.
      expect(side.built.mem).toEqual(fresh.built.mem);
    }
  });

  it('a scenario that differs in what the model side reads gets its own', async () => {
    await loadLaunchers();
    const s = loadScenario(join(DIR, 'serve-mixed-fleet.yaml'));
    const arch = resolveModel(s.model);
    const memo = modelSidesFor(s, arch);
    const side = modelSideOf(s, arch, false, undefined, memo);
    const fewer = { ...s, limits: { ...s.limits, maxGpus: 2 } };
    expect(modelSideOf(fewer, arch, false, undefined, memo)).not.toBe(side);
  });
});

describe('recent model sides', () => {
  it('gives the memo of the same model and view, most recent first, and keeps at most `keep`', () => {
    const s = loadScenario(join(DIR, 'default.yaml'));
    const arch = resolveModel(s.model);
    const recent: ModelSides[] = [];
    const a = recentModelSides(recent, s, arch, 2);
    const longer = { ...s, job: { ...s.job, seq: 4096 } };
    const b = recentModelSides(recent, longer, arch, 2);
    expect(b).not.toBe(a);
    // An edit the model side does not read (the ranking, the budget) and a return to an earlier view share.
    expect(recentModelSides(recent, { ...s, rank: 'time' }, arch, 2)).toBe(a);
    expect(recent).toEqual([a, b]);
    expect(
      recentModelSides(recent, { ...longer, limits: { ...longer.limits, budgetUsd: 9 } }, arch, 2),
    ).toBe(b);
    // Another model object, or a third view, makes a new memo and drops the least recent.
    const other = { ...arch };
    const c = recentModelSides(recent, s, other, 2);
    expect(c).not.toBe(a);
    expect(recent).toEqual([c, b]);
    expect(recentModelSides(recent, s, arch, 2)).not.toBe(a);
  });
});

describe('the search memo on a model side', () => {
  it('a search on another rig (the first GPU option node size) plans as a fresh one', async () => {
    await loadLaunchers();
    const s = loadScenario(join(DIR, '70b-full-zero3-8x.yaml'));
    const arch = resolveModel(s.model);
    const hw = resolveHardware(s);
    const two = hw.options.findIndex((h) => h.nodeSize === 2);
    expect(two).toBeGreaterThan(0);
    // The same options, the 2-GPU node first: rowWork's time options read the first option's node size.
    const other = [hw.options[two]!, ...hw.options.filter((_, i) => i !== two)];
    const input = (hardware: typeof other) => ({
      scenario: s,
      arch,
      hardware,
      circuits: hw.circuits,
    });
    const memo = modelSidesFor(s, arch);
    const first = plan({ ...input(hw.options), modelSides: memo });
    const then = plan({ ...input(other), modelSides: memo });
    expect(memo.byCores.size).toBe(1);
    expect(JSON.stringify(first)).toBe(JSON.stringify(plan(input(hw.options))));
    expect(JSON.stringify(then)).toBe(JSON.stringify(plan(input(other))));
  });
});
