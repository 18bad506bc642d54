/**
 * What the Hugging Face stack (transformers/TRL, PEFT, Accelerate, DeepSpeed, bitsandbytes, flash-attn)
 * rejects or silently changes at the versions the launchers pin (trainer.ts HF_PINS), as rules.ts data.
 * A `forbid` rule is never ranked nor launched (launch/index.ts launchBlocker, ruleBlocker below); a
 * `change` rule is what the emitters write differently, and they name it in their notes (ruleNotes).
 */
import type { Engine } from '../../../schema/engine.js';
import type { EstimateOptions, Optimizer } from '../../../schema/estimate.js';
import { engineOf } from '../engine.js';
import { is4bit, isAdapter } from '../../launch/common.js';
import type { LaunchPlan } from '../../launch/types.js';
import { changesFor, forbiddenBy, ruleReason, type Rule, type RuleInput } from '../rules.js';
import { HF_ARCH_RULE } from './architectures.js';
import {
  DEEPSPEED_ULYSSES_EAGER,
  DEEPSPEED_ULYSSES_HEADS,
  DEEPSPEED_ULYSSES_LAYOUT,
} from './ulysses-rules.js';
import { FRAMEWORKS } from '../../memory/frameworks.js';
import { expertTargetParameters } from '../../launch/modules.js';
import { peftRemaps } from '../../model/peft-moe.js';
import { shardedQuantLoadOf } from '../../memory/sharded-load.js';
import { HF_MEMORY } from './memory.js';
import { nativeWeights } from '../../model/native-weights.js';

/** Sharded by FSDP (hf-fsdp with a ZeRO stage: FSDP wraps parameters even at dp 1). */
const onFsdp = (o: EstimateOptions): boolean => engineOf(o) === 'hf-fsdp' && o.zero > 0;
/** Partitioned by DeepSpeed ZeRO-3. */
const onZero3 = (o: EstimateOptions): boolean => engineOf(o) === 'hf-deepspeed' && o.zero === 3;
/** Machines a plan spans is a launch detail (gpusPerNode); DeepSpeed's launcher is named for every dp > 1. */
const onDeepSpeed = (o: EstimateOptions): boolean => engineOf(o) === 'hf-deepspeed' && o.zero > 0;

// Trainer optim names built on bitsandbytes optimizers (transformers OptimizerNames: adamw_bnb_8bit,
// paged_adamw_32bit, paged_adamw_8bit, lion_32bit -> bnb.optim.*).
const BNB_OPTIMIZERS: readonly Optimizer[] = [
  'adamw-8bit',
  'paged-adamw',
  'paged-adamw-8bit',
  'lion',
];

/** FSDP2 + bitsandbytes 4-bit: the launchers write FSDP1 (accelerate.ts, axolotl.ts read this rule). */
export const FSDP2_BNB_4BIT: Rule = {
  id: 'fsdp2-bnb-4bit',
  says: "FSDP2's fully_shard corrupts packed 4-bit weights stored as bf16 (Linear4bit forward returns wrong values, no error): 4-bit plans are written with FSDP1 (fsdp_version 1, FULL_SHARD/SHARD_GRAD_OP, use_orig_params false), which flattens them correctly",
  library: 'bitsandbytes',
  versions: '>=0.43,<=0.50.1',
  // Open at 0.50.1; accelerate v1.14.0 (beb0672a) fsdp2_prepare_model only excludes uint8-stored Params4bit.
  source: 'https://github.com/bitsandbytes-foundation/bitsandbytes/issues/1945',
  effect: 'change',
  applies: (x) => onFsdp(x.options) && is4bit(x.options),
};

/**
 * LoRA on fused 3-D experts (PEFT target_parameters: lora.ParamWrapper) under FSDP1, which 4-bit plans are written
 * with (FSDP2_BNB_4BIT). ParamWrapper reads lora_A / lora_B `.weight` itself (get_delta_factors, get_delta_weight)
 * and never calls their forward, and registers a torch parametrization on the wrapped parameter each forward
 * (_activate_lora; peft 0.21.2 wheel tuners/lora/layer.py L2525-L2601). The Trainer installs PEFT's
 * fsdp_auto_wrap_policy for FSDP1 only (transformers 5.14.1 trainer.py L1570-L1601, distributed/fsdp.py
 * update_fsdp_plugin_peft), which makes every trainable leaf nn.Linear, lora_A / lora_B included, an FSDP unit
 * gathered only in its own forward (peft utils/other.py L1294-L1299). Run on CPU (gloo) with a two-layer
 * Qwen3-MoE as the launch folder builds it: at 2 ranks (FULL_SHARD) ParamWrapper reads the sharded flat views
 * (use_orig_params false: RuntimeError on an in-place-modified view; true: 32 vs 512 elements); at 1 rank
 * register_parametrization finds no parameter (false) or an attribute already there (true). FSDP2 runs it with
 * the same gradients as no FSDP (test/fixtures/launch-libs/fsdp-param-wrapper.json).
 */
