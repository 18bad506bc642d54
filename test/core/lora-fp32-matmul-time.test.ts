/**
 * PEFT's fp32 adapters without torch.autocast: `_cast_input_dtype` casts each adapted linear's input to
 * lora_A.weight.dtype (fp32: get_peft_model's autocast_adapter_dtype=True) and nothing casts it back, so lora_A and
 * lora_B run as fp32 matmuls, on CUDA-core FMA since PyTorch leaves TF32 off for matmuls
 * (time/adapter-path.ts fp32AdapterMatmuls; TrainWork.adapterFp32Flops, timed at GpuRates.gemm32).
 */
import { describe, expect, it } from 'vitest';
import { gpuRates, modelFacts, trainStep, trainWork } from '../../src/core/time/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';
import { HF_LORA_ROW_FLAGS } from '../helpers/hf-lora-flags.js';

const flags = HF_LORA_ROW_FLAGS;

describe("PEFT's fp32 adapter matmuls without autocast", () => {
  const m = modelFacts(resolveModel('llama-2-7b'));
  const t = defaultTimeOptions(1);
  const o = optionsFromFlags(flags);

  it('counts the adapters of q and v as fp32 matmul FLOPs: 2 per adapter weight per token forward', () => {
    const w = trainWork(m, o, { ...t, noAutocast: true });
    const tokens = 4 * 1024;
    // q: hidden -> attnWidth, v: hidden -> kvWidth, rank-r A and B on each, every layer.
    const weights = o.loraRank * (2 * m.hidden + m.attnWidth + m.kvWidth) * m.layers;
    expect(w.adapterFp32Flops).toBeCloseTo(2 * tokens * weights, -3);
  });

  it('counts none under autocast, with adapters kept in the weights dtype, or on an engine that casts them', () => {
    expect(trainWork(m, o, t).adapterFp32Flops).toBe(0);
    expect(
      trainWork(m, o, { ...t, noAutocast: true, adaptersInWeightDtype: true }).adapterFp32Flops,
    ).toBe(0);
    const unsloth = optionsFromFlags({ ...flags, framework: 'unsloth' });
    expect(trainWork(m, unsloth, { ...t, noAutocast: true }).adapterFp32Flops).toBe(0);
  });

  it('times them at the fp32 rate: the step grows by their FLOPs at gemm32 less their share at the 16-bit rate', () => {
    const a100 = findGpu('a100-80gb-sxm');
    const r = gpuRates(a100, t);
    const eager = trainWork(m, o, { ...t, noAutocast: true });
    const without = { ...eager, adapterFp32Flops: 0 };
    const f = eager.adapterFp32Flops;
    // Forward, recompute (full checkpointing) and backward (twice the forward FLOPs).
    const extra = (f + f + 2 * f) * (1 / r.gemm32 - 1 / (r.gemm16 * eager.shape));
    expect(trainStep(eager, r)).toBeGreaterThan(trainStep(without, r));
    expect(trainStep(eager, r) - trainStep(without, r)).toBeCloseTo(extra, 3);
  });
});
