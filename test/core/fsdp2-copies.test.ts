/**
 * FSDP2 (torch's fully_shard) copies each gathered unit out of the all-gather buffer into its parameters and each unit's
 * gradients into the reduce-scatter buffer on the compute stream (torch/distributed/fsdp/_fully_shard/
 * _fsdp_collectives.py `foreach_all_gather_copy_out`, `foreach_reduce`): HBM traffic in series with the step
 * (time/fsdp2-copies.ts). torchtitan and torchtune always shard with fully_shard; hf-fsdp runs the fsdp_version its
 * launchers write (FSDP1 for bitsandbytes 4-bit weights) or the user's config states (`--fsdp-version`, `--from`); a
 * calibration row's `fsdp_version` (TimeOptions.fsdp2) overrides; FSDP1 and DeepSpeed copy nothing here.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { modelFacts, trainStep, trainWork, gpuRates } from '../../src/core/time/index.js';
import { TRAIN_PHASES } from '../../src/core/time/model-facts.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';
import { launchedFsdpVersion } from '../../src/schema/fsdp-version.js';
import { mapFsdp } from '../../src/core/engines/hf/from/fsdp.js';

const h100 = findGpu('h100-sxm');
const flags = (framework: string, extra: Record<string, unknown> = {}) =>
  optionsFromFlags({
    method: 'full',
    weights: 'bf16',
    'optimizer-states': 'bf16',
    batch: 1,
    seq: 4096,
    checkpointing: 'full',
    attention: 'flash',
    zero: 3,
    gpus: 8,
    gpu: 'h100-sxm',
    framework,
    ...extra,
  });
const gatherPhase = TRAIN_PHASES.indexOf('parameter-gather');
const reducePhase = TRAIN_PHASES.indexOf('gradient-reduce');

describe("FSDP2's copies on the compute stream", () => {
  const m = modelFacts(resolveModel('qwen3-30b-a3b'));
  const t = defaultTimeOptions(8);
  const r = gpuRates(h100, t);

  it('copies every gathered pass out and the gradients in: bf16 parameters read and written', () => {
    const w = trainWork(m, flags('hf-fsdp'), { ...t, fsdp2: true });
    // One pass: the whole model, unsharded over the 8 ranks, read from the all-gather buffer and written out (2 B each).
    expect(w.fsdpCopyPassBytes).toBeCloseTo(2 * m.total * 2, -3);
    // Non-reentrant checkpointing recomputes on backward's gather (fsdp-unshard-order.ts recomputeRegathers): two
    // copy-outs; a reentrant call-site checkpoint gathers for the recompute too: three.
    expect(w.fsdpCopyGatherBytes).toBeCloseTo(2 * w.fsdpCopyPassBytes, -3);
    const reentrant = trainWork(m, flags('hf-fsdp'), {
      ...t,
      fsdp2: true,
      reentrantCheckpoint: true,
    });
    expect(reentrant.fsdpCopyGatherBytes).toBeCloseTo(3 * w.fsdpCopyPassBytes, -3);
    // bf16 gradients read and written at the engine's bf16 reduce width.
    expect(w.fsdpCopyReduceBytes).toBeCloseTo(m.total * (2 + 2), -3);
  });

  it('adds the copies at the memory rate to the step, as gather and reduce time', () => {
    const o = flags('hf-fsdp');
    const fsdp1 = trainWork(m, o, { ...t, fsdp2: false });
    const copied = trainWork(m, o, { ...t, fsdp2: true });
    expect(fsdp1.fsdpCopyGatherBytes + fsdp1.fsdpCopyReduceBytes).toBe(0);
    // FSDP1 divides its gradients in passes of their own (fsdp-grad-divide.ts), FSDP2's bf16 reduce inside NCCL: set
    // them aside to compare the copies alone.
    expect(fsdp1.gradDivideBytes).toBeGreaterThan(0);
    expect(copied.gradDivideBytes).toBe(0);
    const plain = { ...fsdp1, gradDivideBytes: 0 };
    const before = new Float64Array(TRAIN_PHASES.length);
    const after = new Float64Array(TRAIN_PHASES.length);
    const extra = trainStep(copied, r, after) - trainStep(plain, r, before);
    const bytes = copied.fsdpCopyGatherBytes + copied.fsdpCopyReduceBytes;
    expect(extra).toBeCloseTo((copied.microBatches * bytes) / r.mem, 9);
    expect(after[gatherPhase]! - before[gatherPhase]!).toBeCloseTo(
      (copied.microBatches * copied.fsdpCopyGatherBytes) / r.mem,
      9,
    );
    expect(after[reducePhase]! - before[reducePhase]!).toBeCloseTo(
      (copied.microBatches * copied.fsdpCopyReduceBytes) / r.mem,
      9,
    );
  });

  it("follows the engine: torchtitan's and torchtune's fully_shard, hf-fsdp's fsdp_version, never DeepSpeed", () => {
    const dense = modelFacts(resolveModel('llama-3.1-8b'));
    for (const engine of ['torchtitan', 'torchtune', 'hf-fsdp']) {
      expect(trainWork(dense, flags(engine), t).fsdpCopyGatherBytes, engine).toBeGreaterThan(0);
      // A row that says FSDP1 (TimeOptions.fsdp2 false) overrides the profile.
      const v1 = { ...t, fsdp2: false };
      expect(trainWork(dense, flags(engine), v1).fsdpCopyGatherBytes, engine).toBe(0);
    }
    // The user's own accelerate config with fsdp_version 1.
    const v1 = flags('hf-fsdp', { 'fsdp-version': 1 });
    expect(v1.fsdpVersion).toBe(1);
    expect(trainWork(dense, v1, t).fsdpCopyGatherBytes).toBe(0);
    // DeepSpeed's ZeRO-3 (the profile's zeroHooks) is never FSDP2, whatever a run says.
    expect(trainWork(m, flags('hf-deepspeed'), { ...t, fsdp2: true }).fsdpCopyGatherBytes).toBe(0);
  });

  it('hf-fsdp estimates the FSDP its launchers write: FSDP1 for bitsandbytes 4-bit weights, FSDP2 otherwise', () => {
    const dense = modelFacts(resolveModel('llama-3.1-8b'));
    fc.assert(
      fc.property(
        fc.constantFrom(
          { method: 'full', weights: 'bf16' },
          { method: 'lora', weights: 'bf16' },
          { method: 'qlora', weights: 'nf4' },
          { method: 'qlora', weights: 'fp4' },
        ),
        fc.constantFrom(2, 3),
        (w, zero) => {
          const o = flags('hf-fsdp', { ...w, zero, 'optimizer-states': 'fp32' });
          const copied = trainWork(dense, o, t).fsdpCopyReduceBytes > 0;
          expect(copied).toBe(launchedFsdpVersion(o) === 2);
          expect(launchedFsdpVersion(o)).toBe(w.weights === 'bf16' ? 2 : 1);
        },
      ),
      { numRuns: 8 },
    );
  });

  it("--from reads fsdp_version, FSDP1 where the config leaves it out (accelerate's default)", () => {
    expect(mapFsdp([], { fsdp_sharding_strategy: 'FULL_SHARD' }, 'fsdp')['fsdp-version']).toBe(1);
    expect(
      mapFsdp([], { fsdp_version: 2, fsdp_reshard_after_forward: true }, 'fsdp'),
    ).toMatchObject({ zero: 3, 'fsdp-version': 2 });
    // axolotl's top-level key beside its fsdp_config block.
    expect(mapFsdp([], { reshard_after_forward: false }, 'fsdp', 2)).toMatchObject({
      zero: 2,
      'fsdp-version': 2,
    });
    expect(() => mapFsdp([], { fsdp_version: 3 }, 'fsdp')).toThrow(/1 or 2/);
    // NO_SHARD is plain data parallel: no FSDP generation to price.
    expect(mapFsdp(['no_shard'], undefined, 'fsdp')['fsdp-version']).toBeUndefined();
  });

  it('--fsdp-version only where a launcher writes it, over FSDP sharding', () => {
    expect(() => flags('torchtitan', { 'fsdp-version': 1 })).toThrow(/fsdp-version/);
    expect(() => flags('hf-fsdp', { 'fsdp-version': 3 })).toThrow(/fsdp-version/);
    expect(() => flags('hf-deepspeed', { 'fsdp-version': 2 })).toThrow(/fsdp-version/);
    // The version launch writes anyway is the default, so a launched folder reads back as the plan's options.
    const qlora = { method: 'qlora', weights: 'nf4', 'optimizer-states': 'fp32' };
    expect(flags('hf-fsdp', { ...qlora, 'fsdp-version': 1 }).fsdpVersion).toBeUndefined();
    expect(flags('hf-fsdp', { 'fsdp-version': 2 }).fsdpVersion).toBeUndefined();
    expect(flags('hf-fsdp', { ...qlora, 'fsdp-version': 2 }).fsdpVersion).toBe(2);
  });

  it('copies nothing on one GPU', () => {
    const one = flags('torchtitan', { gpus: 1, zero: 0 });
    const w = trainWork(m, one, defaultTimeOptions(1));
    expect(w.fsdpCopyGatherBytes + w.fsdpCopyReduceBytes + w.fsdpCopyPassBytes).toBe(0);
  });

  it('moves parameter bytes, not tokens: the copies do not change with the batch or the sequence', () => {
    const base = trainWork(m, flags('torchtitan'), t);
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.constantFrom(1024, 2048, 8192),
        (batch, seq) => {
          const w = trainWork(m, flags('torchtitan', { batch, seq }), t);
          expect(w.fsdpCopyGatherBytes).toBeCloseTo(base.fsdpCopyGatherBytes, -3);
          expect(w.fsdpCopyReduceBytes).toBeCloseTo(base.fsdpCopyReduceBytes, -3);
        },
      ),
      { numRuns: 12 },
    );
  });
});
