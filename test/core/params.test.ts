import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { archFromHfConfig } from '../../src/core/model/index.js';
import { linearParams, paramCounts } from '../../src/core/model/index.js';
import { QWEN15_MOE_CONFIG } from '../helpers/model-configs.js';

const countsOf = (config: unknown) =>
  paramCounts(archFromHfConfig(config, { id: 'test', hfId: null }));
const catalogConfig = (id: string): unknown =>
  (
    JSON.parse(
      readFileSync(new URL(`../../catalogs/models/${id}.json`, import.meta.url), 'utf8'),
    ) as { config: unknown }
  ).config;

describe('paramCounts on a hand-sized model', () => {
  // hidden 64, 4 heads (hd 16), 2 KV heads, ffn 128, 2 layers, vocab 100, untied.
  const tiny = {
    model_type: 'llama',
    hidden_size: 64,
    intermediate_size: 128,
    num_hidden_layers: 2,
    num_attention_heads: 4,
    num_key_value_heads: 2,
    vocab_size: 100,
  };

  it('splits the total into embed, lm_head, linear, bias and other', () => {
    // per layer: q 64*64 + k 64*32 + v 64*32 + o 64*64 = 12,288; MLP 3*64*128 = 24,576; norms 2*64 = 128
    // total = embed 6,400 + lm_head 6,400 + 2*(12,288 + 24,576) + 2*128 + final norm 64 = 86,848
    expect(countsOf(tiny)).toEqual({
      total: 86_848,
      active: 86_848,
      embed: 6_400,
      lmHead: 6_400,
      linear: 73_728,
      linearBias: 0,
      other: 320,
      largestLayer: 36_992,
      mtp: 0,
      checkpoint: 86_848,
    });
  });

  it('counts tied embeddings once', () => {
    expect(countsOf({ ...tiny, tie_word_embeddings: true }).total).toBe(86_848 - 6_400);
  });

  it('replaces routed experts by topK in the active count', () => {
    const moe = countsOf({
      ...tiny,
      model_type: 'mixtral',
      num_local_experts: 4,
      num_experts_per_tok: 1,
    });
    // experts: 4 copies of 24,576 per layer, 1 active; router 64*4 = 256 per layer.
    expect(moe.total).toBe(86_848 + 2 * (3 * 24_576 + 256));
    expect(moe.active).toBe(86_848 + 2 * 256);
  });

  it('linearParams counts bias and copies', () => {
    const l = {
      role: 'up' as const,
      inFeatures: 3,
      outFeatures: 5,
      bias: true,
      copies: 2,
      activeCopies: 1,
    };
    expect(linearParams(l)).toBe(2 * (3 * 5 + 5));
  });
});

// Expected totals: /work/shared/reference/models.json `params_total` (unique parameters, tied weights once,
// buffers excluded; computed from the HF config dims and cross-checked against published exact counts).
const REFERENCE_TOTALS: Record<string, number> = {
  'llama-2-7b': 6_738_415_616,
  'llama-2-13b': 13_015_864_320,
  'llama-2-70b': 68_976_648_192,
  'llama-3-8b': 8_030_261_248,
  'llama-3.1-8b': 8_030_261_248,
  'llama-3-70b': 70_553_706_496,
  'llama-3.1-70b': 70_553_706_496,
  'llama-3.1-405b': 405_853_388_800,
  'llama-3.2-1b': 1_235_814_400,
  'llama-3.2-3b': 3_212_749_824,
  'mistral-7b-v0.1': 7_241_732_096,
  'mistral-7b-v0.3': 7_248_023_552,
  'mixtral-8x7b-v0.1': 46_702_792_704,
  'mixtral-8x22b-instruct-v0.1': 140_630_071_296,
  'qwen2.5-0.5b': 494_032_768,
  'qwen2.5-1.5b': 1_543_714_304,
  'qwen2.5-3b': 3_085_938_688,
  'qwen2.5-7b': 7_615_616_512,
  'qwen2.5-14b': 14_770_033_664,
  'qwen2.5-32b': 32_763_876_352,
  'qwen2.5-72b': 72_706_203_648,
  'qwen3-8b': 8_190_735_360,
  'qwen3-30b-a3b': 30_532_122_624,
  'gemma-2-2b': 2_614_341_888,
  'gemma-2-9b': 9_241_705_984,
  'gemma-2-27b': 27_227_128_320,
  'phi-3-mini-4k-instruct': 3_821_079_552,
  octocoder: 15_517_456_384,
  'gpt-neox-20b': 20_554_567_680,
  'gpt-j-6b': 6_050_882_784,
  'falcon-7b': 6_921_720_704,
  'falcon-40b': 41_303_293_952,
  'bloom-7b1': 7_069_016_064,
  't0-3b': 2_849_757_184,
  'deepseek-v2-lite': 15_706_484_224,
  'deepseek-v3': 671_026_419_200,
  'opt-1.3b': 1_315_758_080,
  'opt-6.7b': 6_658_473_984,
  'opt-13b': 12_853_473_280,
  gpt2: 124_439_808,
};

