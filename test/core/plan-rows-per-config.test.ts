// The model side's rows (plan/rows.ts buildRows) share what configurations that differ only in rollout knobs or
// micro-batch have alike: engine checks per engine class, launcher and quality checks per launch group, a
// shape's verdict per micro-batch slot, the layouts a pruned shape counts per shape table and server size, and
// the no-engine verdict of a shape no variant of the class runs. Here the same rows and pruned counts are made
// per configuration with nothing shared (each shape of each configuration judged on a fresh copy of its options,
// every layout counted), on shipped scenarios with their methods, micro-batches, GPU counts and quality redrawn.
import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { Arch } from '../../src/core/model/arch.js';
import { OFFLOADS, baseConfigs, variantsOf, type Variant } from '../../src/core/plan/configs.js';
import { buildRows } from '../../src/core/plan/rows.js';
import { layoutsOf, shapeTableOf, type Layout } from '../../src/core/plan/shape-table.js';
import { gpuCounts } from '../../src/core/plan/candidates.js';
import {
  leastTrainingGpus,
  maxSearchedGpus,
  membersAtLeast,
  serverGpus,
} from '../../src/core/plan/objective.js';
import { expertLayout, runsExpertLayout } from '../../src/core/plan/expert-parallel.js';
import { qualityOf, tierRank } from '../../src/core/plan/quality.js';
import {
  ENGINE_PROFILES,
  engineFieldsInto,
  engineRejects,
  rejectsLayout,
  searchSkipsOneRank,
} from '../../src/core/engines/engines.js';
import { searchesFp8Kv } from '../../src/core/engines/kernels.js';
import { loadLaunchers } from '../../src/core/engines/registry.js';
import { launchBlocker } from '../../src/core/launch/index.js';
import { resolveModel } from '../../src/io/load-model.js';
import { loadScenario } from '../../src/io/load-scenario.js';
import type { EstimateOptions } from '../../src/schema/estimate.js';
import type { Scenario } from '../../src/schema/scenario.js';

const FILES = [
  'scenarios/grpo-qwen2.5-7b.yaml',
  'scenarios/dpo-llama-3.1-8b.yaml',
  'scenarios/default.yaml',
  'scenarios/full-1.7b-2xt4.yaml',
];

type Verdict = 'ok' | 'noEngine' | 'quality' | 'undocumented';

/** The engine variants that run `o` on layout `L` of its shape, judged on fresh copies (rows.ts layoutVariants). */
function verdictOf(
  s: Scenario,
  arch: Arch,
  variants: readonly Variant[],
  o: EstimateOptions,
  L: Layout,
  accum: number,
): { verdict: Verdict; run: number[] } {
  const run: number[] = [];
  let ran = false;
  let lossy = false;
  let undocumented = false;
  variants.forEach((v, vi) => {
    const { zero, offload } = L.sh;
    if (rejectsLayout(v.engine, o.method, o.objective, L.dp, L.tp, L.pp, zero, offload)) return;
    if (searchSkipsOneRank(v.engine, L.dp, zero, offload)) return;
    if (o.kvCacheDtype === 'fp8' && !searchesFp8Kv(v.engine)) return;
    if (!runsExpertLayout(v.engine, o)) return;
    const probe: EstimateOptions = {
      ...o,
      gpus: L.count + serverGpus(o),
      tp: L.tp,
      pp: L.pp,
      zero,
      offload,
      optimizerInBackward: v.optimizerInBackward,
      liger: v.liger,
      tiledMlp: v.tiledMlp,
    };
    if (engineRejects(v.engine, probe, L.dp, accum, false) !== null) return;
    const options = engineFieldsInto(probe, v.engine, o);
    if (launchBlocker({ arch, options, accum }, v.engine) !== null) return;
    ran = true;
    const undocumentedZero = ENGINE_PROFILES[v.engine].zeroUndocumented?.includes(options.zero);
    if (s.search.undocumented !== true && L.dp > 1 && undocumentedZero === true) {
      undocumented = true;
      return;
    }
    const onEngine = engineFieldsInto(
      {
        ...o,
        optimizerInBackward: v.optimizerInBackward,
        liger: v.liger,
        ...(v.tiledMlp === true ? { tiledMlp: true } : {}),
      },
      v.engine,
    );
    if (tierRank(qualityOf(onEngine, arch.modelType).tier) > tierRank(s.quality)) {
      lossy = true;
      return;
    }
    run.push(vi);
  });
  const verdict = !ran ? 'noEngine' : lossy ? 'quality' : undocumented ? 'undocumented' : 'ok';
  return { verdict, run };
}

