/** The torchtune engine: what it runs, the defaults it applies, its rules (the planner's profile). */
import { loraRecipeDefault, type EngineProfile, type LoraRecipe } from '../profile.js';
import { TUNE_SHARDED_OPTIMIZERS, TUNE_SR_OPTIMIZERS } from './components.js';
import { TORCHTUNE_RULES } from './rules.js';

/**
 * torchtune's LoRA / QLoRA / LoRA-DPO recipes: lora_attn_modules ['q_proj', 'v_proj', 'output_proj'],
 * apply_lora_to_mlp True, apply_lora_to_output False (pytorch/torchtune v0.6.1 recipes/configs/llama3_1/8B_lora.yaml,
 * 8B_qlora_single_device.yaml, 8B_lora_dpo.yaml; llama3_2/1B_lora.yaml and qwen2_5/7B_lora.yaml alike).
 */
const TORCHTUNE_LORA: LoraRecipe = {
  allLinear: false,
  targets: ['q', 'v', 'o', 'gate', 'up', 'down'],
  source: 'torchtune v0.6.1 recipes/configs/llama3_1/8B_lora.yaml',
};

/** The torch torchtune 0.6.1's launch folder pins (launch.ts TORCHTUNE_PINS: the stable torch of its last release). */
export const TORCHTUNE_TORCH = '2.6.0';

export const TORCHTUNE_PROFILE: EngineProfile = {
  id: 'torchtune',
  framework: 'torchtune',
  torch: TORCHTUNE_TORCH,
  methods: ['full', 'lora', 'qlora'],
  // torchtune v0.6.1 recipes: lora_dpo_single_device.py, lora_dpo_distributed.py, full_dpo_distributed.py.
  objectives: ['sft', 'dpo'],
  maxDp: Infinity,
  // Recipes take dtype bf16 or fp32 only: https://pytorch.org/torchtune/stable/tutorials/memory_optimizations.html
  fp16: false,
  tpShardsNormsAndLoss: false,
  tp: false,
  pp: false,
  cp: false,
  // Single-device recipes, or FSDP2 fully_shard in the distributed ones (fsdp_reshard_after_forward False = ZeRO-2).
  zero: [0, 2, 3],
  // fsdp_cpu_offload; on one GPU an optimizer `_component_` of torchao's CPUOffloadOptimizer keeps the states and
  // the step on the host (torchao v0.10.0 prototype/low_bit_optim/cpu_offload.py: "Offload optimizer to CPU for
  // single-GPU training"; named for the single-device recipes by the memory-optimizations page, docs below).
  // More than one GPU shards with FSDP2 (rule torchtune-distributed-shards).
  offload: { 'optimizer+params': [3], optimizer: [0] },
  // One dtype for the whole run (dtype: bf16), no autocast and no fp32 master copy.
  fullWeights: ['bf16'],
  baseWeights: ['bf16', 'nf4'], // torchao NF4Tensor for QLoRA
  shardedQuantized: ['nf4'],
  // QLoRA's NF4 weights are torchao tensors of plain torch ops: no MPS kernel needed.
  appleWeights: {
    runs: {
      weights: ['nf4'],
      source:
        "torchtune v0.6.1 modules/low_precision/nf4_linear.py and peft/lora.py quantize with torchao to_nf4 and multiply with linear_nf4; torchao v0.10.0 NF4Tensor.from_tensor builds its tables on the input tensor's device and get_original_weight dequantizes with torch shifts, indexing and multiplies, no device check (https://github.com/pytorch/ao/blob/v0.10.0/torchao/dtypes/nf4tensor.py)",
    },
  },
  optimizers: [
    'adamw',
    'adamw-8bit',
    'paged-adamw',
    'paged-adamw-8bit',
    'adafactor',
    'sgd',
    'sgd-momentum',
  ],
  offloadOptimizers: ['adamw', 'sgd', 'sgd-momentum', 'adafactor'],
  // bitsandbytes optimizers fail on FSDP2 parameters (rule torchtune-bnb-optimizer-fsdp2); adamw-8bit is written
  // there as torchao's AdamW8bit, whose states are DTensors (components.ts TUNE_OPTIM_SHARDED).
  bnbOptimizersSharded: false,
  shardedLowBitOptimizers: TUNE_SHARDED_OPTIMIZERS,
  optimizerInBackward: true, // optimizer_in_bwd: True (needs gradient_accumulation_steps: 1)
  masterWeights: false,
  // torchao.optim.AdamW8bit(bf16_stochastic_round=True), instantiated by the recipe's optimizer component
  // (https://github.com/pytorch/ao/blob/v0.10.0/torchao/optim/README.md); plain AdamW stays torch's fused one.
  stochasticRounding: TUNE_SR_OPTIMIZERS,
  // Attention modules call F.scaled_dot_product_attention (flash kernels where available); no switch.
  // enable_activation_checkpointing and enable_activation_offloading; only full_finetune_distributed has a selective
  // mode (ac_mode, runs.ts), which the launcher does not write (engines/torchtune/launch.ts).
  checkpointing: ['none', 'full', 'offload'],
  // Meta-device init, then each rank loads its shard of the state dict (torchtune's distributed recipes).
  hostLoading: { onePerNode: 'always', streamed: false },
  attention: ['sdpa'],
  loraTargets: TORCHTUNE_LORA,
  defaults: [
    loraRecipeDefault(TORCHTUNE_LORA),
    {
      flag: 'double-quant',
      why: 'NF4 weights always carry double-quantized constants on this engine (rule torchtune-nf4-double-quant)',
      apply: (o) => {
        if (o.weights === 'nf4') o.doubleQuant = true;
      },
    },
    {
      flag: 'zero',
      why: 'the distributed recipes shard with FSDP2 and reshard after forward unless told not to (ZeRO-3)',
      // full_finetune_distributed.py: cfg.get("fsdp_reshard_after_forward", True) (v0.6.1); rule torchtune-distributed-shards.
      apply: (o) => {
        if (o.gpus / (o.tp * o.pp * o.cp) > 1 && o.zero < 2) o.zero = 3;
      },
    },
    {
      flag: 'reference',
      why: 'GRPO (dev/grpo_full_finetune_distributed.py _setup_model) always builds a frozen reference model',
      // pytorch/torchtune v0.6.1 recipes/dev/grpo_full_finetune_distributed.py: ref_model = config.instantiate(cfg_model).
      apply: (o) => {
        if (o.objective === 'grpo') o.reference = 'model';
      },
    },
    {
      flag: 'attention',
      why: 'attention modules call F.scaled_dot_product_attention',
      apply: (o) => {
        o.attention = 'sdpa';
      },
    },
  ],
  rules: TORCHTUNE_RULES,
  docs: [
    'https://pytorch.org/torchtune/stable/tutorials/memory_optimizations.html',
    'https://github.com/pytorch/ao/blob/v0.10.0/torchao/optim/README.md',
  ],
};
