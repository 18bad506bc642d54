// vLLM 0.10.1 and 0.11.0 run GLM-4.5's MoE gate as an fp32 nn.Linear on an fp32 copy of the hidden states
// (vllm/model_executor/models/glm4_moe.py of both wheels), an SGEMM on the CUDA cores once a MoE layer on every TP rank
// (engines/vllm/fp32-router.ts, time/fp32-router.ts). A prefill and a decode step pay it a token where the run's
// release is known and in that range; SGLang's Glm4MoeGate stays in the model's dtype.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { VLLM_FP32_ROUTER } from '../../src/core/engines/vllm/fp32-router.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { decodeTraffic, prefillGpuSeconds } from '../../src/core/time/decode.js';
import { fp32RouterSecondsPerRow } from '../../src/core/time/fp32-router.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions, type TimeOptions } from '../../src/schema/time.js';

const air = modelFacts(resolveModel('glm-4.5-air'));
const a100 = gpuRates(findGpu('a100-80gb-sxm'), defaultTimeOptions(4));
const at = (engineVersion?: string): TimeOptions => ({ ...defaultTimeOptions(4), engineVersion });
const perRow = (framework: 'vllm' | 'sglang', version?: string, m = air) =>
  fp32RouterSecondsPerRow(m, FRAMEWORKS[framework], at(version), a100);

describe("vLLM's fp32 GLM-4.5 router", () => {
  it("prices GLM-4.5-Air's gate at the card's fp32 GEMM rate plus the cast, a token", () => {
    expect([air.modelType, air.experts, air.hidden, air.moeLayers]).toEqual([
      'glm4_moe',
      128,
      4096,
      45,
    ]);
    const flops = 2 * 4096 * 128 * 45;
    const cast = 6 * 4096 * 45;
    expect(perRow('vllm', '0.11.0')).toBeCloseTo(flops / a100.gemm32 + cast / a100.mem, 15);
    // About 3.5 µs a token on an A100 (19.5 fp32 TFLOPS at the catalog's share): 7 ms a 2,048-token chunk.
    expect(perRow('vllm', '0.11.0') * 2048).toBeGreaterThan(5e-3);
    expect(perRow('vllm', '0.11.0') * 2048).toBeLessThan(10e-3);
  });

  it('applies only at the releases read, and only to the listed model type and engine', () => {
    expect(perRow('vllm', '0.10.1')).toBeGreaterThan(0);
    expect(perRow('vllm', '0.10.1+main-2025-08-26')).toBeGreaterThan(0);
    expect(perRow('vllm', '0.10.0')).toBe(0);
    expect(perRow('vllm', '0.12.0')).toBe(0);
    expect(perRow('vllm', undefined)).toBe(0);
    expect(perRow('sglang', '0.11.0')).toBe(0);
    expect(perRow('vllm', '0.11.0', modelFacts(resolveModel('qwen3-30b-a3b')))).toBe(0);
    expect(VLLM_FP32_ROUTER.modelTypes).toEqual(['glm4_moe']);
  });

  it('is zero outside [from, before) and the same figure at every release inside it', () => {
    const inside = perRow('vllm', '0.11.0');
    fc.assert(
      fc.property(fc.nat(1), fc.nat(40), fc.nat(9), (major, minor, patch) => {
        const v = `${major}.${minor}.${patch}`;
        const inRange =
          major === 0 && ((minor === 10 && patch >= 1) || (minor === 11 && patch === 0));
        expect(perRow('vllm', v)).toBe(inRange ? inside : 0);
      }),
    );
  });

  it("adds its seconds to a vLLM prefill of GLM-4.5-Air, a token of the chunk's each", () => {
    const f = {
      method: 'inference',
      framework: 'vllm',
      batch: 1,
      seq: 2100,
      'prompt-tokens': 2048,
      gpus: 4,
      tp: 4,
      gpu: 'a100-80gb-sxm',
    };
    const o = withEngineDefaults(optionsFromFlags(f), f);
    const prefill = (t: TimeOptions) =>
      prefillGpuSeconds(air, o, a100, decodeTraffic(air, o, t, a100, 1, 2048), 2048, 1);
    const added = prefill(at('0.11.0')) - prefill(at('0.12.0'));
    expect(added).toBeCloseTo(perRow('vllm', '0.11.0') * 2048, 12);
  });
});
