/** Unsloth's behaviour rules (profile data: the planner and `launch` check them), each at a source line. */
import { isAdapter } from '../../launch/common.js';
import type { Rule, RuleInput } from '../rules.js';
import { fusedExperts } from '../hf/rules.js';
import { UNSLOTH_MEMORY } from './memory.js';
import { UNSLOTH_ARCH_RULE } from './architectures.js';
import { UNSLOTH_DDP_VERSIONS, UNSLOTH_FSDP2_VERSIONS, UNSLOTH_WHEEL } from './multi-gpu.js';

export const U =
  'https://github.com/unslothai/unsloth/blob/015bdef0d94a241bcd94eec7a405b1700632180d';
export const TRL = 'https://github.com/huggingface/trl/blob/v0.24.0';
// Read at 2026.8.19; assumed to hold through the pinned 2026.10.9 (its source was not readable).
export const UNSLOTH_VERSIONS = '>=2026.8.19,<=2026.10.9';

/** Below this max_seq_length get_peft_model swaps "unsloth" checkpointing for plain (_utils.py). */
export const OFFLOAD_MIN_SEQ = 512;

// Unsloth's Qwen3.5 fine-tuning guide, "MoE fine-tuning": "For MoE models like Qwen3.5-35B-A3B / 122B-A10B /
// 397B-A17B: Best to use bf16 setups (e.g. LoRA or full fine-tuning) (MoE QLoRA 4-bit is not recommended due to
// BitsandBytes limitations)."
const MOE_QLORA_ADVICE = 'https://unsloth.ai/docs/models/qwen3.5/fine-tune';

/**
 * The MoE models the advice reaches: fused 3-D expert stacks, which bitsandbytes' transformers integration leaves
 * unquantized and unsloth_zoo re-quantizes itself (memory.ts kbitExpertStacks); not the models whose 4-bit
 * checkpoints keep per-expert Linear4bit modules (gpt-oss: the profile's `except`).
 */
const fusedMoe4bit = (x: RuleInput): boolean =>
  x.options.weights === 'nf4' &&
  fusedExperts(x) &&
  !(UNSLOTH_MEMORY.kbitExpertStacks?.except ?? []).includes(x.arch.modelType);