export const FSDP1_PARAM_WRAPPER: Rule = {
  id: 'fsdp1-peft-param-wrapper',
  says: "PEFT's ParamWrapper (LoRA on fused MoE experts through target_parameters) fails at the first forward under FSDP1, which 4-bit weights are written with (rule fsdp2-bnb-4bit): it reads lora_A/lora_B weights outside their forward, which PEFT's FSDP wrap policy shards as units of their own, and parametrizes a flat-parameter view; adapt the experts with 16-bit LoRA (FSDP2), under the plain Trainer, or leave them out of the LoRA targets",
  library: 'peft',
  // ParamWrapper since 0.17; the same reads in the 0.21.2 wheel (PyPI's newest, trainer.ts HF_PINS).
  versions: '>=0.17,<=0.21.2',
  source:
    'https://github.com/huggingface/peft/blob/v0.21.2/src/peft/tuners/lora/layer.py#L2525-L2601',
  effect: 'forbid',
  applies: (x) =>
    FSDP2_BNB_4BIT.applies(x) &&
    isAdapter(x.options) &&
    expertTargetParameters(x.arch, x.options).params.length > 0,
};

/**
 * FSDP1 at world size 1: `_init_core_state` turns FULL_SHARD into NO_SHARD (pytorch/pytorch@a1cb3cc0 = v2.8.0
 * torch/distributed/fsdp/_init_utils.py:428-435, the same at 2.3.1 and 2.6.0), and `_post_forward_reshard` frees
 * the gathered parameter only for FULL_SHARD / HYBRID_SHARD (_runtime_utils.py:482-496, _flat_param.py:112-115).
 * With CPU offload NO_SHARD copies each unit's flat parameter to the GPU before forward (pre_unshard,
 * _flat_param.py:1299-1301) and only repoints `.data` at the CPU shard after it: the module's views and the
 * autograd-saved weights keep every GPU copy alive until backward, so the offload frees no GPU memory.
 */
export const FSDP1_ONE_GPU_OFFLOAD: Rule = {
  id: 'fsdp1-one-gpu-offload',
  says: 'FSDP1 (written for 4-bit weights) runs NO_SHARD on one GPU and keeps every parameter it copied to the GPU until backward: parameter offload saves no GPU memory there; use the plain Trainer (DeepSpeed ZeRO-3 offload of 4-bit weights is refused too: rule deepspeed-zero3-4bit-offload)',
  library: 'torch',
  versions: '>=2.3.1',
  source:
    'https://github.com/pytorch/pytorch/blob/v2.8.0/torch/distributed/fsdp/_runtime_utils.py#L482-L496',
  effect: 'forbid',
  applies: (x) =>
    FSDP2_BNB_4BIT.applies(x) && x.dp === 1 && x.options.offload === 'optimizer+params',
};

export const BNB_OPTIMIZER_FSDP: Rule = {
  id: 'bnb-optimizer-fsdp',
  says: 'bitsandbytes optimizers (8-bit, paged, Lion) allocate state with zeros_like(p) and pass DTensor / flat FSDP parameters to their CUDA kernels (illegal memory access); use adamw or DeepSpeed ZeRO',
  library: 'bitsandbytes',
  versions: '>=0.45,<=0.50.2',
  // bitsandbytes 0.50.1 (37d2a938) bitsandbytes/optim has no DTensor / to_local handling; nor has the 0.50.2 wheel.
  source: 'https://github.com/bitsandbytes-foundation/bitsandbytes/issues/1633',
  effect: 'forbid',
  applies: (x) => onFsdp(x.options) && BNB_OPTIMIZERS.includes(x.options.optimizer),
};

