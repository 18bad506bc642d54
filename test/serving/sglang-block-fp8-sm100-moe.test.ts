// SGLang runs DeepSeek-V3/R1's block-scaled FP8 experts on SM100 through FlashInfer's TensorRT-LLM-gen FP8 block-scale
// MoE (the flashinfer_trtllm runner, one trtllm_fp8_block_scale_moe call a layer): its one-token call latency in place
// of the Triton fused_moe figure (engines/moe-call.ts FLASHINFER_TRTLLM_FP8_BLOCK_MOE, engines/sglang/decode-kernels.ts).
// Hopper's Triton MoE, 16-bit weights, NVFP4 experts and vLLM's profile keep their figures.
import { describe, expect, it } from 'vitest';
import { estimateTime } from '../../src/core/time/index.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { moeCallLatency } from '../../src/core/time/moe-call.js';
import { trtllmMoeBlockFp8 } from '../../src/core/time/decode-host.js';
import {
  FLASHINFER_TRTLLM_FP8_BLOCK_MOE,
  FLASHINFER_TRTLLM_NVFP4_MOE,
} from '../../src/core/engines/moe-call.js';
import { sglangDecodeFeatureKernels } from '../../src/core/engines/sglang/decode-kernels.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const dsr1 = resolveModel('deepseek-ai/DeepSeek-R1');
const o = (p: Partial<EstimateOptions>): EstimateOptions => ({
  ...defaultOptions('inference'),
  framework: 'sglang',
  weights: 'fp8',
  batch: 1,
  seq: 1031,
  promptTokens: 610,
  gpus: 8,
  tp: 8,
  ...p,
});

describe("SGLang's block-FP8 DeepSeek MoE on SM100", () => {
  const sglang = FRAMEWORKS.sglang;
  const call = sglang.moeCallSeconds!;
  const m = modelFacts(dsr1);

  it('takes the TensorRT-LLM-gen FP8 block-scale call on 10.x for block-FP8 DeepSeek experts only', () => {
    // sgl-project/sglang#11816's Triton call at one token less its bytes and 6 graph gaps, near the NVFP4 call's.
    const bytes = (8 * 3 * 256 * 7168) / (7672e9 * 0.85 * 0.81);
    expect(FLASHINFER_TRTLLM_FP8_BLOCK_MOE).toBeCloseTo(52.65e-6 - bytes - 6 * 3.15e-6, 7);
    expect(FLASHINFER_TRTLLM_FP8_BLOCK_MOE).toBeLessThan(FLASHINFER_TRTLLM_NVFP4_MOE);
    expect(call.sm100BlockFp8).toBe(FLASHINFER_TRTLLM_FP8_BLOCK_MOE);
    expect(moeCallLatency(sglang, 10, null, true)).toBe(FLASHINFER_TRTLLM_FP8_BLOCK_MOE);
    expect(moeCallLatency(sglang, 10, null, false)).toBe(call.blackwell);
    expect(moeCallLatency(sglang, 12, null, true)).toBe(call.blackwell);
    expect(moeCallLatency(sglang, 9, null, true)).toBe(call.hopper);
    // vLLM's profile names no such figure: its Triton figure stands.
    expect(moeCallLatency(FRAMEWORKS.vllm, 10, null, true)).toBe(
      FRAMEWORKS.vllm.moeCallSeconds!.blackwell,
    );
    expect(sglangDecodeFeatureKernels('deepseek_v3', 10)?.trtllmMoeBlockFp8).toBe(true);
    expect(trtllmMoeBlockFp8(m, o({}), 10)).toBe(true);
    expect(trtllmMoeBlockFp8(m, o({ weights: 'bf16' }), 10)).toBe(false);
    expect(trtllmMoeBlockFp8(m, o({ weights: 'nvfp4' }), 10)).toBe(false);
    expect(trtllmMoeBlockFp8(m, o({}), 9)).toBe(false);
    expect(trtllmMoeBlockFp8(m, o({ framework: 'vllm' }), 10)).toBe(false);
  });

  it('slows a one-request DeepSeek-R1 FP8 step over TP 8 on B200s by about the calls beyond the Triton figure', () => {
    const t = defaultTimeOptions(8);
    const b200 = findGpu('b200');
    const step = estimateTime(dsr1, o({}), b200, t).stepSeconds;
    const fw = sglang as { moeCallSeconds?: typeof call };
    const save = fw.moeCallSeconds;
    let triton: number;
    try {
      fw.moeCallSeconds = { ...call, sm100BlockFp8: undefined };
      triton = estimateTime(dsr1, o({}), b200, t).stepSeconds;
    } finally {
      fw.moeCallSeconds = save;
    }
    // One expert set's bytes a layer fade the latency little at one token.
    const calls = m.moeLayers * (FLASHINFER_TRTLLM_FP8_BLOCK_MOE - call.blackwell);
    expect(step - triton).toBeGreaterThan(0.9 * calls);
    expect(step - triton).toBeLessThan(calls);
    // An H200 keeps the Triton MoE's Hopper figure: no change there.
    const h200 = findGpu('h200');
    const hopper = estimateTime(dsr1, o({}), h200, t).stepSeconds;
    try {
      fw.moeCallSeconds = { ...call, sm100BlockFp8: undefined };
      expect(estimateTime(dsr1, o({}), h200, t).stepSeconds).toBe(hopper);
    } finally {
      fw.moeCallSeconds = save;
    }
  });
});