/** Behaviour rules of Unsloth (and the TRL it drives) at the pinned versions. */
export const UNSLOTH_RULES: readonly Rule[] = [
  UNSLOTH_ARCH_RULE,
  {
    id: 'unsloth-moe-no-4bit',
    says: "Unsloth's guide advises bf16 LoRA or full fine-tuning for MoE models and against 4-bit MoE QLoRA (bitsandbytes' limits on fused expert weights): the planner and launch leave it out; estimate still models it",
    library: 'unsloth',
    versions: UNSLOTH_VERSIONS,
    source: MOE_QLORA_ADVICE,
    effect: 'forbid',
    scope: 'writer',
    applies: fusedMoe4bit,
  },
  {
    id: 'unsloth-fast-inference-no-fsdp2',
    says: "Unsloth raises on fast_inference=True (GRPO's shared-weights vLLM rollout) under native FSDP2: train GRPO with vLLM under DDP (--zero 0), or FSDP2 without fast_inference",
    library: 'unsloth',
    versions: UNSLOTH_FSDP2_VERSIONS,
    source: `${UNSLOTH_WHEEL}/models/loader_utils.py:204-211`,
    effect: 'forbid',
    applies: (x) => x.options.rollout === 'vllm-colocate' && x.options.zero >= 2 && x.dp > 1,
  },
  {
    id: 'unsloth-fast-inference-no-int8',
    says: 'Unsloth raises on fast_inference=True (the shared-weights vLLM rollout) with load_in_8bit ("vLLM would not run in 8-bit"): a GRPO with the vLLM rollout loads in 4-bit or 16-bit, or an int8 LoRA generates without vLLM',
    library: 'unsloth',
    versions: '>=2026.10.9,<=2026.10.9',
    // refuse_fast_inference_load_in_8bit, called by FastModel.from_pretrained (models/vision.py:4354-4360), to
    // which FastLanguageModel hands every load_in_8bit load (models/loader.py:1330).
    source: `${UNSLOTH_WHEEL}/models/loader_utils.py:3945-3964`,
    effect: 'forbid',
    applies: (x) => x.options.rollout === 'vllm-colocate' && x.options.weights === 'int8',
  },
  {
    id: 'unsloth-ddp-defaults',
    says: 'under DDP Unsloth sets ddp_find_unused_parameters False for a plain LoRA under checkpointing and gradient_as_bucket_view True for full fine-tunes (one gradient copy); the launcher leaves both to it',
    library: 'unsloth',
    versions: UNSLOTH_DDP_VERSIONS,
    source: `${UNSLOTH_WHEEL}/models/_ddp_defaults.py:224-318`,
    effect: 'change',
    applies: (x) => x.dp > 1 && x.options.zero === 0,
  },
  {
    id: 'unsloth-int8-replicated-under-fsdp2',
    says: "Unsloth's native FSDP2 keeps LLM.int8 weights replicated on every GPU (sharding would drop their CB / SCB state), which --zero 3 does not model: estimate int8 with --zero 2 (the fit layout, frozen weights replicated) or --zero 0",
    library: 'unsloth',
    versions: UNSLOTH_FSDP2_VERSIONS,
    source: `${UNSLOTH_WHEEL}/models/fsdp2_native.py:674-685`,
    effect: 'forbid',
    applies: (x) => x.options.weights === 'int8' && x.options.zero >= 3 && x.dp > 1,
  },
  {
    id: 'unsloth-4bit-is-nf4',
    says: 'Unsloth load_in_4bit always builds NF4 with double quantization (bnb_4bit_quant_type "nf4"); it has no FP4 or single-quantization switch',
    library: 'unsloth',
    versions: UNSLOTH_VERSIONS,
    source: `${U}/unsloth/models/llama.py#L2620-L2626`,
    effect: 'forbid',
    applies: (x) =>
      x.options.weights === 'fp4' || (x.options.weights === 'nf4' && !x.options.doubleQuant),
  },
  {
    id: 'unsloth-load-in-4bit-default',
    says: 'FastLanguageModel.from_pretrained defaults to load_in_4bit=True; the launcher writes load_in_4bit/load_in_8bit/full_finetuning explicitly',
    library: 'unsloth',
    versions: UNSLOTH_VERSIONS,
    source: `${U}/unsloth/models/loader.py#L414-L417`,
    effect: 'change',
    applies: (x) => x.options.weights !== 'nf4',
  },
  {
    id: 'unsloth-gc-default',
    says: 'from_pretrained and get_peft_model default use_gradient_checkpointing to "unsloth" (layer inputs offloaded to CPU); the launcher writes the plan\'s mode (False or True)',
    library: 'unsloth',
    versions: UNSLOTH_VERSIONS,
    source: `${U}/unsloth/models/loader.py#L423`,
    effect: 'change',
    applies: (x) => x.options.checkpointing !== 'offload',
  },
  {
    id: 'trl-sft-gc-default',
    says: 'TRL SFTConfig.gradient_checkpointing defaults to True; the launcher writes it from the plan',
    library: 'trl',
    versions: '==0.24.0',
    source: `${TRL}/trl/trainer/sft_config.py#L116-L117`,
    effect: 'change',
    applies: (x) => x.options.checkpointing === 'none',
  },
  {
    id: 'unsloth-offload-gc-short-seq',
    says: `get_peft_model turns use_gradient_checkpointing "unsloth" into plain checkpointing when max_seq_length is below ${OFFLOAD_MIN_SEQ}; the launcher passes max_seq_length ${OFFLOAD_MIN_SEQ} to from_pretrained so layer inputs still go to CPU`,
    library: 'unsloth',
    versions: UNSLOTH_VERSIONS,
    source: `${U}/unsloth/models/_utils.py#L360-L380`,
    effect: 'change',
    applies: (x) =>
      isAdapter(x.options) &&
      x.options.checkpointing === 'offload' &&
      x.options.seq < OFFLOAD_MIN_SEQ,
  },
  {
    id: 'unsloth-lora-dropout-zero',
    says: 'Unsloth applies its fast LoRA kernels only with lora_dropout 0 (other values warn of a slowdown); the launcher writes lora_dropout 0',
    library: 'unsloth',
    versions: UNSLOTH_VERSIONS,
    source: `${U}/unsloth/models/llama.py#L3242-L3246`,
    effect: 'change',
    applies: (x) => isAdapter(x.options),
  },
  {
    id: 'unsloth-all-linear-expanded',
    says: 'FastLanguageModel.get_peft_model reads target_modules as module names (no PEFT "all-linear" shorthand); the launcher expands all-linear to q/k/v/o/gate/up/down_proj',
    library: 'unsloth',
    versions: UNSLOTH_VERSIONS,
    source: `${U}/unsloth/models/llama.py#L3298-L3340`,
    effect: 'change',
    applies: (x) => isAdapter(x.options) && x.options.loraAllLinear,
  },
  {
    id: 'unsloth-auto-padding-free',
    says: 'Unsloth turns padding-free batching on when SFTConfig.padding_free is unset; the launcher writes padding_free false so each micro-batch is the planned batch x seq (set it true for speed: memory can only drop)',
    library: 'unsloth',
    versions: UNSLOTH_VERSIONS,
    source: `${U}/unsloth/trainer.py#L118-L121`,
    effect: 'change',
    // GRPOConfig, ORPOConfig and KTOConfig have no padding_free (TRL v0.24.0): not written for them.
    applies: (x) =>
      x.options.method !== 'inference' &&
      !['grpo', 'orpo', 'kto'].includes(x.options.objective ?? 'sft'),
  },
  {
    id: 'unsloth-import-first',
    says: 'Unsloth patches trl, transformers and peft when imported and warns if they were imported first; train_unsloth.py imports unsloth before them',
    library: 'unsloth',
    versions: UNSLOTH_VERSIONS,
    source: `${U}/unsloth/_gpu_init.py#L23-L24`,
    effect: 'change',
    applies: () => true,
  },
];