export const INT8_SHARDED: Rule = {
  id: 'bnb-int8-sharded',
  says: 'bitsandbytes LLM.int8 weights (Int8Params, int8 storage with a separate SCB scale) cannot be flattened by FSDP nor partitioned by ZeRO-3; only 4-bit has a float quant_storage (use --weights nf4)',
  library: 'bitsandbytes',
  versions: '>=0.43,<=0.50.2',
  // quant_storage exists for Params4bit only (bitsandbytes-foundation/bitsandbytes#970; Int8Params still lacks it in the 0.50.2 wheel); PEFT v0.20.0 docs/source/accelerate/fsdp.md and deepspeed.md cover 4-bit only.
  source: 'https://github.com/bitsandbytes-foundation/bitsandbytes/pull/970',
  effect: 'forbid',
  applies: (x) => x.options.weights === 'int8' && (onFsdp(x.options) || onZero3(x.options)),
};

export const DEEPSPEED_NO_LOCAL_RANK: Rule = {
  id: 'deepspeed-no-local-rank',
  says: 'the deepspeed launcher inserts --local_rank=N before the script arguments, which train.py would read as its args file: the deepspeed --hostfile command is written with --no_local_rank',
  library: 'deepspeed',
  // The 0.19.8 wheel's deepspeed/launcher/launch.py still adds --local_rank unless --no_local_rank.
  versions: '>=0.3,<=0.19.8',
  source:
    'https://github.com/deepspeedai/DeepSpeed/blob/cf44300453eb0af79ed84ed8f1cb49d57478bd76/deepspeed/launcher/launch.py#L259-L262',
  effect: 'change',
  applies: (x) => onDeepSpeed(x.options),
};

export const FSDP_SHARDED_SAVE: Rule = {
  id: 'fsdp-sharded-save',
  says: 'Trainer.save_model writes weights under FSDP only with FULL_STATE_DICT (SHARDED_STATE_DICT leaves no loadable final model): fsdp_state_dict_type is FULL_STATE_DICT',
  library: 'transformers',
  versions: '>=4.36,<=5.14.1',
  // axolotl v0.18.0 train.py says the same of trainer.save_model ("only handles FULL_STATE_DICT").
  source:
    'https://github.com/axolotl-ai-cloud/axolotl/blob/2f5cb9da62a0fe763a1ddeb7798fc9acb2f4a417/src/axolotl/train.py#L326',
  effect: 'change',
  applies: (x) => onFsdp(x.options) && !offloadedFullFsdp(x.options),
};

/** Full fine-tunes whose FSDP parameters (and so optimizer states) live in host RAM. */
const offloadedFullFsdp = (o: EstimateOptions): boolean =>
  onFsdp(o) && o.method === 'full' && o.offload === 'optimizer+params';

export const FSDP_OFFLOAD_SHARDED_SAVE: Rule = {
  id: 'fsdp-offload-sharded-save',
  says: 'a FULL_STATE_DICT checkpoint gathers the whole model and optimizer state on rank 0 in host RAM, which CPU offload already fills with the sharded fp32 state: fsdp_state_dict_type is SHARDED_STATE_DICT, and launch.sh merges the last checkpoint with accelerate merge-weights afterwards (one process, the model alone)',
  library: 'accelerate',
  // The same in the 1.15.0 wheel (save_fsdp_optimizer, FULL_STATE_DICT: process 0 saves; use_dcp=True by default).
  versions: '>=0.30,<=1.15.0',
  // save_fsdp_optimizer: FULL_STATE_DICT writes the gathered optimizer state from process 0 (fsdp_utils.py L260-L263);
  // merge_fsdp_weights consolidates pytorch_model_fsdp_0 (fsdp_utils.py L366, commands/merge.py).
  source:
    'https://github.com/huggingface/accelerate/blob/09228237b95789ea2ad87e669e7b885855b97f97/src/accelerate/utils/fsdp_utils.py#L260-L263',
  effect: 'change',
  applies: (x) => offloadedFullFsdp(x.options),
};

