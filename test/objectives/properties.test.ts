/**
 * "Done when" as fast-check properties, over generated HF-style configs and catalog models with
 * random valid configurations (test/helpers/arbitraries.ts): DPO's reference copy and doubled sequences,
 * LoRA's missing second copy, GRPO's rollout engine memory and time, rollout time growing with the
 * generations, and the reference-free losses.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildEstimate } from '../../src/core/estimate.js';
import { completionLimit, longestToMean } from '../../src/core/time/completion-length.js';
import { estimateMemory, type MemoryEstimate } from '../../src/core/memory/index.js';
import type { Arch } from '../../src/core/model/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { listModels, resolveModel } from '../../src/io/load-model.js';
import type { EstimateOptions } from '../../src/schema/estimate.js';
import { checkCombination, objectiveInto, type RawFlags } from '../../src/schema/flags.js';
import {
  generatedArchArb,
  labelled,
  optionsArb,
  withDiffString,
  type OptionLimits,
} from '../helpers/arbitraries.js';

const RUNS = Number(process.env.VRAMPLAN_FC_RUNS ?? 100);
const SEED = Number(process.env.VRAMPLAN_FC_SEED ?? 20261126);
const params = { numRuns: RUNS, seed: SEED };
/** allocated, reserved and device are rounded separately. */
const ROUNDING = 2;

const catalogArchs: Arch[] = listModels().map((m) =>
  labelled(resolveModel(m.id), `catalog:${m.id}`),
);
// Small enough that a 100-run property stays in seconds (GRPO estimates the rollout engine too).
const archArb = fc.oneof(
  { weight: 2, arbitrary: generatedArchArb({ maxLayers: 48, maxHeads: 64 }) },
  { weight: 1, arbitrary: fc.constantFrom(...catalogArchs) },
);
// TRL runs no pipeline parallelism: the objective's trainers are pp = 1.
const optsArb = (limits: OptionLimits) =>
  optionsArb({ maxSeq: 8192, maxDp: 16, ...limits }).map((o) =>
    withDiffString({ ...o, gpus: o.gpus / o.pp, pp: 1 }),
  );

/** `o` with the objective's flags applied as `estimate` applies them, or null when the flags reject it. */
function withFlags(o: EstimateOptions, flags: RawFlags): EstimateOptions | null {
  const out = { ...o };
  try {
    objectiveInto(out, flags);
    checkCombination(out);
  } catch {
    return null;
  }
  return withDiffString(out);
}

const bytesOf = (compute: EstimateOptions['compute']) => (compute === 'fp32' ? 4 : 2);
type PerGpu = MemoryEstimate['perGpu'];
const mem = (arch: Arch, o: EstimateOptions): MemoryEstimate => estimateMemory(arch, o);
const rolloutSeconds = (r: ReturnType<typeof buildEstimate>) =>
  r.time!.phases.find((p) => p.phase === 'rollout')!.seconds;
const h100 = findGpu('h100-sxm');

