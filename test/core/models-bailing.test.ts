// Ling / Ring (model_type bailing_moe): the 2.0 class (BailingMoeV2ForCausalLM) against its published counts, the v1
// class's defaults picked by `architectures`, and each engine's verdict from its own registry.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { archOf as arch, kvOf } from '../helpers/model-configs.js';
import { paramCounts } from '../../src/core/model/index.js';
import { VLLM_ARCHITECTURES } from '../../src/core/engines/vllm/architectures.js';
import { SGLANG_ARCHITECTURES } from '../../src/core/engines/sglang/architectures.js';
import { LLAMA_CPP_ARCHITECTURES } from '../../src/core/engines/llama-cpp/architectures.js';
import { HF_ARCHITECTURES } from '../../src/core/engines/hf/architectures.js';
import { UNSLOTH_ARCHITECTURES } from '../../src/core/engines/unsloth/architectures.js';

const mini = JSON.parse(
  readFileSync(new URL('../fixtures/models/families/ling-mini-2.0.json', import.meta.url), 'utf8'),
) as Record<string, unknown>;

describe('Ling-mini-2.0 (bailing_moe, BailingMoeV2ForCausalLM): 1 dense + 19 MoE layers, 256 experts top 8', () => {
  const a = arch(mini);

  it('counts 16.26B, 1.43B activated and 789M activated without the embeddings (card: 16B, 1.4B, 789M)', () => {
    const p = paramCounts(a);
    expect(a.architecture).toBe('BailingMoeV2ForCausalLM');
    expect(p.total).toBe(16_255_643_392);
    expect(Math.round(p.active / 1e7) / 100).toBe(1.43);
    expect(Math.round((p.active - p.embed - p.lmHead) / 1e6)).toBe(789);
  });

  it('counts an MTP layer (num_nextn_predict_layers) apart, as a sparse layer', () => {
    const p = paramCounts(arch({ ...mini, num_nextn_predict_layers: 1 }));
    // One MoE decoder layer (attention 10,485,760 + router + 256 experts + shared expert + norms, the largest layer),
    // its eh_proj (2 x hidden -> hidden) and three hidden-wide norms.
    const moeLayer = 819_466_752;
    expect(p.largestLayer).toBe(moeLayer);
    expect(p.total).toBe(16_255_643_392);
    expect(p.mtp).toBe(moeLayer + 2 * 2048 * 2048 + 3 * 2048);
  });

  it('caches K and V of 4 KV heads x 128 on each of the 20 layers (bf16)', () => {
    expect(kvOf(a, 2048) - kvOf(a, 1024)).toBe(20 * 2 * 4 * 128 * 2 * 1024);
  });

  it('keeps query_key_value as one module and one fp32 expert_bias per expert on the MoE layers', () => {
    const moe = a.groups.find((g) => g.linears.some((l) => l.role === 'router'));
    expect(moe?.count).toBe(19);
    expect(
      moe?.linears.filter((l) => l.role !== 'o' && l.module === 'query_key_value').length,
    ).toBe(3);
    // input + post-attention RMSNorms, query/key RMSNorm(head_dim), the expert_bias buffer.
    expect(moe?.otherParamsPerLayer).toBe(2 * 2048 + 2 * 128 + 256);
  });
});

describe('Ling-flash-2.0 widths (hidden 4096, 32 layers of 32 heads, ffn 9216, experts 1024)', () => {
  it("give the Hub's safetensors total exactly: 102,889,697,280 BF16 + 7,936 F32 (31 x 256 expert biases)", () => {
    const flash = {
      ...mini,
      num_hidden_layers: 32,
      hidden_size: 4096,
      intermediate_size: 9216,
      moe_intermediate_size: 1024,
      moe_shared_expert_intermediate_size: 1024,
      num_attention_heads: 32,
    };
    const p = paramCounts(arch(flash));
    expect(p.total).toBe(102_889_705_216);
    // Card: 6.1B activated, 4.8B without the embeddings.
    expect(Math.floor(p.active / 1e8) / 10).toBe(6.1);
    expect(Math.floor((p.active - p.embed - p.lmHead) / 1e8) / 10).toBe(4.8);
  });
});

describe('the v1 class (BailingMoeForCausalLM) under the same model_type', () => {
  const v1 = (extra: Record<string, unknown>) =>
    arch({
      ...mini,
      architectures: ['BailingMoeForCausalLM'],
      use_qk_norm: undefined,
      moe_router_enable_expert_bias: undefined,
      first_k_dense_replace: undefined,
      ...extra,
    });

  it("takes BailingMoeConfig's defaults: linears with bias, no q/k norms or expert bias, MoE from layer 0", () => {
    const a = v1({});
    expect(a.architecture).toBe('BailingMoeForCausalLM');
    expect(a.groups.every((g) => g.linears.some((l) => l.role === 'router'))).toBe(true);
    const g = a.groups[0]!;
    expect(g.linears.find((l) => l.role === 'q')?.bias).toBe(true);
    expect(g.linears.find((l) => l.role === 'o')?.bias).toBe(true);
    expect(g.otherParamsPerLayer).toBe(2 * 2048);
  });

  it('reads the fields a checkpoint sets over the class defaults', () => {
    const a = v1({ use_bias: false, first_k_dense_replace: 1 });
    expect(a.groups[0]!.linears.some((l) => l.bias)).toBe(false);
    expect(a.groups[0]!.linears.some((l) => l.role === 'router')).toBe(false);
  });
});

describe("each engine's verdict on bailing_moe, from its own registry", () => {
  it('vLLM (registry.py), SGLang 0.5.23 (bailing_moe.py) and llama.cpp (BAILINGMOE / BAILINGMOE2) run it', () => {
    for (const table of [VLLM_ARCHITECTURES, SGLANG_ARCHITECTURES, LLAMA_CPP_ARCHITECTURES])
      expect(table.runs).toContain('bailing_moe');
  });

  it('the HF engines and Unsloth refuse it: transformers maps no bailing_moe (trust_remote_code)', () => {
    expect(HF_ARCHITECTURES.refuses.bailing_moe).toMatch(/trust_remote_code/);
    expect(UNSLOTH_ARCHITECTURES.refuses.bailing_moe).toMatch(/trust_remote_code/);
  });
});