export const FLASH_ATTN_WHEEL: Rule = {
  id: 'flash-attn-wheel',
  says: 'flash-attn 2.8.3 publishes wheels for torch 2.4-2.8 only (pip would compile it for hours against the pinned torch): flash attention comes from the kernels hub (attn_implementation kernels-community/flash-attn2, package kernels)',
  library: 'flash-attn',
  versions: '<=2.8.3.post1',
  source:
    'https://github.com/Dao-AILab/flash-attention/blob/a8aa52b1ab3e9ca574c8a33b3f35afc017ffa2e2/.github/workflows/publish.yml#L47',
  effect: 'change',
  applies: (x) => x.options.attention === 'flash',
};

export const PEFT_ZERO3_REENTRANT: Rule = {
  id: 'peft-zero3-reentrant',
  says: 'TRL forces use_reentrant=True for PEFT under ZeRO-3 with gradient checkpointing (and warns when told False): gradient_checkpointing_kwargs is written with use_reentrant true',
  library: 'trl',
  versions: '>=0.20,<=1.9.0',
  source:
    'https://github.com/huggingface/trl/blob/35def3ee000a87f6839e66f4b7749b06274ed1b3/trl/trainer/sft_trainer.py#L1102-L1116',
  effect: 'change',
  applies: (x) => onZero3(x.options) && isAdapter(x.options) && x.options.checkpointing !== 'none',
};

export const ZERO3_QUANT_STORAGE: Rule = {
  id: 'zero3-fsdp-quant-storage',
  says: 'FSDP and ZeRO-3 shard 4-bit weights only when bitsandbytes stores them in a float dtype: bnb_4bit_quant_storage is written as the compute dtype',
  library: 'peft',
  versions: '>=0.10,<=0.20.0',
  source:
    'https://github.com/huggingface/peft/blob/a5526d27a9d47d1e8264d5e1b1f96c0fdc79464e/docs/source/accelerate/deepspeed.md',
  effect: 'change',
  applies: (x) => is4bit(x.options) && (onFsdp(x.options) || onZero3(x.options)),
};

/**
 * DeepSpeed ZeRO-3 with CPU offload on bitsandbytes 4-bit weights: PEFT's DeepSpeed guide lists it among its
 * caveats as using more GPU memory than the same run without offload, and its own QLoRA ZeRO-3 config
 * (examples/sft/configs/deepspeed_config_z3_qlora.yaml) writes offload_optimizer_device and
 * offload_param_device none. The memory model's offload saving is the opposite of what the engine reports, so
 * such a plan is neither ranked nor launched; `estimate` still models it (DeepSpeed runs it).
 */
export const ZERO3_4BIT_OFFLOAD: Rule = {
  id: 'deepspeed-zero3-4bit-offload',
  says: "PEFT's DeepSpeed guide: ZeRO-3 with QLoRA and CPU offloading uses more GPU memory than without offloading, and its QLoRA ZeRO-3 config offloads nothing: plan 4-bit ZeRO-3 without offload, or bf16 LoRA with ZeRO-3 offload (the guide's one-GPU recipe)",
  library: 'peft',
  versions: '>=0.10,<=0.21.2',
  // docs/source/accelerate/deepspeed.md "Caveats" item 3 (the same text in the v0.20.0 guide the quant-storage rule cites).
  source:
    'https://github.com/huggingface/peft/blob/09802c1b43fff9b087be42e149d70e5350ff407a/docs/source/accelerate/deepspeed.md',
  effect: 'forbid',
  // DeepSpeed runs it: `estimate` models it (with the memory model's offload saving, which the guide contradicts);
  // the planner does not rank it and `launch` does not write it.
  scope: 'writer',
  applies: (x) => onZero3(x.options) && is4bit(x.options) && x.options.offload !== 'none',
};

/**
 * NF4 QLoRA without double quantization on axolotl's layer-by-layer loader (distribution.ts axolotlShardedLoad,
 * the load the memory model counts for it: memory/sharded-load.ts): load_sharded_model_quant builds every
 * Linear4bit with quant_type "nf4" and compress_statistics=True whatever bnb_4bit_use_double_quant says (axolotl
 * 0.19.0 src/axolotl/utils/model_shard_quant.py, hf/memory.ts AXOLOTL_SHARDED_QUANT_LOAD), so the plan runs as its
 * double-quantized twin: only that one is ranked and launched; `estimate` still models the flag as given.
 */
