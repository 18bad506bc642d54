// A host that re-plans edited scenarios (the explorer's planner worker) keeps the model sides of its last plans
// (io/plan-scenario.ts `recent`): every plan on a kept model side is the plan a fresh pipeline makes, whatever
// the edits and their order, including rows whose memory an earlier plan wrote on first read (GRPO's points).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ModelSides } from '../../src/core/plan/index.js';
import { loadScenario } from '../../src/io/load-scenario.js';
import { planInputOf, planScenarioObject, type RecentPlan } from '../../src/io/plan-scenario.js';
import type { Scenario } from '../../src/schema/scenario.js';

const DIR = join(import.meta.dirname, '..', '..', 'scenarios');

type Edit = (s: Scenario) => Scenario;
const same: Edit = (s) => s;
const seq =
  (n: number): Edit =>
  (s) =>
    ({ ...s, job: { ...s.job, seq: n } }) as Scenario;
const rank: Edit = (s) => ({ ...s, rank: s.rank === 'cost' ? 'time' : 'cost' });
const budget: Edit = (s) => ({ ...s, limits: { ...s.limits, budgetUsd: 40 } });
const deadline: Edit = (s) => ({ ...s, limits: { ...s.limits, deadlineHours: 2 } });
// The explorer's GPU-count knob (ui/tui/edit.ts): a view of its own, whose figures other views share (view-memo.ts).
const gpus =
  (n: number): Edit =>
  (s) => ({
    ...s,
    hardware: {
      ...s.hardware,
      owned: s.hardware.owned.map((o, i) => (i === 0 ? { ...o, count: n } : o)),
      counts: { min: Math.min(s.hardware.counts.min, n), max: n },
    },
  });

/** Each scenario's edits, and the model sides they make (the other plans reuse one). */
const CASES: [string, Edit[], number][] = [
  ['default.yaml', [same, seq(4096), same, rank, seq(4096), budget, deadline, seq(1024), same], 3],
  ['serve-mixed-fleet.yaml', [same, rank, budget, same], 1],
  ['grpo-qwen2.5-7b.yaml', [rank, same], 1],
  ['default.yaml', [gpus(2), gpus(3), gpus(5), (s) => seq(4096)(gpus(3)(s)), gpus(2), gpus(6)], 4],
  ['4x-rtx3090-one-circuit.yaml', [gpus(2), gpus(6), rank], 3],
];

describe('re-plans on kept model sides', () => {
  for (const [file, edits, views] of CASES)
    it(`${file}: each edit plans as a fresh pipeline does`, { timeout: 120_000 }, async () => {
      const path = join(DIR, file);
      const s = loadScenario(path);
      const recent: ModelSides[] = [];
      for (const edit of edits) {
        const edited = edit(s);
        const kept = await planScenarioObject(path, edited, { recent });
        const fresh = await planScenarioObject(path, edited);
        expect(JSON.stringify(kept)).toBe(JSON.stringify(fresh));
      }
      expect(recent).toHaveLength(views);
    });

  it(
    'a GPU-count edit makes no memory surface, search memo or plan estimate another view made',
    {
      timeout: 120_000,
    },
    async () => {
      const path = join(DIR, 'default.yaml');
      const s = loadScenario(path);
      const recent: ModelSides[] = [];
      await planScenarioObject(path, gpus(2)(s), { recent, top: 1000 });
      const views = recent[0]!.views!;
      const surfaces = views.surfaces.size;
      const gpu = planInputOf(path, s).hardware[0]!.gpu;
      const timings = views.timings.get(gpu)!.size;
      expect(surfaces).toBeGreaterThan(0);
      expect(timings).toBeGreaterThan(0);
      // 3 GPUs ranks some plans on 3 GPUs; from 4 the circuit holds no more and every ranked plan was timed before.
      await planScenarioObject(path, gpus(3)(s), { recent, top: 1000 });
      const at3 = views.timings.get(gpu)!.size;
      // 4 GPUs makes the surfaces of torchtune's micro-batch 4 with the step in backward, which needs one
      // accumulation step (4 x 4 ranks = the global batch of 16); no layout from 5 needs a surface 4 did not make.
      await planScenarioObject(path, gpus(4)(s), { recent, top: 1000 });
      const at4 = views.surfaces.size;
      expect(at4).toBeGreaterThanOrEqual(surfaces);
      await planScenarioObject(path, gpus(5)(s), { recent, top: 1000 });
      expect(recent).toHaveLength(4);
      expect(recent.every((m) => m.views === views)).toBe(true);
      expect(views.surfaces.size).toBe(at4);
      expect(views.searches).toHaveLength(1);
      expect(views.timings.get(gpu)!.size).toBe(at3);
    },
  );

  it(
    'a GPU-count edit to fewer GPUs takes every engine verdict from the larger view and plans as a fresh pipeline',
    { timeout: 120_000 },
    async () => {
      const path = join(DIR, 'default.yaml');
      const s = loadScenario(path);
      const recent: ModelSides[] = [];
      const made = () =>
        [...recent[0]!.views!.searches[0]!.memo.verdicts.values()]
          .flat()
          .reduce((a, g) => a + g.verdict.filter((v) => v >= 0).length, 0);
      await planScenarioObject(path, gpus(6)(s), { recent, top: 1000 });
      const at6 = made();
      expect(at6).toBeGreaterThan(0);
      const kept = await planScenarioObject(path, gpus(5)(s), { recent, top: 1000 });
      expect(recent).toHaveLength(2);
      expect(made()).toBe(at6);
      const fresh = await planScenarioObject(path, gpus(5)(s), { top: 1000 });
      expect(JSON.stringify(kept)).toBe(JSON.stringify(fresh));
    },
  );
});

// With `recentPlans` too, a scenario planned lately (same scenario, plans to rank and hardware, same model)
// gets that plan's result again, and any other input is planned: each result is a fresh pipeline's.
describe('re-plans answered with kept results', () => {
  it(
    'default.yaml: a repeat is the kept result, other inputs are planned',
    { timeout: 120_000 },
    async () => {
      const path = join(DIR, 'default.yaml');
      const s = loadScenario(path);
      const count: Edit = (x) =>
        ({ ...x, hardware: { ...x.hardware, owned: [{ gpu: 'rtx-4090', count: 2 }] } }) as Scenario;
      const recent: ModelSides[] = [];
      const recentPlans: RecentPlan[] = [];
      // [edit, plans to rank, detected GPUs, index of the earlier plan it repeats or -1]
      const steps: [Edit, number, string[], number][] = [
        [same, 10, [], -1],
        [seq(4096), 10, [], -1],
        [same, 10, [], 0],
        [seq(4096), 10, [], 1],
        [same, 5, [], -1],
        [same, 10, ['a100-80gb'], -1],
        [count, 10, [], -1],
        [rank, 10, [], -1],
        [same, 5, [], 4],
        // Four results are kept: the first plan's went when the fourth input after its last use was planned.
        [same, 10, [], -1],
      ];
      const results = [];
      for (const [edit, top, detected, repeats] of steps) {
        const edited = edit(s);
        const r = await planScenarioObject(path, edited, { recent, recentPlans, top, detected });
        const fresh = await planScenarioObject(path, edited, { top, detected });
        expect(JSON.stringify(r)).toBe(JSON.stringify(fresh));
        if (repeats >= 0) expect(r).toBe(results[repeats]);
        else for (const earlier of results) expect(r).not.toBe(earlier);
        results.push(r);
      }
      expect(recentPlans.length).toBe(4);
    },
  );
});
