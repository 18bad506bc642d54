// SGLang 0.5.6's default attention backend by model and GPU (server_args.py), and whether its prefill reads a device
// value back before its first launch (FlashInfer's extend metadata: FrameworkProfile.prefillHostSync).
import { describe, expect, it } from 'vitest';
import {
  sglangAttentionBackend,
  sglangPrefillHostSync,
} from '../../src/core/engines/sglang/attention-backend.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';

describe("SGLang's default attention backend", () => {
  it('FA3 on Hopper for the architectures it lists, FlashInfer for the others and off Hopper', () => {
    expect(sglangAttentionBackend('qwen3_moe', false, 9.0)).toBe('fa3');
    expect(sglangAttentionBackend('llama', false, 9.0)).toBe('fa3');
    expect(sglangAttentionBackend('mistral', false, 9.0)).toBe('flashinfer');
    expect(sglangAttentionBackend('llama', false, 8.0)).toBe('flashinfer');
    expect(sglangAttentionBackend('qwen3_moe', false, 10.0)).toBe('flashinfer');
  });

  it("takes the model-specific choices and MLA's rule", () => {
    expect(sglangAttentionBackend('gpt_oss', false, 10.0)).toBe('trtllm_mha');
    expect(sglangAttentionBackend('gpt_oss', false, 9.0)).toBe('fa3');
    expect(sglangAttentionBackend('deepseek_v3', true, 10.0)).toBe('trtllm_mla');
    expect(sglangAttentionBackend('kimi_k2', true, 10.0)).toBe('trtllm_mla');
    expect(sglangAttentionBackend('deepseek_v3', true, 9.0)).toBe('fa3');
    expect(sglangAttentionBackend('deepseek_v2', true, 8.0)).toBe('triton');
    expect(sglangAttentionBackend('llama', false, 0)).toBe('aiter');
  });

  it("only FlashInfer's prefill reads back before launching, and the profile says so", () => {
    expect(sglangPrefillHostSync('llama', false, 8.0)).toBe(true);
    expect(sglangPrefillHostSync('qwen3_moe', false, 10.0)).toBe(true);
    expect(sglangPrefillHostSync('qwen3_moe', false, 9.0)).toBe(false);
    expect(sglangPrefillHostSync('gpt_oss', false, 10.0)).toBe(false);
    expect(FRAMEWORKS.sglang.prefillHostSync).toBe(sglangPrefillHostSync);
    expect(FRAMEWORKS.vllm.prefillHostSync).toBeUndefined();
  });
});