export const AXOLOTL_SHARDED_LOAD_DQ: Rule = {
  id: 'axolotl-sharded-load-double-quant',
  says: "axolotl's qlora_sharded_model_loading quantizes NF4 with double-quantized constants whatever bnb_4bit_use_double_quant says: plan it with --double-quant",
  library: 'axolotl',
  versions: '==0.19.0',
  source:
    'https://github.com/axolotl-ai-cloud/axolotl/blob/v0.19.0/src/axolotl/utils/model_shard_quant.py',
  effect: 'forbid',
  scope: 'writer',
  applies: (x) =>
    onFsdp(x.options) &&
    x.options.method === 'qlora' &&
    x.options.weights === 'nf4' &&
    !x.options.doubleQuant &&
    shardedQuantLoadOf(HF_MEMORY, x.options, x.arch, x.dp) !== undefined,
};

/**
 * TRL GRPO with a vLLM rollout on bitsandbytes 4-bit weights: the weight sync merges the adapters
 * (merge_adapter re-quantizes the base) and pushes the packed uint8 Params4bit to vLLM, whose loader expects the
 * bf16 shape (AssertionError in weight_loader); reproduced on TRL main with transformers 5.11 (huggingface/trl#4973).
 */
export const TRL_GRPO_VLLM_4BIT: Rule = {
  id: 'trl-grpo-vllm-4bit',
  says: "TRL's GRPO pushes packed 4-bit (QLoRA) weights to vLLM at each weight sync and vLLM's loader rejects their shape: a QLoRA GRPO runs its rollout with transformers generate (--rollout hf), or trains LoRA on 16-bit weights",
  library: 'trl',
  versions: '>=0.14,<=1.9.0',
  // v1.9.0 trl/generation/vllm_generation.py L345 (colocated vLLM loads in-flight bitsandbytes), L464-L483 (merge, push).
  source: 'https://github.com/huggingface/trl/issues/4973',
  effect: 'forbid',
  applies: (x) =>
    x.options.objective === 'grpo' &&
    (x.options.rollout === 'vllm-colocate' || x.options.rollout === 'vllm-server') &&
    is4bit(x.options),
};

/** A MoE whose routed experts are fused 3-D parameters (linears held once per expert: Arch `copies` > 1). */
export const fusedExperts = (x: RuleInput): boolean =>
  x.arch.groups.some((g) => g.experts > 1 && g.linears.some((l) => l.copies > 1));

/**
 * bitsandbytes weights on a transformers 5 MoE: the integration swaps nn.Linear / Conv1D only, so the fused expert
 * parameters keep the load dtype; TRL 1.9.0's SFTTrainer calls get_peft_model and casts only the trainable
 * parameters to bf16 (sft_trainer.py L1097-L1130), no prepare_model_for_kbit_training (the engine profile's
 * unquantizedExperts with kbitUpcastsToFp32 false, which memory and time read). Seen on CPU: Params4bit for the
 * attention linears, bf16 nn.Parameter for experts.gate_up_proj / down_proj
 * (test/fixtures/launch-libs/fsdp-param-wrapper.json). Nothing to write differently; the launch notes say so.
 */
export const BNB_FUSED_EXPERTS: Rule = {
  id: 'bnb-fused-experts-unquantized',
  says: "transformers' bitsandbytes integration quantizes nn.Linear modules only: this MoE's fused routed experts stay unquantized in the load dtype (bf16; TRL's trainers run no k-bit preparation that would upcast them), and the memory and time estimates count them so (nothing is written differently)",
  library: 'transformers',
  // integrations/bitsandbytes.py replace_with_bnb_linear at 5.14.1 (nn.Linear / Conv1D); fused experts since 5.0.
  versions: '>=5.0,<=5.14.1',
  source: 'https://github.com/bitsandbytes-foundation/bitsandbytes/issues/1849',
  effect: 'change',
  applies: (x) =>
    isAdapter(x.options) &&
    FRAMEWORKS[x.options.framework].unquantizedExperts?.includes(x.options.weights) === true &&
    fusedExperts(x),
};

/** bitsandbytes weight types: each passes a BitsAndBytesConfig to from_pretrained (trainer.ts bnbConfig). */
const BNB_WEIGHTS: ReadonlySet<string> = new Set(['nf4', 'fp4', 'int8']);

