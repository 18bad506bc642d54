// The Hugging Face repo ids practitioners name for current open models resolve offline to a catalog entry
// with the published architecture, not to "not in the catalog nor cached".
import { describe, expect, it } from 'vitest';
import { archFromHfConfig, paramCounts } from '../src/core/model/index.js';
import { resolveModel } from '../src/io/load-model.js';

describe('current models resolve offline', () => {
  it.each([
    ['openai/gpt-oss-120b', 'gpt-oss-120b'],
    ['Qwen/Qwen3-235B-A22B', 'qwen3-235b-a22b'],
    ['Qwen/Qwen3-235B-A22B-FP8', 'qwen3-235b-a22b-fp8'],
    ['Qwen/Qwen3-235B-A22B-Instruct-2507', 'qwen3-235b-a22b-thinking-2507'],
    ['Qwen/Qwen3-235B-A22B-Thinking-2507', 'qwen3-235b-a22b-thinking-2507'],
    ['meta-llama/Llama-4-Maverick-17B-128E-Instruct', 'llama-4-maverick-17b-128e-instruct'],
    ['meta-llama/Llama-4-Maverick-17B-128E', 'llama-4-maverick-17b-128e-instruct'],
    ['Qwen/Qwen3-Coder-30B-A3B-Instruct', 'qwen3-coder-30b-a3b-instruct'],
    ['Qwen/Qwen3-14B', 'qwen3-14b'],
    ['Qwen/Qwen3-1.7B', 'qwen3-1.7b'],
    ['microsoft/phi-4', 'phi-4'],
    ['google/gemma-3-1b-it', 'gemma-3-1b-it'],
    ['google/gemma-3-4b-it', 'gemma-3-4b-it'],
    ['google/gemma-3-12b-it', 'gemma-3-12b-it'],
    ['mistralai/Mistral-Small-3.1-24B-Instruct-2503', 'mistral-small-3.1-24b-instruct-2503'],
    ['Qwen/Qwen2.5-Coder-32B-Instruct', 'qwen2.5-32b'],
    ['deepseek-ai/DeepSeek-R1-Distill-Qwen-32B', 'qwen2.5-32b'],
    ['deepseek-ai/DeepSeek-R1-Distill-Llama-8B', 'llama-3.1-8b'],
  ])('%s is catalog entry %s', (spec, id) => {
    expect(resolveModel(spec).id).toBe(id);
  });

  it('a fine-tune under another owner is named as such, not as a re-upload', () => {
    const note = resolveModel('deepseek-ai/DeepSeek-R1-Distill-Llama-8B').assumptions?.[0];
    expect(note).toContain('the architecture of meta-llama/Llama-3.1-8B');
    expect(note).toContain('catalog entry llama-3.1-8b');
  });

  it('the 2507 and Coder releases keep their own 256K context, the first Qwen3 releases 40,960', () => {
    expect(resolveModel('Qwen/Qwen3-235B-A22B-Instruct-2507').maxPositions).toBe(262144);
    expect(resolveModel('Qwen/Qwen3-235B-A22B').maxPositions).toBe(40960);
    expect(resolveModel('Qwen/Qwen3-Coder-30B-A3B-Instruct').maxPositions).toBe(262144);
    expect(resolveModel('Qwen/Qwen3-30B-A3B').maxPositions).toBe(40960);
  });

  it('checkpoint formats come from quantization_config: MXFP4 experts, FP8 blocks, bf16 otherwise', () => {
    expect(resolveModel('openai/gpt-oss-120b').quant?.method).toBe('mxfp4');
    expect(resolveModel('Qwen/Qwen3-235B-A22B-FP8').quant?.method).toBe('fp8');
    expect(resolveModel('Qwen/Qwen3-235B-A22B').quant).toBeNull();
  });

  it('Maverick alternates dense and MoE layers (interleave_moe_layer_step 2); Scout is MoE throughout', () => {
    const experts = (spec: string) =>
      resolveModel(spec).groups.filter((g) => g.experts > 1).length > 0;
    const maverick = paramCounts(resolveModel('meta-llama/Llama-4-Maverick-17B-128E-Instruct'));
    const scout = paramCounts(resolveModel('meta-llama/Llama-4-Scout-17B-16E'));
    expect(experts('meta-llama/Llama-4-Maverick-17B-128E-Instruct')).toBe(true);
    // Same attention, embeddings and vision tower: Maverick's 24 dense layers keep its active count near Scout's.
    expect(Math.abs(maverick.active - scout.active) / scout.active).toBeLessThan(0.01);
    expect(maverick.total / scout.total).toBeGreaterThan(3.5);
  });
});

describe('gemma3 wrappers that name no head counts', () => {
  // google/gemma-3-4b-it's text_config names only hidden, MLP, layers, rope scaling and window: transformers'
  // Gemma3TextConfig defaults give 8 query heads and 4 KV heads of 256.
  const sparse = {
    architectures: ['Gemma3ForConditionalGeneration'],
    model_type: 'gemma3',
    text_config: {
      hidden_size: 2560,
      intermediate_size: 10240,
      model_type: 'gemma3_text',
      num_hidden_layers: 34,
      sliding_window: 1024,
    },
    vision_config: {
      hidden_size: 1152,
      image_size: 896,
      intermediate_size: 4304,
      model_type: 'siglip_vision_model',
      num_attention_heads: 16,
      num_hidden_layers: 27,
      patch_size: 14,
    },
  };

  it('read the defaults (8 query, 4 KV heads), as an explicit config does', () => {
    const explicit = {
      ...sparse,
      text_config: { ...sparse.text_config, num_attention_heads: 8, num_key_value_heads: 4 },
    };
    const a = archFromHfConfig(sparse, { id: 'a', hfId: null });
    const b = archFromHfConfig(explicit, { id: 'a', hfId: null });
    expect(paramCounts(a)).toEqual(paramCounts(b));
    const other = archFromHfConfig(
      { ...sparse, text_config: { ...sparse.text_config, num_key_value_heads: 8 } },
      { id: 'a', hfId: null },
    );
    expect(paramCounts(other).total).toBeGreaterThan(paramCounts(a).total);
  });
});
