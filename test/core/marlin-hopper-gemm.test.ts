/**
 * vLLM's Marlin kernels multiply with Ampere's mma.sync alone, so on a Hopper card their compute-bound GEMMs (a
 * prefill) run at KernelFamily.hopperPeakShare of the 16-bit peak, below the wgmma rate the time model gives other
 * kernels there. Only where the run names the kernel (--quant-format marlin); a GA10x or Ada card keeps its native
 * rate (an A100's cap is KernelFamily.sm80PeakShare: marlin-sm80-gemm.test.ts), and a memory-bound decode step is
 * unaffected.
 */
import { describe, expect, it } from 'vitest';
import { LLAMA_8B, llama8bBatchSeconds, llama8bOptions } from '../helpers/vllm-llama8b.js';
import { decodeStep, gpuRates, modelFacts } from '../../src/core/time/index.js';
import { resolveModel } from '../../src/io/load-model.js';
import type { RawFlags } from '../../src/schema/flags.js';

const MODEL = LLAMA_8B;
const options = llama8bOptions;
const batchSeconds = llama8bBatchSeconds;

function stepSeconds(gpu: string, flags: RawFlags): number {
  const { o, t, g } = options(gpu, flags);
  return decodeStep(modelFacts(resolveModel(MODEL)), o, t, gpuRates(g, t)).stepSeconds;
}

const prefillHeavy: RawFlags = { weights: 'int4', batch: 64, seq: 2080, 'prompt-tokens': 2048 };
const named: RawFlags = { ...prefillHeavy, 'quant-format': 'marlin' };

describe("Marlin's GEMMs on Hopper", () => {
  it('a prefill-heavy batch through named Marlin takes longer on an H100 than the same batch unnamed', () => {
    const unnamed = batchSeconds('h100-sxm', prefillHeavy);
    const marlin = batchSeconds('h100-sxm', named);
    expect(marlin).toBeGreaterThan(unnamed * 1.05);
    // At most the full gap between the peak share and the 16-bit GEMM rate (the decode steps do not grow).
    expect(marlin).toBeLessThan(unnamed / 0.7);
  });

  it('an RTX 4090 (mma.sync is its own tensor path, no share measured) keeps the 16-bit rate', () => {
    expect(batchSeconds('rtx-4090', named)).toBe(batchSeconds('rtx-4090', prefillHeavy));
  });

  it('a memory-bound decode step at batch 1 is unchanged', () => {
    const one: RawFlags = { weights: 'int4', batch: 1, seq: 512 };
    // Unchanged up to the ridge blend's tail: a memory-bound step's FLOPs add (FLOPs / read)^3 / 3 of it, ~1e-7.
    const ratio =
      stepSeconds('h100-sxm', { ...one, 'quant-format': 'marlin' }) / stepSeconds('h100-sxm', one);
    expect(ratio).toBeCloseTo(1, 6);
  });

  it('FP8 W8A8 (CUTLASS, wgmma) on an H100 is not capped', () => {
    const fp8: RawFlags = { weights: 'fp8', batch: 64, seq: 2080, 'prompt-tokens': 2048 };
    expect(batchSeconds('h100-sxm', { ...fp8, 'quant-format': 'cutlass' })).toBe(
      batchSeconds('h100-sxm', fp8),
    );
  });
});