describe('preference objectives (properties)', () => {
  it('(a) full DPO with a reference exceeds SFT by the reference copy and the doubled sequences', () => {
    fc.assert(
      fc.property(archArb, optsArb({ methods: ['full'], maxBatch: 16 }), (arch, o) => {
        const dpo = withFlags(o, { objective: 'dpo', reference: 'model' });
        fc.pre(dpo !== null);
        const doubledOptions = { ...o, batch: 2 * o.batch };
        fc.pre(withFlags(doubledOptions, {}) !== null);
        const sft: PerGpu = mem(arch, o).perGpu;
        const doubled: PerGpu = mem(arch, doubledOptions).perGpu;
        const d = mem(arch, dpo);
        const b = d.perGpu.breakdown;
        // A frozen copy of every parameter in the compute dtype, sharded by ZeRO-3 over dp and by tp.
        const shard = (o.zero >= 3 ? d.parallel.dp : 1) * o.tp;
        const ref = (d.params.total * bytesOf(o.compute)) / shard;
        expect(Math.abs(b.referenceModel! - ref)).toBeLessThanOrEqual(1);
        // Chosen and rejected: the activations of twice the micro-batch, and at least its logits.
        expect(b.activations).toBe(doubled.breakdown.activations);
        expect(b.logits).toBeGreaterThanOrEqual(doubled.breakdown.logits - ROUNDING);
        expect(doubled.allocatedBytes).toBeGreaterThanOrEqual(sft.allocatedBytes - ROUNDING);
        // Above SFT by at least the copy plus what the doubled batch adds.
        expect(d.perGpu.allocatedBytes - sft.allocatedBytes).toBeGreaterThanOrEqual(
          ref + (doubled.allocatedBytes - sft.allocatedBytes) - ROUNDING,
        );
        expect(d.perGpu.deviceBytes - sft.deviceBytes).toBeGreaterThanOrEqual(
          ref + (doubled.deviceBytes - sft.deviceBytes) - ROUNDING,
        );
      }),
      params,
    );
  });

  it('(b) LoRA / QLoRA DPO carries no second weight copy', () => {
    fc.assert(
      fc.property(archArb, optsArb({ methods: ['lora', 'qlora'], maxBatch: 16 }), (arch, o) => {
        const dpo = withFlags(o, { objective: 'dpo' });
        fc.pre(dpo !== null);
        expect(dpo.reference).toBe('model');
        const d = mem(arch, dpo).perGpu.breakdown;
        expect(d.referenceModel).toBe(0);
        // The base with its adapters switched off is the reference: the weights are the policy's alone.
        expect(d.weights).toBe(mem(arch, o).perGpu.breakdown.weights);
      }),
      params,
    );
  });

  it('(e) ORPO, SimPO and reward models never carry a reference (and reject one)', () => {
    fc.assert(
      fc.property(
        archArb,
        optsArb({ maxBatch: 16 }),
        fc.constantFrom('orpo', 'simpo', 'reward', 'prm'),
        (arch, o, objective) => {
          fc.pre(o.method !== 'inference');
          const r = withFlags(o, { objective });
          fc.pre(r !== null);
          expect(r.reference).toBe('none');
          expect(withFlags(o, { objective, reference: 'model' })).toBeNull();
          const e = buildEstimate(arch, r, h100);
          expect(e.perGpu.breakdown.referenceModel).toBe(0);
          expect(e.time!.phases.find((p) => p.phase === 'reference-logprobs')!.seconds).toBe(0);
        },
      ),
      params,
    );
  });
});

/** GRPO flags: a rollout engine, generations, prompt and completion lengths. */
const grpoArb = fc.record({
  rollout: fc.constantFrom('hf', 'vllm-colocate', 'vllm-server'),
  generations: fc.integer({ min: 2, max: 32 }),
  'prompt-tokens': fc.integer({ min: 1, max: 2048 }),
  'completion-tokens': fc.integer({ min: 1, max: 4096 }),
  'rollout-memory': fc.constantFrom(0.2, 0.3, 0.5, 0.9),
  'rollout-gpus': fc.integer({ min: 1, max: 4 }),
  reference: fc.constantFrom('model', 'none'),
});

type GrpoPick = typeof grpoArb extends fc.Arbitrary<infer T> ? T : never;

function grpoFlags(g: GrpoPick): RawFlags {
  const { 'rollout-memory': share, 'rollout-gpus': servers, ...rest } = g;
  return {
    objective: 'grpo',
    ...rest,
    ...(g.rollout === 'vllm-colocate' ? { 'rollout-memory': share } : {}),
    ...(g.rollout === 'vllm-server' ? { 'rollout-gpus': servers } : {}),
  };
}

