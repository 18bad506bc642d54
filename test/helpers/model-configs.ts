/** Model-config helpers the model-family tests share: a catalog entry's config, its Arch, KV bytes at a length. */
import { readFileSync } from 'node:fs';
import { archFromHfConfig, type Arch } from '../../src/core/model/index.js';
import { estimateMemory } from '../../src/core/memory/index.js';
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';

/** The Hugging Face config.json of catalogs/models/<id>.json. */
export const catalogConfig = (id: string): Record<string, unknown> =>
  (
    JSON.parse(
      readFileSync(new URL(`../../catalogs/models/${id}.json`, import.meta.url), 'utf8'),
    ) as { config: Record<string, unknown> }
  ).config;

/** A config read as a local file would be (id 'x', no Hub id). */
export const archOf = (config: Record<string, unknown>): Arch =>
  archFromHfConfig(config, { id: 'x', hfId: null });

/** Inference options at `seq` tokens and `batch` sequences. */
export const inference = (seq: number, batch = 1): EstimateOptions => ({
  ...defaultOptions('inference'),
  seq,
  batch,
});

/** The KV cache of `batch` sequences of `seq` tokens, per GPU. */
export const kvOf = (a: Arch, seq: number, batch = 1): number =>
  estimateMemory(a, inference(seq, batch)).perGpu.breakdown.kvCache;

/** Qwen/Qwen1.5-MoE-A2.7B config.json: 24 layers, 60 experts top 4 of 1408, a shared expert of 5632 with a sigmoid gate. */
export const QWEN15_MOE_CONFIG: Record<string, unknown> = {
  model_type: 'qwen2_moe',
  hidden_size: 2048,
  intermediate_size: 5632,
  moe_intermediate_size: 1408,
  shared_expert_intermediate_size: 5632,
  num_experts: 60,
  num_experts_per_tok: 4,
  decoder_sparse_step: 1,
  num_hidden_layers: 24,
  num_attention_heads: 16,
  num_key_value_heads: 16,
  vocab_size: 151936,
  max_position_embeddings: 8192,
  rms_norm_eps: 1e-6,
  tie_word_embeddings: false,
};