/**
 * A BitsAndBytesConfig against a checkpoint that ships another quantization (gpt-oss's MXFP4, an FP8, AWQ or GPTQ
 * checkpoint): transformers 5.14.1 get_hf_quantizer merges the two and merge_quantization_configs raises a
 * ValueError when their classes differ (quantizers/auto.py; run on CPU with a two-layer GptOssConfig carrying
 * openai/gpt-oss-20b's `quant_method: mxfp4`: "The model is quantized with Mxfp4Config but you are passing a
 * BitsAndBytesConfig config"). The launch files load the catalog checkpoint, so the planner and `launch` leave
 * these plans out; `estimate` models them (a 16-bit copy quantized at load runs them).
 */
export const BNB_ON_QUANTIZED_CHECKPOINT: Rule = {
  id: 'transformers-bnb-on-quantized-checkpoint',
  says: "transformers raises 'The model is quantized with Mxfp4Config but you are passing a BitsAndBytesConfig config' when bitsandbytes weights are asked of a checkpoint that ships another quantization (gpt-oss's MXFP4, FP8, AWQ, GPTQ): train LoRA on its dequantized 16-bit weights, or QLoRA with Unsloth (its own bnb-4bit copy)",
  library: 'transformers',
  // Read and run at the pinned 5.14.1 only (trainer.ts HF_PINS).
  versions: '>=5.14.1,<=5.14.1',
  source:
    'https://github.com/huggingface/transformers/blob/v5.14.1/src/transformers/quantizers/auto.py',
  effect: 'forbid',
  scope: 'writer',
  applies: (x) => {
    const native = nativeWeights(x.arch);
    return native !== null && native !== 'nf4' && BNB_WEIGHTS.has(x.options.weights);
  },
};

/**
 * PEFT's remap of a v4-style LoRA config on a transformers 5 MoE (model/peft-moe.ts PEFT_V5_REMAPPED) fuses gate_proj
 * and up_proj (Mixtral: w1 and w3) into the experts' gate_up_proj and raises a ValueError when only one of the pair is
 * targeted (peft 0.21.2 utils/transformers_weight_conversion.py L461-L469, `_convert_peft_config_moe`; run with a
 * two-layer Qwen3-MoE and `target_modules: [q_proj, v_proj, gate_proj]`).
 */
export const PEFT_MOE_GATE_UP_PAIR: Rule = {
  id: 'peft-moe-gate-up-pair',
  says: "PEFT fuses gate and up into this MoE's experts.gate_up_proj and raises 'Cannot convert PEFT target(s) ... without also targeting ...' when only one of the two is a LoRA target: target both or neither",
  library: 'peft',
  // The remap since 0.18 (transformers 5 support); the same check in the 0.21.2 wheel (trainer.ts HF_PINS) and in
  // axolotl 0.19.0's peft 0.20.0 (transformers_weight_conversion.py byte-identical).
  versions: '>=0.18,<=0.21.2',
  source:
    'https://github.com/huggingface/peft/blob/v0.21.2/src/peft/utils/transformers_weight_conversion.py#L461-L469',
  effect: 'forbid',
  applies: (x) =>
    isAdapter(x.options) &&
    peftRemaps(FRAMEWORKS[x.options.framework], x.arch.modelType) &&
    x.options.loraTargets.includes('gate') !== x.options.loraTargets.includes('up'),
};

/**
 * Model types whose transformers class sets `_supports_sdpa = False` (transformers 5.14.1: GptOssPreTrainedModel,
 * its attention sinks; the catalog's other families support SDPA). An explicit attn_implementation "sdpa", what
 * hf-args.json and axolotl.yaml write, raises instead of falling back to eager (PreTrainedModel
 * get_correct_attn_implementation re-raises _sdpa_can_dispatch's ValueError when "sdpa" was asked for).
 */
const NO_SDPA_MODEL_TYPES: ReadonlySet<string> = new Set(['gpt_oss']);

