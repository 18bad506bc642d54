/**
 * DeepSpeed's offloaded optimizer step at the rate DeepSpeed's own ZeRO-Offload run measured for the whole host step
 * with the ranks bound to their cores (FrameworkProfile.hostStepBytesPerS, 38 GB/s of the update's 28 B a parameter),
 * at the share an unbound host reaches (FrameworkProfile.hostStepUnboundShare: the same blog's 2,497 ms bound against
 * 2,887 ms unbound, blogs/zenflow-corebinding), against CPU-Adam's 100 GB/s (HOST_ADAM_BYTES_PER_S) that FSDP and
 * torchtune keep. Hand-computed for Llama-2-7B (6,738,415,616 parameters) on eight A100 40GB, one node. The rate is the
 * measured rig's 128 physical cores' (FrameworkProfile.hostStepCores: two EPYC 7742): a host of another core count
 * (TimeOptions.hostCores) scales it, and a run launched with --bind_cores_to_rank (TimeOptions.hostCoresBound) keeps the
 * bound rate. Properties over generated plans: an offloaded optimizer step is never faster than the resident one, more
 * host cores never slow a step, and binding the ranks never slows one.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  TRAIN_PHASES,
  gpuRates,
  modelFacts,
  trainStep,
  trainWork,
} from '../../src/core/time/index.js';
import { HOST_ADAM_BYTES_PER_S } from '../../src/core/time/train-work.js';
import { hostStepRate } from '../../src/core/time/optimizer-step.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions, type TimeOptions } from '../../src/schema/time.js';

const m = modelFacts(resolveModel('llama-2-7b'));
const t = defaultTimeOptions(8); // one node of eight GPUs
const r = gpuRates(findGpu('a100-40gb-sxm'), t);
const full = (framework: string, offload: string) =>
  optionsFromFlags({ method: 'full', batch: 1, seq: 2048, zero: 3, offload, gpus: 8, framework });
const optimizerSeconds = (framework: string, offload: string): number => {
  const phases = new Float64Array(TRAIN_PHASES.length);
  trainStep(trainWork(m, full(framework, offload), t), r, phases);
  return phases[TRAIN_PHASES.indexOf('optimizer')] ?? Number.NaN;
};

describe("DeepSpeed's offloaded host step", () => {
  it("prices the DeepSpeed engines at 38 GB/s a node times the unbound launcher's share, FSDP at CPU-Adam 100 GB/s", () => {
    // DeepSpeed's launcher binds no cores without --bind_cores_to_rank: 38e9 x 2,497 / 2,887 = 32.87 GB/s.
    expect(trainWork(m, full('hf-deepspeed', 'optimizer+params'), t).hostStepBytesPerS).toBeCloseTo(
      (38e9 * 2497) / 2887,
      -3,
    );
    expect(trainWork(m, full('hf-fsdp', 'optimizer+params'), t).hostStepBytesPerS).toBe(
      HOST_ADAM_BYTES_PER_S,
    );
  });

  it('times the whole node step: 28 B x 6.74e9 parameters / 32.87 GB/s = 5.74 s, ZeRO-Offload and ZeRO-3 alike', () => {
    // Eight ranks each step 1/8 of the parameters and share the node: 28 x 6,738,415,616 / (38e9 x 2,497 / 2,887) = 5.740 s,
    // where the bound rate alone gives 4.965 s.
    const expected = (28 * 6_738_415_616) / ((38e9 * 2497) / 2887);
    expect(expected).toBeCloseTo(5.74, 2);
    expect(optimizerSeconds('hf-deepspeed', 'optimizer+params')).toBeCloseTo(expected, 2);
    expect(optimizerSeconds('hf-deepspeed', 'optimizer')).toBeCloseTo(expected, 2);
    // The same step under FSDP's CPU offload: 28 x 6.74e9 / 100e9 = 1.887 s.
    expect(optimizerSeconds('hf-fsdp', 'optimizer+params')).toBeCloseTo(
      (28 * 6_738_415_616) / 100e9,
      2,
    );
  });
});

describe('the unbound host share', () => {
  it("never speeds an engine's host step past the rate it was measured at", () => {
    for (const [id, fw] of Object.entries(FRAMEWORKS)) {
      const measured = fw.hostStepBytesPerS ?? HOST_ADAM_BYTES_PER_S;
      expect(hostStepRate(fw), id).toBeLessThanOrEqual(measured);
      expect(hostStepRate(fw), id).toBeGreaterThan(0);
    }
  });
});

// The gist's host (chenyaofo/d4cd6a20ab4b95cb3a49491747e2139a: 'Intel 8358 CPU x 2', 32 physical cores each).
const XEON_8358_X2_CORES = 64;

describe('the host step per physical core of the node (FrameworkProfile.hostStepCores)', () => {
  it('scales the measured rig’s 128-core rate to a named host: 64 cores step Llama-2-7B in 11.48 s unbound', () => {
    const fw = FRAMEWORKS.deepspeed;
    expect(fw.hostStepCores).toBe(128);
    // 38e9 x 64 / 128 x 2,497 / 2,887 = 16.43 GB/s; 28 x 6,738,415,616 / 16.43e9 = 11.48 s.
    const rate = (38e9 * XEON_8358_X2_CORES * 2497) / (128 * 2887);
    expect(hostStepRate(fw, { hostCores: XEON_8358_X2_CORES })).toBeCloseTo(rate, -3);
    const phases = new Float64Array(TRAIN_PHASES.length);
    const o = full('hf-deepspeed', 'optimizer');
    trainStep(trainWork(m, o, { ...t, hostCores: XEON_8358_X2_CORES }), r, phases);
    expect(phases[TRAIN_PHASES.indexOf('optimizer')]).toBeCloseTo((28 * 6_738_415_616) / rate, 2);
    expect((28 * 6_738_415_616) / rate).toBeCloseTo(11.48, 2);
  });

  it('keeps the bound rate under --bind_cores_to_rank, and leaves a profile measured on no named host alone', () => {
    const fw = FRAMEWORKS.deepspeed;
    expect(hostStepRate(fw, { hostCoresBound: true })).toBe(38e9);
    expect(hostStepRate(fw, { hostCores: 128, hostCoresBound: true })).toBe(38e9);
    expect(hostStepRate(fw)).toBeCloseTo((38e9 * 2497) / 2887, -3);
    // FSDP's CPU-Adam rate names no host's cores: a named host does not scale it.
    const fsdp = FRAMEWORKS.hf;
    expect(hostStepRate(fsdp, { hostCores: XEON_8358_X2_CORES })).toBe(HOST_ADAM_BYTES_PER_S);
  });
});

const RUNS = Number(process.env.VRAMPLAN_FC_RUNS ?? 60);
const SEED = Number(process.env.VRAMPLAN_FC_SEED ?? 20261207);

describe('an offloaded optimizer step against the resident one (properties)', () => {
  const models = ['tinyllama-1.1b', 'llama-2-7b', 'qwen2.5-7b'].map((id) =>
    modelFacts(resolveModel(id)),
  );
  const gpus = ['t4', 'a100-40gb-sxm', 'a800-80gb-sxm', 'h100-sxm'].map((id) => findGpu(id));
  const caseArb = fc.record({
    m: fc.constantFrom(...models),
    gpu: fc.constantFrom(...gpus),
    framework: fc.constantFrom('hf-deepspeed', 'hf-fsdp'),
    zero: fc.constantFrom(2, 3),
    gpus: fc.constantFrom(1, 2, 8),
    batch: fc.constantFrom(1, 4),
    seq: fc.constantFrom(512, 4096),
    accum: fc.constantFrom(1, 8),
    cores: fc.integer({ min: 1, max: 512 }),
    more: fc.integer({ min: 1, max: 512 }),
    bound: fc.boolean(),
  });
  type Case = typeof caseArb extends fc.Arbitrary<infer U> ? U : never;
  const stepSeconds = (c: Case, offload: string, tt: TimeOptions): number => {
    const o = optionsFromFlags({
      method: 'full',
      batch: c.batch,
      seq: c.seq,
      zero: c.zero,
      offload,
      gpus: c.gpus,
      framework: c.framework,
    });
    return trainStep(trainWork(c.m, o, tt), gpuRates(c.gpu, tt));
  };
  /** A case's time options: its accumulation and host cores. */
  const hostOptions = (c: Case): TimeOptions => ({
    ...defaultTimeOptions(c.gpus),
    gradAccum: c.accum,
    hostCores: c.cores,
  });

  it('offloading the optimizer never makes a step faster, whatever the host’s cores and binding', () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const tt: TimeOptions = { ...hostOptions(c), hostCoresBound: c.bound };
        expect(stepSeconds(c, 'optimizer', tt)).toBeGreaterThanOrEqual(stepSeconds(c, 'none', tt));
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it('more host cores, or the ranks bound to them, never slow an offloaded step', () => {
    fc.assert(
      fc.property(caseArb, (c) => {
        const tt = hostOptions(c);
        const base = stepSeconds(c, 'optimizer', tt);
        expect(
          stepSeconds(c, 'optimizer', { ...tt, hostCores: c.cores + c.more }),
        ).toBeLessThanOrEqual(base);
        expect(stepSeconds(c, 'optimizer', { ...tt, hostCoresBound: true })).toBeLessThanOrEqual(
          base,
        );
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });
});
