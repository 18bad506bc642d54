/**
 * Above 64 rows vLLM's Marlin runs its batch-64 kernel once per 64-row block (IST-DASLab/marlin#2), so on an A100 its
 * large-M GEMMs (a prefill, a large decode batch) hold KernelFamily.sm80PeakShare of the 16-bit peak, about 141 of
 * 312 TFLOP/s (vllm-project/vllm#2497), below the 16-bit GEMM rate the time model gives an unnamed kernel. Only where
 * the run names the kernel (--quant-format marlin), only on compute capability 8.0, and a memory-bound decode step at
 * batch 1 is unaffected.
 */
import { describe, expect, it } from 'vitest';
import { LLAMA_8B, llama8bBatchSeconds, llama8bOptions } from '../helpers/vllm-llama8b.js';
import { decodeStep, gpuRates, modelFacts } from '../../src/core/time/index.js';
import { gemmRate } from '../../src/core/time/decode.js';
import { resolveModel } from '../../src/io/load-model.js';
import type { RawFlags } from '../../src/schema/flags.js';

const MODEL = LLAMA_8B;
const options = llama8bOptions;
const batchSeconds = llama8bBatchSeconds;

const prefillHeavy: RawFlags = { weights: 'int4', batch: 64, seq: 2080, 'prompt-tokens': 2048 };
const named: RawFlags = { ...prefillHeavy, 'quant-format': 'marlin' };

describe("Marlin's large-M GEMMs on an A100", () => {
  it('run at 0.45 of the 16-bit peak where Marlin is named', () => {
    const { t, g } = options('a100-80gb-sxm', named);
    const r = gpuRates(g, t);
    expect(gemmRate('marlin', r, 'marlin')).toBeCloseTo(0.45 * r.peak16, -9);
    expect(gemmRate('marlin', r, 'marlin')).toBeLessThan(r.gemm16);
    expect(gemmRate('marlin', r, null)).toBe(r.gemm16);
  });

  it('a prefill-heavy batch through named Marlin takes longer on an A100 than the same batch unnamed', () => {
    const unnamed = batchSeconds('a100-80gb-sxm', prefillHeavy);
    const marlin = batchSeconds('a100-80gb-sxm', named);
    expect(marlin).toBeGreaterThan(unnamed * 1.1);
    // At most the full gap between the 16-bit GEMM rate and the cap (the decode steps do not grow).
    expect(marlin).toBeLessThan(unnamed * 2);
  });

  it('the A100 40GB (compute capability 8.0) is capped too; an RTX 3090 (8.6) is not', () => {
    expect(batchSeconds('a100-40gb-sxm', named)).toBeGreaterThan(
      batchSeconds('a100-40gb-sxm', prefillHeavy) * 1.1,
    );
    expect(batchSeconds('rtx-3090', named)).toBe(batchSeconds('rtx-3090', prefillHeavy));
  });

  it('a memory-bound decode step at batch 1 is unchanged', () => {
    const one: RawFlags = { weights: 'int4', batch: 1, seq: 512 };
    const step = (flags: RawFlags) => {
      const { o, t, g } = options('a100-80gb-sxm', flags);
      return decodeStep(modelFacts(resolveModel(MODEL)), o, t, gpuRates(g, t)).stepSeconds;
    };
    // Unchanged up to the ridge blend's tail (a memory-bound step's FLOPs add (FLOPs / read)^3 / 3 of it).
    expect(step({ ...one, 'quant-format': 'marlin' }) / step(one)).toBeCloseTo(1, 4);
  });
});
