// Configurations the engines run that `estimate` models, and refusals that stand quoting the engine's own source:
// torchtune's full DPO on one GPU (full_dpo_distributed "can be run on a single node (1 to 8 GPUs)"), torchtitan's
// HF modeling backend (full fine-tunes of the model_types its README tested), SGLang's ROCm quantization list,
// Petit's two gfx targets, LitGPT's commands and its single-device quantization.
import { describe, expect, it } from 'vitest';
import '../../src/core/engines/registry.js';
import { runEstimate } from '../../src/commands/estimate-run.js';
import { kernelRefusal } from '../../src/core/engines/kernels.js';
import { resolveModel } from '../../src/io/load-model.js';
import type { RawFlags } from '../../src/schema/flags.js';
import { finiteEstimate, stdoutOf } from '../helpers/published-configs.js';

interface Estimate {
  perGpu: { deviceBytes: number };
  time?: { tokensPerSecondPerGpu: number };
  warnings?: string[];
}
const estimate = (model: string, flags: Record<string, unknown>): Estimate =>
  JSON.parse(stdoutOf(() => runEstimate(resolveModel(model), flags as RawFlags, true))) as Estimate;

const train = (framework: string, flags: Record<string, unknown> = {}) => ({
  framework,
  method: 'full',
  gpu: 'h100-sxm',
  seq: 2048,
  ...flags,
});

describe('torchtune full DPO on one GPU', () => {
  it('is estimated as full_dpo_distributed in one process, the reference copy whole beside the policy', () => {
    const one = estimate('llama-3.2-1b', train('torchtune', { objective: 'dpo' }));
    expect(finiteEstimate(one as never)).toBe(true);
    const sft = estimate('llama-3.2-1b', train('torchtune', { objective: 'sft' }));
    expect(one.perGpu.deviceBytes).toBeGreaterThan(sft.perGpu.deviceBytes);
  });
});

describe("torchtitan's HF modeling backend", () => {
  it('estimates a full fine-tune of a model_type it has no model of its own for, saying how it runs', () => {
    for (const model of [
      'mistral-7b-v0.3',
      'qwen2.5-7b',
      'mixtral-8x7b-v0.1',
      'deepseek-v2-lite',
    ]) {
      const e = estimate(model, train('torchtitan', { gpus: 8, zero: 3 }));
      expect(finiteEstimate(e as never), model).toBe(true);
      expect(e.time!.tokensPerSecondPerGpu, model).toBeGreaterThan(0);
      expect(e.warnings?.join('\n'), model).toMatch(/experiments\/transformers_modeling_backend/);
    }
  });
  it('refuses LoRA there, citing the backend, and model_types it never tested', () => {
    const lora = () =>
      estimate('qwen2.5-7b', train('torchtitan', { method: 'lora', gpus: 8, zero: 3 }));
    expect(lora).toThrow(/Add LORA support.*transformers_modeling_backend\/README\.md/);
    const opt = () => estimate('opt-6.7b', train('torchtitan', { gpus: 8, zero: 3 }));
    expect(opt).toThrow(/registers no model for it/);
  });
});

describe('serving engines on AMD GPUs: what their own source refuses', () => {
  it("SGLang refuses GPTQ and int8 there with its ROCm list's ValueError, and runs AWQ", () => {
    for (const gfx of ['gfx942', 'gfx950']) {
      expect(kernelRefusal('sglang', 'int4', gfx, 'gptq'), gfx).toMatch(
        /no gptq int4 kernel.*model_config\.py:2002-2016, 2156-2160/,
      );
      expect(kernelRefusal('sglang', 'int4', gfx, 'awq'), gfx).toBeNull();
      expect(kernelRefusal('sglang', 'int8', gfx), gfx).toMatch(
        /no w8a8_int8.*compressed_tensors_w8a8_int8\.py:28-30/,
      );
      // A GGUF file sets quantization "gguf", which the ROCm list lacks.
      for (const w of ['q4_k_m', 'q8_0'] as const)
        expect(kernelRefusal('sglang', w, gfx), `${w} ${gfx}`).toMatch(
          /overrides\.py:1663-1666.*has no gguf.*model_config\.py:2002-2016, 2156-2160/,
        );
    }
    expect(kernelRefusal('sglang', 'q4_k_m', '9.0')).toBeNull();
  });
  it("NVFP4 on gfx950 is refused quoting Petit's two targets, in both engines", () => {
    expect(kernelRefusal('vllm', 'nvfp4', 'gfx950')).toMatch(
      /Petit supports the gfx90a and gfx942 GPUs.*quantization\/petit\.py/,
    );
    expect(kernelRefusal('sglang', 'nvfp4', 'gfx950')).toMatch(
      /Petit supports the gfx90a and gfx942 GPUs.*petit\.py:62-64/,
    );
    expect(kernelRefusal('vllm', 'nvfp4', 'gfx942')).toBeNull();
  });
  it('the list of what runs on AMD GPUs names no empty row', () => {
    expect(kernelRefusal('sglang', 'nf4', 'gfx942')).not.toMatch(/, ,|runs ,|, ;/);
  });
});

describe("LitGPT's refusals quote its own source", () => {
  it('a preference objective cites the CLI commands, a quantized base over GPUs finetune/lora.py', () => {
    const dpo = () =>
      estimate('llama-3.1-8b', train('litgpt', { method: 'lora', objective: 'dpo' }));
    expect(dpo).toThrow(/litgpt\/__main__\.py#L33-L56/);
    const sharded = () =>
      estimate('llama-3.1-8b', train('litgpt', { method: 'qlora', gpus: 8, zero: 3 }));
    expect(sharded).toThrow(
      /Quantization is currently not supported for multi-GPU training.*lora\.py#L152-L157/,
    );
  });
});
