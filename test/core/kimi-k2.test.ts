// Kimi K2's config.json names model_type kimi_k2 with DeepseekV3ForCausalLM: DeepSeek-V3's layout (MLA latent KV,
// routed and shared experts) under another name, read as such.
import { describe, expect, it } from 'vitest';
import { archOf, catalogConfig, kvOf } from '../helpers/model-configs.js';
import { paramCounts } from '../../src/core/model/index.js';

// Kimi-K2-Instruct's config differs from DeepSeek-V3's in these fields (moonshotai/Kimi-K2-Instruct config.json).
const KIMI = {
  ...catalogConfig('deepseek-v3'),
  model_type: 'kimi_k2',
  architectures: ['DeepseekV3ForCausalLM'],
  n_routed_experts: 384,
  num_attention_heads: 64,
  num_key_value_heads: 64,
  vocab_size: 163840,
  num_nextn_predict_layers: 0,
  n_group: 1,
  topk_group: 1,
};

describe('kimi_k2', () => {
  it('reads as DeepSeek-V3: the MLA latent per token, whatever the head count', () => {
    const k = archOf(KIMI);
    const d = archOf(catalogConfig('deepseek-v3'));
    expect(k.modelType).toBe('kimi_k2');
    // MLA caches kv_lora_rank + qk_rope_head_dim per layer, independent of the 64 vs 128 heads.
    expect(kvOf(k, 4096)).toBe(kvOf(d, 4096));
  });
  it('has more experts than DeepSeek-V3 (384 vs 256) and no MTP layer', () => {
    const k = archOf(KIMI);
    const d = archOf(catalogConfig('deepseek-v3'));
    const kp = paramCounts(k);
    const dp = paramCounts(d);
    expect(kp.total).toBeGreaterThan(dp.total * 1.4);
    // Kimi K2 is published as 1T total parameters, 32B activated (its model card).
    expect(kp.total / 1e12).toBeCloseTo(1.03, 1);
    expect(kp.checkpoint ?? kp.total).toBe(kp.total); // no MTP layer beside the model
  });
});
