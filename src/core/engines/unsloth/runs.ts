/**
 * What Unsloth runs beyond what vramplan writes for it (runs.ts): any --attention, RoPE-scaled contexts; where
 * its DDP and native FSDP2 come from (multi-gpu.ts; the profile runs them).
 */
import type { EngineRuns } from '../runs.js';
import {
  UNSLOTH_FSDP2_OFFLOAD_RUNS,
  UNSLOTH_PARALLEL_SOURCE,
  UNSLOTH_WHEEL,
  unslothParallelNote,
} from './multi-gpu.js';
import { UNSLOTH_PROFILE } from './profile.js';

const U =
  'https://github.com/unslothai/unsloth/blob/015bdef0d94a241bcd94eec7a405b1700632180d/unsloth';

const FLOAT8 = `${UNSLOTH_WHEEL}/models/float8_training.py`;

/**
 * Unsloth's float8_training hardware check (_check_hardware, unsloth 2026.10.9 models/float8_training.py:193-235):
 * below 8.9 it raises (kernels/float8.ts refuses that first); on NVIDIA 8.9 it raises for tensorwise scaling, by name
 * or in an explicit Float8LinearConfig ("gives NaN gradients", :206-216); by name (float8_training=True) it runs only
 * on 12.x (_MEASURED_FASTER, :28, :217-227), elsewhere (9.0, 10.x, ROCm) through an explicit
 * Float8LinearConfig.from_recipe_name("tensorwise"), the same recipe.
 */
function float8Gpu(compute: string, cc: string | null | undefined): string | null {
  if (compute !== 'fp8' || cc !== '8.9') return null;
  return `Unsloth's float8_training raises on compute capability 8.9 for tensorwise scaling, its recipe by name or in an explicit torchao Float8LinearConfig ("gives NaN gradients", ${FLOAT8}:206-216); only a rowwise Float8LinearConfig passes there, which Unsloth measured slower than bfloat16 and vramplan does not model on Unsloth: estimate --compute bf16, or the rowwise recipe on --framework torchtitan`;
}

export const UNSLOTH_RUNS: EngineRuns = {
  // use_liger_kernel reaches TRL and the Trainer through Unsloth's configs: Unsloth steps its own fused losses aside
  // for it (models/dpo.py:604, models/rl_replacements.py:7299-7300, trainer.py:877), and the Trainer's Liger patch
  // then runs over Unsloth's patched model, a combination vramplan does not model.
  noLiger: `Unsloth passes TRL's use_liger_kernel through and steps its own fused losses aside for it (${UNSLOTH_WHEEL}/models/dpo.py:604, models/rl_replacements.py:7299-7300, trainer.py:877), so the Trainer's Liger patch runs over Unsloth's patched model, a combination vramplan does not model`,
  float8Gpu,
  // _check_hardware's first gate: CUDA below 8.9 raises before the recipe is looked at (ROCm goes on to its probe).
  float8Check: {
    fp8: `${FLOAT8}:199-205 (_check_hardware: "float8_training needs compute capability 8.9+ (fp8 tensor cores)")`,
  },
  float8Runs: {
    fp8: `--compute fp8 on Unsloth is float8_training, torchao's tensorwise recipe: float8_training=True runs it only on compute capability 12.x, where Unsloth measured it faster than bfloat16; on 9.0, 10.x and ROCm it runs when float8_training is torchao.float8.Float8LinearConfig.from_recipe_name("tensorwise") (${FLOAT8}:28, :217-227); estimated as that recipe`,
  },
  // With flash-attn installed Unsloth calls flash_attn_func on the unexpanded K/V (vramplan's launcher installs
  // none, so it writes SDPA/xformers runs only).
  widen: {
    attention: [...UNSLOTH_PROFILE.attention, 'flash'],
    // UNSLOTH_FSDP2_CPU_OFFLOAD=1 (multi-gpu.ts): not written by the launcher.
    ...UNSLOTH_FSDP2_OFFLOAD_RUNS,
    // LLM.int8 weights under FSDP2 run (kept replicated): rule unsloth-int8-replicated-under-fsdp2 says so.
    shardedQuantized: [...UNSLOTH_PROFILE.shardedQuantized, 'int8'],
    // patch_trl_rl_trainers also patches TRL's experimental trainers, cpo (SimPO is CPOTrainer with
    // loss_type="simpo") and ppo among them (unsloth 2026.10.9 models/rl.py _TRL_EXPERIMENTAL_TRAINERS).
    objectives: [...UNSLOTH_PROFILE.objectives, 'simpo', 'ppo'],
    // FastModel.from_pretrained(full_finetuning=True, float8_training=True): torchao Float8Linear, the tensorwise
    // recipe (unsloth 2026.10.9 models/float8_training.py; lm_head and routers stay in 16-bit).
    float8: ['fp8'],
    // FastLanguageModel.from_pretrained(load_in_fp8=True): LoRA over FP8 (e4m3, 128x128 block) base weights, the
    // checkpoint vLLM shares for GRPO rollouts (unslothai/notebooks@8081c7e4 nb/Qwen3_8B_FP8_GRPO.ipynb, Unsloth 2025.11.3).
    baseWeights: [...UNSLOTH_PROFILE.baseWeights, 'fp8'],
  },
  sources: {
    methods: `${U}/models/loader.py`,
    objectives: `${UNSLOTH_WHEEL}/models/rl.py`,
    // FLOAT8_TRAINING_RECIPES = ("tensorwise",): no MX recipe.
    float8: `${FLOAT8}:22 (FLOAT8_TRAINING_RECIPES: tensorwise only, no MXFP8)`,
    parallel: UNSLOTH_PARALLEL_SOURCE,
    weights: `${U}/models/loader.py`,
    // Unsloth trains through TRL's SFTConfig, whose optim is TrainingArguments.optim: OptimizerNames' values in the
    // transformers its launch folder pins (UNSLOTH_PINS.transformers 5.5.0), with no Adam-mini among them.
    optimizers:
      'https://pypi.org/project/transformers/5.5.0/ (wheel) transformers/training_args.py:111-157 (OptimizerNames: no Adam-mini)',
    other: `${U}/models/llama.py`,
  },
  attention: {
    map: { eager: 'sdpa' },
    why: `Unsloth has no eager attention: it runs FlashAttention 2 where flash-attn is installed (--attention flash), else xformers or SDPA on K/V expanded for GQA (${U}/models/llama.py LlamaAttention_fast_forward)`,
  },
  // Which launch (DDP, FSDP2 layout) an estimate on several GPUs is (multi-gpu.ts).
  parallelNote: unslothParallelNote,
  // FastLlamaModel.from_pretrained: max_seq_length above max_position_embeddings sets linear RoPE scaling by
  // max_seq_length / max_position_embeddings.
  extendsContext: `Unsloth scales RoPE itself when max_seq_length exceeds the model's positions (${U}/models/llama.py FastLlamaModel.from_pretrained)`,
};
