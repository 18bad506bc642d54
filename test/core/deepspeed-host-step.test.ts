/**
 * DeepSpeed's offloaded optimizer step at the rate DeepSpeed's own ZeRO-Offload run measured for the whole host step
 * with the ranks bound to their cores (FrameworkProfile.hostStepBytesPerS, 38 GB/s of the update's 28 B a parameter),
 * at the share an unbound host reaches (FrameworkProfile.hostStepUnboundShare: the same blog's 2,497 ms bound against
 * 2,887 ms unbound, blogs/zenflow-corebinding), against CPU-Adam's 100 GB/s (HOST_ADAM_BYTES_PER_S) that FSDP and
 * torchtune keep. Hand-computed for Llama-2-7B (6,738,415,616 parameters) on eight A100 40GB, one node.
 */
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
import { defaultTimeOptions } from '../../src/schema/time.js';

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