// Same source, `params_active` (embeddings and lm_head included).
const REFERENCE_ACTIVE: Record<string, number> = {
  'mixtral-8x7b-v0.1': 12_879_925_248,
  'mixtral-8x22b-instruct-v0.1': 39_161_468_928,
  'qwen3-30b-a3b': 3_353_032_704,
  'deepseek-v2-lite': 2_661_150_208,
  // Reference 37,552,282,624 leaves out the V3 router's e_score_correction_bias (256 per MoE layer,
  // 58 layers = 14,848), which every token reads; we count it as active.
  'deepseek-v3': 37_552_282_624 + 58 * 256,
};

// Exact totals published for the Hugging Face checkpoints (safetensors parameter counts on the model pages).
const PUBLISHED_TOTALS: Record<string, number> = {
  'llama-3.2-11b-vision': 10_670_220_835,
  'codellama-34b': 33_743_970_304,
  'tinyllama-1.1b': 1_100_048_384,
  'gemma-2b': 2_506_172_416,
  'gemma-7b': 8_537_680_896,
  'phi-1.5': 1_418_270_720,
  'phi-2': 2_779_683_840,
  'gpt-oss-20b': 20_914_757_184,
};

describe('exact totals against published counts', () => {
  it.each(Object.entries(REFERENCE_TOTALS))(
    '%s has %i parameters (shared reference)',
    (id, expected) => {
      expect(countsOf(catalogConfig(id)).total).toBe(expected);
    },
  );

  it.each(Object.entries(REFERENCE_ACTIVE))(
    '%s has %i active parameters (shared reference)',
    (id, expected) => {
      expect(countsOf(catalogConfig(id)).active).toBe(expected);
    },
  );

  it.each(Object.entries(PUBLISHED_TOTALS))(
    '%s has %i parameters (HF checkpoint)',
    (id, expected) => {
      expect(countsOf(catalogConfig(id)).total).toBe(expected);
    },
  );
});

// Model types without a catalog entry, checked on inline copies of their HF config dims.
describe('exact totals for qwen2_moe, stablelm and gemma3_text', () => {
  it('Qwen1.5-MoE-A2.7B: 14,315,784,192 total, 2,689,173,504 active (Qwen: "14.3B, 2.7B activated")', () => {
    const counts = countsOf(QWEN15_MOE_CONFIG);
    expect([counts.total, counts.active]).toEqual([14_315_784_192, 2_689_173_504]);
  });

  it('StableLM-3B-4E1T: 2,795,443,200 (LayerNorm with bias, no qkv bias)', () => {
    // stabilityai/stablelm-3b-4e1t config.json dims.
    const counts = countsOf({
      model_type: 'stablelm',
      hidden_size: 2560,
      intermediate_size: 6912,
      num_hidden_layers: 32,
      num_attention_heads: 32,
      num_key_value_heads: 32,
      use_qkv_bias: false,
      tie_word_embeddings: false,
      vocab_size: 50304,
    });
    expect(counts.total).toBe(2_795_443_200);
  });

  it('Gemma-3-1B: 999,885,952 (4 norms and q/k norms per layer, tied)', () => {
    // google/gemma-3-1b-pt config.json dims.
    const counts = countsOf({
      model_type: 'gemma3_text',
      hidden_size: 1152,
      intermediate_size: 6912,
      num_hidden_layers: 26,
      num_attention_heads: 4,
      num_key_value_heads: 1,
      head_dim: 256,
      sliding_window: 512,
      vocab_size: 262144,
    });
    expect(counts.total).toBe(999_885_952);
  });
});
