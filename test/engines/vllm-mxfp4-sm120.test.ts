// vLLM 0.33.0 runs gpt-oss's MXFP4 experts through Marlin on compute capability 12.x (fused_moe/oracle/mxfp4.py
// `_get_priority_backends_for_gpt_oss` moves TRITON behind BATCHED_MARLIN there; FlashInfer's MXFP4 x BF16 kernels
// run on 9.0 and the 100 family only): the estimate times Marlin and holds the experts at Marlin's pad there, not
// FP4 tensor cores at the checkpoint's shape.
import { describe, expect, it } from 'vitest';
import { kernelOn } from '../../src/core/time/decode.js';
import { mxfp4ExpertPadDims } from '../../src/core/time/mxfp4-pad.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { VLLM_MXFP4_MARLIN_MAJORS } from '../../src/core/engines/vllm/mxfp4-backend.js';
import type { EstimateOptions } from '../../src/schema/estimate.js';
import type { GpuRates } from '../../src/core/time/hardware.js';

const o = (framework: string) =>
  ({ framework, weights: 'mxfp4', tp: 1, ep: 1 }) as unknown as EstimateOptions;
const rates = (cc: number) => ({ cc, rocm: false, fp8: true }) as unknown as GpuRates;
// gpt-oss-20b's routed experts: hidden and expert width 2880, 32 experts.
const GPT_OSS = { experts: 32, expertFfn: 2880, hidden: 2880 };

describe('vLLM MXFP4 MoE on compute capability 12.x', () => {
  it('the profile lists the 12 major, and kernelOn takes Marlin there', () => {
    expect(FRAMEWORKS.vllm.mxfp4MarlinMajors).toEqual(VLLM_MXFP4_MARLIN_MAJORS);
    for (const cc of [12.0, 12.1]) expect(kernelOn('cutlass', o('vllm'), rates(cc))).toBe('marlin');
    // 10.x keeps FlashInfer's TensorRT-LLM-gen MoE on FP4 tensor cores.
    expect(kernelOn('cutlass', o('vllm'), rates(10.0))).toBe('cutlass');
  });

  it("holds the experts at Marlin's pad on 12.x (hidden to 256, width to 128)", () => {
    const q = kernelOn('cutlass', o('vllm'), rates(12.0));
    const d = mxfp4ExpertPadDims(GPT_OSS, FRAMEWORKS.vllm, o('vllm'), rates(12.0), q)!;
    expect(d.hidden).toBeCloseTo(3072 / 2880, 12);
    expect(d.width).toBeCloseTo(2944 / 2880, 12);
  });
});
