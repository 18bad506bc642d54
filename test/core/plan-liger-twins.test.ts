// Liger twins in the search: a LoRA/QLoRA row without Liger's kernels and the same row with them (plan/liger-twins.ts).
// Liger's output layer runs in chunks of rows (kernels/liger.ts ligerChunkGemmSlowdown), which can outweigh its fused
// kernels on a small model with a large vocabulary at short micro-batches; the planner keeps whichever twin the time
// model says is faster, or both within the tie band (context.ts NEAR_TIE).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import '../../src/core/engines/registry.js';
import { buildEstimate } from '../../src/core/estimate.js';
import { NEAR_TIE } from '../../src/core/plan/context.js';
import { plan } from '../../src/core/plan/index.js';
import { planInputOf } from '../../src/io/plan-scenario.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';
import { scenarioSchema } from '../../src/schema/scenario.js';

/** A LoRA of Llama 3.2 1B (a 128,256-token vocabulary over 2,048 hidden) on one `gpu` with hf-trainer, one sample a step. */
function lora1b(gpu: string, model = 'llama-3.2-1b', seq = 512, globalBatch = 1) {
  const s = scenarioSchema.parse({
    name: 'liger-twins',
    model,
    job: { kind: 'fine-tune', methods: ['lora'], seq, globalBatch, datasetTokens: 1e7 },
    hardware: { owned: [{ gpu, count: 1 }], counts: { min: 1, max: 1 } },
    search: { engines: ['hf-trainer'], optimizers: ['adamw'], attention: ['sdpa'] },
  });
  return plan({ ...planInputOf('liger-twins.yaml', s), top: 50 });
}

/** The step of the scenario's first layout (micro-batch 1, q,v... as the plan's own options) with Liger on or off. */
function stepOf(gpu: string, o: EstimateOptions, liger: boolean): number {
  return buildEstimate(resolveModel('llama-3.2-1b'), { ...o, liger }, findGpu(gpu)!).time!
    .stepSeconds;
}

/** Plans of the list that differ only in Liger's kernels, by the id less its `-liger`. */
function twinPairs(plans: ReturnType<typeof lora1b>['plans']) {
  const byId = new Map(plans.map((p) => [p.id, p]));
  return plans.flatMap((p) => {
    const plain = byId.get(p.id.replace('-liger/', '/'));
    return p.id.includes('-liger/') && plain ? [{ liger: p, plain }] : [];
  });
}

describe('Liger twins of LoRA plans', () => {
  it('on an RTX 3090, where Liger estimates slower, the first plan is the one without Liger', () => {
    const r = lora1b('rtx-3090');
    const first = r.plans[0]!;
    expect(first.options.liger).toBe(false);
    // The estimate the planner ranks on: Liger's chunked output layer makes the step slower past the tie band.
    const o: EstimateOptions = { ...defaultOptions('lora'), ...first.options };
    expect(stepOf('rtx-3090', o, true)).toBeGreaterThan(
      stepOf('rtx-3090', o, false) * (1 + NEAR_TIE),
    );
    // The slower Liger twin of that plan is not listed beside it.
    expect(
      r.plans.some((p) => p.id === first.id.replace('/hf-trainer/', '/hf-trainer-liger/')),
    ).toBe(false);
  });

  it('on an H100, where Liger estimates faster, the first plan loads Liger and its plain twin is dropped', () => {
    const r = lora1b('h100-sxm');
    const first = r.plans[0]!;
    expect(first.options.liger).toBe(true);
    const o: EstimateOptions = { ...defaultOptions('lora'), ...first.options };
    expect(stepOf('h100-sxm', o, false)).toBeGreaterThan(
      stepOf('h100-sxm', o, true) * (1 + NEAR_TIE),
    );
    expect(r.plans.some((p) => p.id === first.id.replace('-liger/', '/'))).toBe(false);
  });

  it('twins listed together are within the tie band, and every candidate is feasible or pruned once', () => {
    let pairs = 0;
    for (const gpu of ['rtx-3090', 'h100-sxm', 't4']) {
      const r = lora1b(gpu);
      for (const { liger, plain } of twinPairs(r.plans)) {
        pairs++;
        const ratio = liger.time.hours / plain.time.hours;
        expect(ratio).toBeLessThanOrEqual(1 + NEAR_TIE + 1e-12);
        expect(1 / ratio).toBeLessThanOrEqual(1 + NEAR_TIE + 1e-12);
      }
      const pruned = r.pruned.reduce((n, p) => n + p.count, 0);
      expect(pruned + r.searched.feasible).toBe(r.searched.candidates);
    }
    // Twins within the band are both kept (on the RTX 3090 and T4 some are).
    expect(pairs).toBeGreaterThan(0);
  });

  it('for any small model, GPU and sequence, listed twins are within the tie band (fast-check)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('llama-3.2-1b', 'qwen3-0.6b', 'gemma-2-2b', 'qwen3-1.7b'),
        fc.constantFrom('rtx-3090', 'rtx-4090', 't4', 'a100-80gb', 'h100-sxm', 'l4'),
        fc.constantFrom(256, 512, 1024),
        fc.constantFrom(1, 4),
        (model, gpu, seq, globalBatch) => {
          const r = lora1b(gpu, model, seq, globalBatch);
          for (const { liger, plain } of twinPairs(r.plans)) {
            expect(liger.time.hours).toBeLessThanOrEqual(plain.time.hours * (1 + NEAR_TIE) + 1e-12);
            expect(plain.time.hours).toBeLessThanOrEqual(liger.time.hours * (1 + NEAR_TIE) + 1e-12);
          }
          const pruned = r.pruned.reduce((n, p) => n + p.count, 0);
          expect(pruned + r.searched.feasible).toBe(r.searched.candidates);
        },
      ),
      { numRuns: 12 },
    );
  });
});
