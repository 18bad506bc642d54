// vLLM (through its bitsandbytes plugin) and SGLang load a pre-quantized bitsandbytes FP4 checkpoint (its
// quant_state.bitsandbytes__fp4); in flight both quantize to NF4 only. `estimate` models the FP4 checkpoint as
// the NF4 one (same 4-bit storage, same absmax blocks, same bitsandbytes kernels); the launcher writes neither.
import { describe, expect, it } from 'vitest';
import { engineRefusal, withEngineDefaults } from '../../src/core/engines/defaults.js';
import { ENGINE_PROFILES } from '../../src/core/engines/engines.js';
import { forbiddenBy } from '../../src/core/engines/rules.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { runEstimate } from '../../src/commands/estimate-run.js';
import type { RawFlags } from '../../src/schema/flags.js';
import { stdoutOf } from '../helpers/published-configs.js';

interface Estimate {
  perGpu: { allocatedBytes: number; breakdown: { weights: number } };
}
const estimateJson = (model: string, flags: Record<string, unknown>): Estimate =>
  JSON.parse(stdoutOf(() => runEstimate(resolveModel(model), flags as RawFlags, true))) as Estimate;

const serve = (framework: string, weights: string, gpu = 'h100-sxm') => ({
  framework,
  method: 'inference',
  weights,
  gpu,
  batch: 8,
  seq: 4096,
});

describe('serving a pre-quantized bitsandbytes FP4 checkpoint', () => {
  for (const framework of ['vllm', 'sglang']) {
    it(`${framework}: estimated, with the NF4 checkpoint's memory`, () => {
      const arch = resolveModel('llama-3.1-8b');
      const flags = serve(framework, 'fp4');
      const options = withEngineDefaults(optionsFromFlags(flags), flags);
      expect(engineRefusal(arch, options, flags)).toBeNull();
      const fp4 = estimateJson('llama-3.1-8b', flags);
      const nf4 = estimateJson('llama-3.1-8b', serve(framework, 'nf4'));
      expect(fp4.perGpu.breakdown.weights).toBe(nf4.perGpu.breakdown.weights);
      expect(fp4.perGpu.allocatedBytes).toBe(nf4.perGpu.allocatedBytes);
    });
    it(`${framework}: the planner and launch still keep to NF4, what vramplan writes`, () => {
      expect(ENGINE_PROFILES[framework as 'vllm' | 'sglang'].baseWeights).not.toContain('fp4');
    });
  }
  it('vllm: the in-flight NF4 rule binds the writer, not the estimate', () => {
    const arch = resolveModel('llama-3.1-8b');
    const input = { arch, options: optionsFromFlags(serve('vllm', 'fp4')), dp: 1, accum: 1 };
    expect(forbiddenBy(ENGINE_PROFILES.vllm.rules, input)?.id).toBe('vllm-no-bnb-fp4');
    expect(forbiddenBy(ENGINE_PROFILES.vllm.rules, input, true)).toBeNull();
  });
  it('on an AMD GPU, vLLM runs FP4 and NF4 (ROCm lists bitsandbytes; the plugin asks bitsandbytes 0.49.2 there)', () => {
    for (const gpu of ['mi300x', 'mi355x']) {
      const fp4 = estimateJson('llama-3.1-8b', serve('vllm', 'fp4', gpu));
      const nf4 = estimateJson('llama-3.1-8b', serve('vllm', 'nf4', gpu));
      expect(fp4.perGpu.breakdown.weights, gpu).toBe(nf4.perGpu.breakdown.weights);
    }
  });
  it('on an AMD GPU, SGLang refuses FP4 as NF4, quoting its ROCm quantization list', () => {
    for (const weights of ['fp4', 'nf4']) {
      const run = () => estimateJson('llama-3.1-8b', serve('sglang', weights, 'mi300x'));
      expect(run, weights).toThrow(/no \w+ kernel for gfx942.*configs\/model_config\.py:2002-2016/);
    }
  });
});

describe('SGLang GGUF on AMD GPUs', () => {
  // Its GGUF matmuls are sgl_kernel's ggml ops, imported on CUDA and MUSA only (gguf.py): refused on ROCm.
  for (const gpu of ['mi300x', 'mi355x'])
    it(`is refused on ${gpu}, citing SGLang's quantization source`, () => {
      const run = () => estimateJson('llama-3.1-8b', serve('sglang', 'q4_k_m', gpu));
      expect(run).toThrow(
        /sglang has no q4_k_m kernel for gfx9\d+.*sglang\/srt\/layers\/quantization/,
      );
    });
  it('runs on NVIDIA GPUs, and vLLM (whose ROCm build takes gguf) keeps it on AMD GPUs', () => {
    expect(
      estimateJson('llama-3.1-8b', serve('sglang', 'q4_k_m')).perGpu.allocatedBytes,
    ).toBeGreaterThan(0);
    const vllm = estimateJson('llama-3.1-8b', serve('vllm', 'q4_k_m', 'mi300x'));
    expect(vllm.perGpu.allocatedBytes).toBeGreaterThan(0);
  });
});