/** buildRows' rows (configuration, count, layout, variant, accumulation) and prunes, made per configuration. */
function perConfiguration(s: Scenario, arch: Arch, counts: number[], variants: Variant[]) {
  const rows: string[] = [];
  const pruned = { noEngine: 0, quality: 0, undocumented: 0 };
  baseConfigs(s, arch).forEach((b, bi) => {
    const o = b.options;
    const layouts = layoutsOf(s, arch, o.method, counts);
    const table = shapeTableOf(s, layouts, o.batch);
    const server = serverGpus(o);
    const least = s.hardware.counts.min;
    const runs = new Map<number, number[]>();
    table.shapes.forEach((shape, k) => {
      const first = table.members[k]![0]!;
      const v = verdictOf(s, arch, variants, o, layouts[first]!, table.accum[first]!);
      runs.set(shape, v.run);
      if (v.verdict !== 'ok')
        pruned[v.verdict] += membersAtLeast(table.members[k]!, layouts, server, least);
    });
    layouts.forEach((L, i) => {
      const accum = table.accum[i]!;
      if (accum === 0) return;
      const run = runs.get(L.shape + (accum > 1 ? 16 : 0))!;
      if (server > 0 && (L.count < server || L.count + server > maxSearchedGpus(s))) return;
      if (L.count + server < least || !expertLayout(arch, o, L.tp, L.pp, L.dp)) return;
      for (const vi of run)
        rows.push(
          `${bi}/${L.count + server}/${L.tp}/${L.pp}/${L.dp}/${L.sh.zero}/${L.sh.offload}/${vi}/${accum}`,
        );
    });
  });
  return { rows, pruned };
}

/** `s` with its methods, micro-batches, GPU counts and quality redrawn. */
function redrawn(
  s: Scenario,
  r: { methods: number; batches: number[]; min: number; max: number; quality: number },
): Scenario {
  const job = s.job.kind === 'fine-tune' ? s.job : null;
  const methods = job ? job.methods.filter((_, i) => (r.methods >> i) % 2 === 1) : [];
  const max = Math.max(s.hardware.counts.min, Math.min(r.max, s.hardware.counts.max));
  const min = Math.min(max, Math.max(s.hardware.counts.min, r.min));
  return {
    ...s,
    quality: (['exact', 'near', 'lossy'] as const)[r.quality]!,
    hardware: { ...s.hardware, counts: { min, max } },
    search: { ...s.search, microBatches: r.batches },
    job: job && methods.length > 0 ? { ...job, methods } : s.job,
  };
}

beforeAll(loadLaunchers);

describe('model-side rows shared across rollout knobs and micro-batches', () => {
  it('are the rows and prunes judged configuration by configuration', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...FILES),
        fc.record({
          methods: fc.integer({ min: 1, max: 3 }),
          batches: fc.uniqueArray(fc.constantFrom(1, 2, 4, 8), { minLength: 1, maxLength: 3 }),
          min: fc.constantFrom(1, 2),
          max: fc.constantFrom(1, 2, 4, 8),
          quality: fc.integer({ min: 0, max: 2 }),
        }),
        (file, r) => {
          const s = redrawn(loadScenario(file), r);
          const arch = resolveModel(s.model);
          const variants = variantsOf(s, arch);
          const counts = gpuCounts(
            leastTrainingGpus(s),
            s.hardware.counts.max,
            s.hardware.gpusPerNode,
          ).filter((c) => c <= (s.limits.maxGpus ?? Infinity));
          const built = buildRows(s, arch, baseConfigs(s, arch), counts, variants, undefined);
          const got: string[] = [];
          const R = built.rows;
          for (let n = 0; n < R.n; n++)
            got.push(
              `${R.base[n]}/${R.count[n]}/${R.tp[n]}/${R.pp[n]}/${R.dp[n]}/${R.zero[n]}/${OFFLOADS[R.offload[n]!]}/${R.variant[n]}/${R.accum[n]}`,
            );
          const want = perConfiguration(s, arch, counts, variants);
          expect(got).toEqual(want.rows);
          expect(built.modelPruned).toEqual(want.pruned);
        },
      ),
      {
        numRuns: 8,
        // GRPO with a vLLM server of 1 and 2 GPUs beside the trainers, and every colocated share.
        examples: [
          [FILES[0]!, { methods: 3, batches: [1, 4], min: 2, max: 4, quality: 1 }],
          [FILES[0]!, { methods: 2, batches: [2], min: 1, max: 8, quality: 0 }],
        ],
      },
    );
  }, 120_000);
});
