// vLLM runs gpt-oss's MXFP4 experts on the 10.x family through FlashInfer's TensorRT-LLM-gen MoE with BF16 activations
// (trtllm_fp4_block_scale_moe): its one-token call latency, and its routing, gemm1 + SwiGLU, gemm2 and finalize in place
// of the Triton chain's top-k, alignment, two GEMMs with the activation between, and sum (engines/moe-call.ts,
// engines/vllm/decode-kernels.ts). Hopper's Marlin, Ampere's Marlin and SGLang's figures stay as they were.
import { describe, expect, it } from 'vitest';
import { estimateTime } from '../../src/core/time/index.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { moeCallLatency, nativeFp4 } from '../../src/core/time/moe-call.js';
import {
  FLASHINFER_TRTLLM_MXFP4_MOE,
  FLASHINFER_TRTLLM_NVFP4_MOE,
} from '../../src/core/engines/moe-call.js';
import {
  VLLM_DECODE_FEATURE_KERNELS,
  VLLM_SM90_GPT_OSS_KERNELS,
  vllmDecodeFeatureKernels,
} from '../../src/core/engines/vllm/decode-kernels.js';
import { decodeFeatureKernels } from '../../src/core/time/decode-host.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultTimeOptions } from '../../src/schema/time.js';
import { gptOss, gptOssOptions } from '../helpers/vllm-gptoss.js';

const o = gptOssOptions;

describe("vLLM's MXFP4 MoE on SM100", () => {
  const vllm = FRAMEWORKS.vllm;
  const call = vllm.moeCallSeconds!;

  it('takes the TensorRT-LLM-gen call on the 10.x family only, and only for MXFP4 experts', () => {
    expect(FLASHINFER_TRTLLM_MXFP4_MOE).toBe(FLASHINFER_TRTLLM_NVFP4_MOE);
    expect(moeCallLatency(vllm, 10, 'mxfp4')).toBe(FLASHINFER_TRTLLM_MXFP4_MOE);
    expect(moeCallLatency(vllm, 10.3, 'mxfp4')).toBe(FLASHINFER_TRTLLM_MXFP4_MOE);
    expect(moeCallLatency(vllm, 12, 'mxfp4')).toBe(call.blackwell);
    expect(moeCallLatency(vllm, 10, null)).toBe(call.blackwell);
    expect(moeCallLatency(vllm, 10, 'nvfp4')).toBe(call.blackwellNvfp4);
    expect(moeCallLatency(vllm, 9, null)).toBe(call.hopper);
    // SGLang's profile names no SM100 MXFP4 figure: its Triton figure stands.
    expect(moeCallLatency(FRAMEWORKS.sglang, 10, 'mxfp4')).toBe(call.blackwell);
    expect([nativeFp4('mxfp4'), nativeFp4('nvfp4'), nativeFp4('bf16')]).toEqual([
      'mxfp4',
      'nvfp4',
      null,
    ]);
  });

  it("counts gpt-oss's MoE chain on 10.x as two kernels fewer than the Triton chain", () => {
    expect(vllmDecodeFeatureKernels('gpt_oss', 10).trtllmMoeMxfp4).toBe(-2);
    expect(vllmDecodeFeatureKernels('gpt_oss', 10.3).trtllmMoeMxfp4).toBe(-2);
    // 9.x runs triton_kernels' matmul_ogs by release (test/core/vllm-gptoss-triton-routing.test.ts), not FlashInfer's.
    expect(vllmDecodeFeatureKernels('gpt_oss', 9)).toBe(VLLM_SM90_GPT_OSS_KERNELS);
    expect(vllmDecodeFeatureKernels('gpt_oss', 9).trtllmMoeMxfp4).toBeUndefined();
    expect(vllmDecodeFeatureKernels('gpt_oss', 12)).toBe(VLLM_DECODE_FEATURE_KERNELS);
    expect(vllmDecodeFeatureKernels('qwen3_moe', 10)).toBe(VLLM_DECODE_FEATURE_KERNELS);
    const m = modelFacts(gptOss);
    expect(decodeFeatureKernels(m, o({}), 10)).toBe(-2 * m.moeLayers);
    expect(decodeFeatureKernels(m, o({}), 9)).toBe(0);
  });

  it('slows a one-token gpt-oss-20b step on a B200 by the calls less two graph kernels a layer', () => {
    const t = defaultTimeOptions(1);
    const b200 = findGpu('b200');
    const m = modelFacts(gptOss);
    const step = estimateTime(gptOss, o({}), b200, t).stepSeconds;
    // The same profile with the Triton chain's call figure and kernel count on SM100.
    const fw = vllm as { moeCallSeconds?: typeof call; decodeFeatureKernels?: unknown };
    const [saveCall, saveKernels] = [fw.moeCallSeconds, fw.decodeFeatureKernels];
    let triton: number;
    try {
      fw.moeCallSeconds = { ...call, sm100Mxfp4: undefined };
      fw.decodeFeatureKernels = () => VLLM_DECODE_FEATURE_KERNELS;
      triton = estimateTime(gptOss, o({}), b200, t).stepSeconds;
    } finally {
      fw.moeCallSeconds = saveCall;
      fw.decodeFeatureKernels = saveKernels;
    }
    const calls = m.moeLayers * (FLASHINFER_TRTLLM_MXFP4_MOE - call.blackwell);
    expect(step - triton).toBeGreaterThan(0.5 * calls);
    expect(step - triton).toBeLessThan(calls);
    // An H100 runs Marlin's MXFP4 MoE: no native FP4 call, the Hopper figure.
    expect(moeCallLatency(vllm, Number(findGpu('h100-sxm').computeCapability), null)).toBe(
      call.hopper,
    );
  });
});
