// A serving plan in the format the model's own repository ships in loads that repository as it is: DeepSeek-V3 ships
// block FP8 (config.json quantization_config), gpt-oss MXFP4; no quantize step is written for them.
import { describe, expect, it } from 'vitest';
import { checkpointFor } from '../../src/core/launch/checkpoints.js';
import { nativeWeights } from '../../src/core/model/native-weights.js';
import { resolveModel } from '../../src/io/load-model.js';
import { launchInputOf, serveShOf } from '../helpers/launch.js';

/** serve.sh of a model served in fp8 over TP 4 on four H100s. */
function fp8ServeSh(model: string, framework: 'vllm' | 'sglang'): string {
  const x = launchInputOf(model, 'h100-sxm', {
    method: 'inference',
    weights: 'fp8',
    framework,
    gpus: 4,
    tp: 4,
    batch: 8,
    seq: 4096,
  });
  return serveShOf(x.arch, x.options, x.gpu, x.estimate);
}

describe('the checkpoint a serving plan loads', () => {
  it('is the model repository itself when the plan serves the format it ships in', () => {
    const arch = resolveModel('deepseek-v3');
    expect(nativeWeights(arch)).toBe('fp8');
    expect(checkpointFor(arch.hfId, 'deepseek-v3', 'fp8', nativeWeights(arch))).toEqual({
      ref: 'deepseek-ai/DeepSeek-V3',
      published: true,
      steps: [],
    });
  });
  it('keeps the quantize steps for a format the repository does not ship', () => {
    const ck = checkpointFor('meta-llama/Llama-2-13b-hf', 'llama-2-13b', 'int4', null);
    expect(ck.published).toBe(false);
    expect(ck.steps.length).toBeGreaterThan(0);
  });
  it('serves fp8 of a 16-bit repository from the repository itself, quantized while loading', () => {
    // An llm-compressor copy carries quant_method compressed-tensors, which --quantization fp8 refuses.
    const ck = checkpointFor('meta-llama/Llama-2-13b-hf', 'llama-2-13b', 'fp8', null);
    expect(ck).toEqual({ ref: 'meta-llama/Llama-2-13b-hf', published: false, steps: [] });
    for (const framework of ['vllm', 'sglang'] as const) {
      // Qwen's own FP8 of it is block-128, not the per-channel fp8 the plan prices (catalogs/checkpoints.json).
      const sh = fp8ServeSh('qwen3-30b-a3b-instruct-2507', framework);
      expect(sh).toContain('MODEL=${MODEL:-Qwen/Qwen3-30B-A3B-Instruct-2507}');
      expect(sh).toContain('--quantization fp8');
      expect(sh).not.toMatch(/llm-compressor/);
    }
  });
  it("serves GLM-4.5-Air's fp8 from Z.ai's FP8 repository, not --quantization fp8 over the 16-bit one", () => {
    for (const framework of ['vllm', 'sglang'] as const) {
      const sh = fp8ServeSh('glm-4.5-air', framework);
      expect(sh).toContain('MODEL=${MODEL:-zai-org/GLM-4.5-Air-FP8}');
      expect(sh).not.toContain('--quantization fp8');
    }
  });
  it('serve.sh of an FP8 DeepSeek-V3 plan points MODEL at deepseek-ai/DeepSeek-V3 with nothing to make', () => {
    const x = launchInputOf('deepseek-v3', 'h200-sxm', {
      method: 'inference',
      weights: 'fp8',
      framework: 'vllm',
      gpus: 8,
      tp: 8,
      batch: 8,
      seq: 4096,
    });
    const sh = serveShOf(x.arch, x.options, x.gpu, x.estimate);
    expect(sh).toContain('MODEL=${MODEL:-deepseek-ai/DeepSeek-V3}');
    expect(sh).not.toContain('No published checkpoint');
  });
});
