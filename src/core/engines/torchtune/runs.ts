/**
 * What torchtune 0.6.1 runs beyond what vramplan writes for it (runs.ts): generation, any --attention, PPO
 * (recipes/ppo_full_finetune_single_device.py: policy, reference policy, value and reward models, its own
 * KV-cache generation) and GRPO (recipes/dev/grpo_full_finetune_distributed.py: FSDP2-sharded policy and
 * reference model, its own generation); rules.ts holds what those two recipes refuse.
 */
import type { EngineRuns } from '../runs.js';
import { TORCHTUNE_PROFILE } from './profile.js';

const T = 'https://github.com/pytorch/torchtune/blob/v0.6.1';

export const TORCHTUNE_RUNS: EngineRuns = {
  // No module of the torchtune 0.6.1 wheel (recipes included) imports liger_kernel: each recipe builds its model and
  // loss from the config's _component_ paths (config.instantiate(cfg_model), config.instantiate(cfg.loss)).
  noLiger: `torchtune 0.6.1 has no Liger integration: its recipes build the model and loss from the config's _component_ paths (config.instantiate(cfg_model), config.instantiate(cfg.loss): ${T}/recipes/full_finetune_distributed.py), torchtune's own modules and losses, none of them Liger's`,
  // `tune run generate`: recipes/generate.py builds the model, loads the checkpoint and decodes with a KV cache.
  widen: {
    methods: [...TORCHTUNE_PROFILE.methods, 'inference'],
    // The recipes instantiate any optimizer `_component_` (config.instantiate(cfg_optimizer, params)):
    // bitsandbytes.optim.Lion runs as the 8-bit classes do (one GPU; rule torchtune-bnb-optimizer-fsdp2).
    optimizers: [...TORCHTUNE_PROFILE.optimizers, 'none', 'lion'],
    // dtype: fp32 is the recipes' other dtype (training.get_dtype), for a frozen base as for generation.
    baseWeights: [...TORCHTUNE_PROFILE.baseWeights, 'fp32'],
    objectives: [...TORCHTUNE_PROFILE.objectives, 'ppo', 'grpo'],
    // full_finetune_distributed also runs tensor parallelism (tensor_parallel_dim over a (dp, tp) mesh with a
    // tensor_parallel_plan, e.g. torchtune.models.llama3.base_llama_tp_plan: q/k/v/w1/w3 colwise, output_proj/w2
    // rowwise, output colwise gathered: no sequence or loss parallel) and selective activation checkpointing
    // (ac_mode "selective", ac_option "op" or every Nth layer: training/activations.py); rules.ts keeps both to
    // that recipe. vramplan writes neither.
    tp: true,
    checkpointing: [...TORCHTUNE_PROFILE.checkpointing, 'selective'],
  },
  sources: {
    methods: `${T}/recipes/generate.py`,
    objectives: 'https://github.com/pytorch/torchtune/tree/v0.6.1/recipes',
    // training.get_dtype: bf16 or fp32; fp16 raises in the recipes.
    weights: `${T}/torchtune/training/precision.py`,
    parallel: `${T}/recipes/full_finetune_distributed.py`,
    checkpointing: `${T}/torchtune/training/activations.py`,
    optimizers: `${T}/recipes/full_finetune_single_device.py`,
    // FP8 training (enable_fp8_training, torchao convert_to_float8_training) reached full_finetune_distributed in
    // pytorch/torchtune#2546, after the v0.6.1 tag (no later release): no v0.6.1 recipe converts a linear.
    float8: `${T}/recipes/full_finetune_distributed.py: no recipe of v0.6.1 converts its linears to FP8 (enable_fp8_training came with pytorch/torchtune#2546, after the v0.6.1 tag)`,
    other: `https://github.com/pytorch/torchtune/tree/v0.6.1/recipes`,
  },
  attention: {
    map: { flash: 'sdpa', eager: 'sdpa' },
    why: `torchtune has no attention switch: MultiHeadAttention calls F.scaled_dot_product_attention, which picks its flash or memory-efficient kernel itself (${T}/torchtune/modules/attention_utils.py)`,
  },
};