export const HF_NO_SDPA: Rule = {
  id: 'transformers-no-sdpa',
  says: 'transformers has no SDPA attention for this architecture (_supports_sdpa = False) and raises "does not support an attention implementation through torch.nn.functional.scaled_dot_product_attention" when attn_implementation sdpa is asked for: plan flash (its kernels-hub kernel) or eager attention',
  library: 'transformers',
  versions: '>=4.55,<=5.14.1',
  source:
    'https://github.com/huggingface/transformers/blob/v5.14.1/src/transformers/models/gpt_oss/modeling_gpt_oss.py',
  effect: 'forbid',
  applies: (x) => x.options.attention === 'sdpa' && NO_SDPA_MODEL_TYPES.has(x.arch.modelType),
  // With no attn_implementation asked for, get_correct_attn_implementation tries sdpa and falls back to eager
  // (it re-raises only when "sdpa" was requested; transformers v5.14.1 src/transformers/modeling_utils.py).
  unasked: {
    flag: 'attention',
    apply: (o) => {
      o.attention = 'eager';
    },
    says: 'transformers has no SDPA attention for this architecture (_supports_sdpa = False); with no attn_implementation asked for it falls back to eager attention (PreTrainedModel.get_correct_attn_implementation, transformers v5.14.1 src/transformers/modeling_utils.py): estimated with --attention eager (give --attention flash for its kernels-hub kernel)',
  },
};

/** hf-trainer (DDP / one process): the attention-kernel, fused-expert and GRPO rules apply. */
export const HF_TRAINER_RULES: readonly Rule[] = [
  HF_ARCH_RULE,
  HF_NO_SDPA,
  BNB_ON_QUANTIZED_CHECKPOINT,
  BNB_FUSED_EXPERTS,
  PEFT_MOE_GATE_UP_PAIR,
  FLASH_ATTN_WHEEL,
  TRL_GRPO_VLLM_4BIT,
];
/**
 * The Trainer's tensor parallelism (ParallelismConfig tp_size over FSDP2) loads the model with its tp_plan:
 * transformers 5.14.1's base_model_tp_plan entries are colwise/rowwise linears (no model's plan uses the
 * sequence_parallel style, integrations/tensor_parallel.py ParallelInterface), DistributedConfig's
 * enable_sequence_parallel is "Reserved for sequence parallelism. Not wired up yet." (distributed/configuration_utils.py
 * L37-38), and lm_head is colwise_gather_output (e.g. models/llama/modeling_llama.py L431): norms, activations between
 * blocks and the loss run whole on every TP rank.
 */
const HF_TP_NO_SEQUENCE_PARALLEL: Rule = {
  id: 'hf-tp-no-sequence-parallel',
  says: "the Trainer's tensor-parallel plans (transformers' base_model_tp_plan) split the linears only: no model's plan runs the sequence_parallel style and DistributedConfig's enable_sequence_parallel is \"Reserved for sequence parallelism. Not wired up yet.\", and lm_head gathers its logits (colwise_gather_output), so norms, activations between blocks and the loss stay whole on every TP rank: estimate --tp without --sequence-parallel and --loss-parallel",
  library: 'transformers',
  versions: '==5.14.1',
  source:
    'https://github.com/huggingface/transformers/blob/v5.14.1/src/transformers/distributed/configuration_utils.py#L37-L38',
  effect: 'forbid',
  applies: (x) => x.options.tp > 1 && (x.options.sequenceParallel || x.options.lossParallel),
};

export const HF_FSDP_RULES: readonly Rule[] = [
  HF_ARCH_RULE,
  HF_TP_NO_SEQUENCE_PARALLEL,
  HF_NO_SDPA,
  BNB_ON_QUANTIZED_CHECKPOINT,
  BNB_FUSED_EXPERTS,
  PEFT_MOE_GATE_UP_PAIR,
  INT8_SHARDED,
  BNB_OPTIMIZER_FSDP,
  FSDP2_BNB_4BIT,
  FSDP1_PARAM_WRAPPER,
  FSDP1_ONE_GPU_OFFLOAD,
  FSDP_SHARDED_SAVE,
  FSDP_OFFLOAD_SHARDED_SAVE,
  ZERO3_QUANT_STORAGE,
  AXOLOTL_SHARDED_LOAD_DQ,
  FLASH_ATTN_WHEEL,
  TRL_GRPO_VLLM_4BIT,
];
/**
 * DeepSpeed AutoTP (the Trainer's `tensor_parallel.autotp_size`) under LoRA/QLoRA: auto_tp.py routes each nn.Linear
 * to LinearLayer or LinearAllreduce by its module name and has no PEFT handling (no base_layer or lora_ name in
 * the 0.19.8 sdist's module_inject/auto_tp.py); estimate models AutoTP for full fine-tunes only.
 */