describe('GRPO (properties)', () => {
  it('(c) names the rollout engine memory and the rollout time', () => {
    fc.assert(
      fc.property(
        archArb,
        optsArb({ methods: ['full', 'lora', 'qlora'], maxBatch: 8 }),
        grpoArb,
        (arch, o, g) => {
          const grpo = withFlags(o, grpoFlags(g));
          fc.pre(grpo !== null);
          const r = buildEstimate(arch, grpo, h100);
          const b = r.perGpu.breakdown;
          if (g.rollout === 'vllm-colocate') {
            expect(b.rolloutWeights! + b.rolloutKvCache!).toBeGreaterThan(0);
            // Counted, not only named: the card holds vLLM's share beside the policy's weights.
            expect(r.perGpu.allocatedBytes).toBeGreaterThanOrEqual(
              b.rolloutWeights! + b.rolloutKvCache! + b.weights - ROUNDING,
            );
          }
          expect(b.overhead).toBeGreaterThanOrEqual(0);
          if (g.rollout === 'hf') {
            // transformers generate on the policy: its KV cache in the rollout phase.
            const phase = r.phases.find((p) => p.phase === 'rollout');
            expect(phase).toBeDefined();
            expect(phase!.parts.rolloutKvCache).toBeGreaterThan(0);
          }
          if (g.rollout === 'vllm-server') {
            expect(b.rolloutWeights).toBe(0);
            expect(b.rolloutKvCache).toBe(0);
          }
          expect(rolloutSeconds(r)).toBeGreaterThan(0);
        },
      ),
      params,
    );
  });

  it('(d) more generations of the same prompts never lower the rollout time', () => {
    fc.assert(
      fc.property(
        archArb,
        optsArb({ methods: ['lora', 'qlora'], maxBatch: 1 }),
        grpoArb,
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 16 }),
        (arch, o, g, prompts, more) => {
          // per_device_train_batch_size = prompts x generations: each micro-batch holds whole groups.
          const at = (n: number) =>
            withFlags({ ...o, batch: prompts * n }, grpoFlags({ ...g, generations: n }));
          const few = at(g.generations);
          const many = at(g.generations + more);
          fc.pre(few !== null && many !== null);
          const t1 = rolloutSeconds(buildEstimate(arch, few, h100));
          const t2 = rolloutSeconds(buildEstimate(arch, many, h100));
          expect(t2).toBeGreaterThanOrEqual(t1);
        },
      ),
      params,
    );
  });

  it("(e) a longer maximum completion never shortens a step; none is the launchers' cap; a cap above the longest changes nothing", () => {
    fc.assert(
      fc.property(
        archArb,
        optsArb({ methods: ['lora', 'qlora'], maxBatch: 8 }),
        grpoArb,
        fc.integer({ min: 0, max: 4096 }),
        fc.integer({ min: 1, max: 4096 }),
        (arch, o, g, extra, more) => {
          const at = (cap?: number) =>
            withFlags(o, {
              ...grpoFlags(g),
              ...(cap === undefined ? {} : { 'max-completion-tokens': cap }),
            });
          const short = at(g['completion-tokens'] + extra);
          const long = at(g['completion-tokens'] + extra + more);
          const uncapped = at();
          fc.pre(short !== null && long !== null && uncapped !== null);
          const step = (x: EstimateOptions) => buildEstimate(arch, x, h100).time!.stepSeconds;
          expect(step(long)).toBeGreaterThanOrEqual(step(short));
          // Without a cap, the one the launchers write: 1.47 x the mean (completionLimit).
          const written = at(completionLimit(g['completion-tokens']));
          fc.pre(written !== null);
          expect(step(uncapped)).toBe(step(written));
          // At or above the longest of any generation batch (longestToMean of a million) the cap does not bind.
          const above = Math.ceil(longestToMean(1_000_000) * g['completion-tokens']) + extra;
          const loose = at(above);
          const looser = at(above + more);
          fc.pre(loose !== null && looser !== null);
          expect(step(looser)).toBe(step(loose));
        },
      ),
      params,
    );
  });

  it('(d) at a fixed per-device batch whose groups fit it, the generations leave the rollout time unchanged', () => {
    fc.assert(
      fc.property(
        archArb,
        optsArb({ methods: ['lora'], maxBatch: 1 }),
        grpoArb,
        fc.constantFrom(2, 4, 8),
        (arch, o, g, n) => {
          // batch 16 x dp holds whole groups of 2, 4 or 8: the same completions per step.
          const at = (k: number) =>
            withFlags({ ...o, batch: 16 }, grpoFlags({ ...g, generations: k }));
          const a = at(n);
          const b = at(2 * n);
          fc.pre(a !== null && b !== null);
          const t1 = rolloutSeconds(buildEstimate(arch, a, h100));
          const t2 = rolloutSeconds(buildEstimate(arch, b, h100));
          expect(t2).toBe(t1);
        },
      ),
      params,
    );
  });
});
