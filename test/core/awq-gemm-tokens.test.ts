// vLLM's plain AWQ linear (Turing, ROCm, --quantization awq) multiplies up to 255 tokens in its fused int4 GEMM
// (awq_gemm) and dequantizes the weight to a 16-bit copy only from 256 (FP16_MATMUL_HEURISTIC_CONDITION in
// vllm/model_executor/layers/quantization/awq.py; FrameworkProfile.awqGemmMaxTokens). Other engines keep the AWQ
// kernel family's crossover (time/decode.ts KERNELS.awq).
import { describe, expect, it } from 'vitest';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { VLLM_MEMORY } from '../../src/core/engines/vllm/memory.js';
import { decodeStep } from '../../src/core/time/decode.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const m = modelFacts(resolveModel('qwen2.5-7b'));
const step = (framework: string, batch: number) => {
  const f = {
    method: 'inference',
    framework,
    weights: 'int4',
    batch,
    seq: 512,
    'prompt-tokens': 256,
  };
  const o = withEngineDefaults(optionsFromFlags(f), f);
  const t = { ...defaultTimeOptions(1), quantFormat: 'awq' as const };
  return decodeStep(m, o, t, gpuRates(findGpu('t4'), t), false).stepSeconds;
};

describe("vLLM's plain AWQ kernel by tokens", () => {
  it('states 255 tokens for awq_gemm', () => {
    expect(VLLM_MEMORY.awqGemmMaxTokens).toBe(255);
  });

  it('reads the packed weight up to 255 tokens and a 16-bit copy, written and read back, from 256', () => {
    // AutoAWQ's family (hf) dequantizes from 17 tokens; vLLM's step does not jump there, only at 256.
    expect(step('hf', 17) / step('hf', 16)).toBeGreaterThan(2);
    expect(step('vllm', 17) / step('vllm', 16)).toBeLessThan(1.1);
    expect(step('vllm', 256) / step('vllm', 255)).toBeGreaterThan(1.1);
  });
});