const DEEPSPEED_AUTOTP_ADAPTERS: Rule = {
  id: 'deepspeed-autotp-adapters',
  says: "DeepSpeed AutoTP (tensor_parallel.autotp_size) splits each nn.Linear as row- or column-parallel by its module name and has no PEFT handling, so a LoRA target's base_layer and adapters are split by names the model's policy does not list, a run vramplan does not model: tensor parallelism on hf-deepspeed is estimated for full fine-tunes; adapters train over --zero alone",
  library: 'deepspeed',
  versions: '==0.19.8',
  source:
    'https://github.com/deepspeedai/DeepSpeed/blob/v0.19.8/deepspeed/module_inject/auto_tp.py#L405-L470',
  effect: 'forbid',
  applies: (x) => x.options.tp > 1 && x.options.method !== 'full',
};

/** AutoTP's layers are LinearLayer / LinearAllreduce over whole-sequence activations; lm_head gathers its logits. */
const DEEPSPEED_AUTOTP_NO_SP: Rule = {
  id: 'deepspeed-autotp-no-sequence-parallel',
  says: 'DeepSpeed AutoTP splits the linears only: activations between them stay whole on every TP rank (LinearLayer, LinearAllreduce) and in training lm_head gathers its logits (gather_output=True), so there is no sequence or loss parallelism to ask for: estimate --tp without --sequence-parallel and --loss-parallel',
  library: 'deepspeed',
  versions: '==0.19.8',
  source:
    'https://github.com/deepspeedai/DeepSpeed/blob/v0.19.8/deepspeed/module_inject/auto_tp.py#L449-L470',
  effect: 'forbid',
  applies: (x) => x.options.tp > 1 && (x.options.sequenceParallel || x.options.lossParallel),
};

export const HF_DEEPSPEED_RULES: readonly Rule[] = [
  HF_ARCH_RULE,
  DEEPSPEED_AUTOTP_ADAPTERS,
  DEEPSPEED_AUTOTP_NO_SP,
  DEEPSPEED_ULYSSES_LAYOUT,
  DEEPSPEED_ULYSSES_HEADS,
  DEEPSPEED_ULYSSES_EAGER,
  HF_NO_SDPA,
  BNB_ON_QUANTIZED_CHECKPOINT,
  BNB_FUSED_EXPERTS,
  PEFT_MOE_GATE_UP_PAIR,
  INT8_SHARDED,
  DEEPSPEED_NO_LOCAL_RANK,
  PEFT_ZERO3_REENTRANT,
  ZERO3_QUANT_STORAGE,
  ZERO3_4BIT_OFFLOAD,
  FLASH_ATTN_WHEEL,
  TRL_GRPO_VLLM_4BIT,
];

const HF_RULES: Partial<Record<Engine, readonly Rule[]>> = {
  'hf-trainer': HF_TRAINER_RULES,
  'hf-fsdp': HF_FSDP_RULES,
  'hf-deepspeed': HF_DEEPSPEED_RULES,
};

/** The HF rules of the plan's engine (the same lists the engine profiles carry). */
export const hfRulesOf = (o: EstimateOptions): readonly Rule[] => HF_RULES[engineOf(o)] ?? [];

/** The rule input of a plan: dp = gpus / (tp * pp * cp); `accum` 1 where the plan has none yet. */
export const ruleInputOf = (x: LaunchPlan, accum = 1): RuleInput => ({
  arch: x.arch,
  options: x.options,
  dp: x.options.gpus / (x.options.tp * x.options.pp * x.options.cp),
  accum,
});

/** Why a forbid rule of the plan's HF engine refuses it (ruleReason), or null. */
export function ruleBlocker(x: LaunchPlan, accum = 1): string | null {
  const input = ruleInputOf(x, accum);
  const r = forbiddenBy(hfRulesOf(x.options), input);
  return r ? ruleReason(r, input) : null;
}

/** Whether a change rule holds for the plan (the emitters ask before writing the changed key). */
export const changes = (rule: Rule, x: LaunchPlan): boolean =>
  rule.effect === 'change' && rule.applies(ruleInputOf(x));

/** The notes of the given change rules that hold for the plan ("rule <id>: <says>"). */
export function ruleNotes(x: LaunchPlan, only: readonly Rule[]): string[] {
  const held = changesFor(hfRulesOf(x.options), ruleInputOf(x));
  return held.filter((r) => only.includes(r)).map((r) => `rule ${r.id}: ${r.says}`);
}
