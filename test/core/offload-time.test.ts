/**
 * Parameter offload costs time, never saves it: a plan with its weights offloaded to the host (ZeRO-3 /
 * FSDP `optimizer+params`) is never faster than the same plan with its weights resident on the GPU
 * (`optimizer`), over generated models, configurations and GPUs; a DPO step with its reference forward alike.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildEstimate } from '../../src/core/estimate.js';
import { explainFit } from '../../src/core/plan/index.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { fixLine, slowdownText } from '../../src/ui/explain-text.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultTimeOptions } from '../../src/schema/time.js';
import { generatedArchArb, isValid, optionsArb, withDiffString } from '../helpers/arbitraries.js';

const RUNS = Number(process.env.VRAMPLAN_FC_RUNS ?? 100);
const SEED = Number(process.env.VRAMPLAN_FC_SEED ?? 20261202);
const gpus = ['h100-sxm', 'a100-80gb-sxm', 'rtx-4090', 'rtx-3090', 'l40s'].map((id) => findGpu(id));

/**
 * Over generated models, options, GPUs and accumulation: the plan with `extra` and its weights offloaded steps no faster
 * than the same plan with them resident (and, where `tokens`, makes no more tokens a second).
 */
function offloadNeverFaster(maxSeq: number, extra: object, tokens: boolean): void {
  fc.assert(
    fc.property(
      generatedArchArb({ maxLayers: 48, maxHeads: 64 }),
      optionsArb({ methods: ['full', 'lora', 'qlora'], maxDp: 8, maxSeq }),
      fc.constantFrom(...gpus),
      fc.integer({ min: 1, max: 8 }),
      (arch, o, gpu, accum) => {
        const off = withDiffString({ ...o, ...extra, zero: 3, offload: 'optimizer+params' });
        const resident = withDiffString({ ...off, offload: 'optimizer' });
        fc.pre(isValid(off) && isValid(resident));
        const t = { ...defaultTimeOptions(off.gpus), gradAccum: accum };
        const a = buildEstimate(arch, off, gpu, t).time!;
        const b = buildEstimate(arch, resident, gpu, t).time!;
        expect(a.stepSeconds).toBeGreaterThanOrEqual(b.stepSeconds);
        if (tokens) expect(a.tokensPerSecondPerGpu).toBeLessThanOrEqual(b.tokensPerSecondPerGpu);
      },
    ),
    { numRuns: RUNS, seed: SEED },
  );
}

describe('parameter offload (properties)', () => {
  it('a modelled offload is never faster than the same plan with the weights resident', () => {
    offloadNeverFaster(8192, {}, true);
  });

  it('a DPO step with its weights offloaded is never faster than with them resident (the reference forward too)', () => {
    offloadNeverFaster(4096, { objective: 'dpo' as const, reference: 'model' as const }, false);
  });
});

describe('explain on offload fixes', () => {
  const caveat = 'if its host copies hide behind compute (assumed, not measured)';

  it('flags a slowdown that rests on host copies hidden behind compute', () => {
    const o = optionsFromFlags({
      method: 'qlora',
      weights: 'nf4',
      batch: 4,
      seq: 4096,
      checkpointing: 'none',
    });
    const e = explainFit(resolveModel('llama-3.1-70b'), o, findGpu('a100-80gb-sxm'));
    expect(e.fixes.some((f) => f.overlapAssumed)).toBe(true);
    for (const f of e.fixes) {
      expect(fixLine(f).includes(caveat)).toBe(f.overlapAssumed === true);
      if (f.overlapAssumed)
        expect(
          f.options.offload === 'optimizer+params' || f.options.checkpointing === 'offload',
        ).toBe(true);
    }
  });

  it('flags parameter offload although the first unit of every pass waits for its copy (offload phase above 0)', () => {
    const o = optionsFromFlags({
      method: 'lora',
      loraTargets: 'all-linear',
      batch: 1,
      seq: 8192,
      checkpointing: 'none',
    });
    const e = explainFit(resolveModel('llama-3.1-8b'), o, findGpu('rtx-4090'));
    const params = e.fixes.filter((f) => f.options.offload === 'optimizer+params');
    expect(params.length).toBeGreaterThan(0);
    for (const f of params) {
      // The exposed share is not 0, yet the rest of the copies are hidden behind compute.
      const t = buildEstimate(resolveModel('llama-3.1-8b'), f.options, findGpu('rtx-4090')).time!;
      expect(t.phases.find((p) => p.phase === 'offload')!.seconds).toBeGreaterThan(0);
      expect(f.overlapAssumed).toBe(true);
      expect(fixLine(f)).toContain(caveat);
    }
    for (const f of e.fixes)
      if (f.options.offload !== 'optimizer+params' && f.options.checkpointing !== 'offload')
        expect(fixLine(f)).not.toContain(caveat);
  });

  it('says "same speed" plainly where no copy is assumed hidden, and times spilled paged states', () => {
    expect(slowdownText(1.001)).toBe('same speed');
    const o = optionsFromFlags({ method: 'full', batch: 1, seq: 2048 });
    const e = explainFit(resolveModel('llama-3.1-8b'), o, findGpu('a100-80gb-sxm'));
    const paged = e.fixes.find((f) => f.options.optimizer === 'paged-adamw')!;
    expect(paged.overlapAssumed).toBeUndefined();
    // Its 32-bit states spill to host RAM, so every step migrates them (time/paged-migration.ts): not the same
    // speed, which the line said while the migration went untimed.
    expect(fixLine(paged)).toMatch(/× slower, .*host RAM/);
  });
});
