/** The unsloth engine: what it runs, the defaults it applies, its rules (the planner's profile). */
import { HF_OPTIMIZERS } from '../hf/profile.js';
import {
  LINEAR_TARGETS,
  loraRecipeDefault,
  type EngineProfile,
  type LoraRecipe,
} from '../profile.js';
import { UNSLOTH_MULTI_GPU_RUNS } from './multi-gpu.js';
import { UNSLOTH_RULES } from './rules.js';

/**
 * Unsloth's notebooks list the seven projections by name: target_modules = ["q_proj", "k_proj", "v_proj", "o_proj",
 * "gate_proj", "up_proj", "down_proj"] (unslothai/notebooks bdda2efc nb/Llama3.1_(8B)-Alpaca.ipynb,
 * nb/Llama3.1_(8B)-GRPO.ipynb): every linear of the layers, what --from reads back as all-linear (from.ts); the
 * launcher writes the names (rule unsloth-all-linear-expanded).
 */
const UNSLOTH_LORA: LoraRecipe = {
  allLinear: true,
  targets: LINEAR_TARGETS,
  source: 'unslothai/notebooks nb/Llama3.1_(8B)-Alpaca.ipynb',
};

/** The torch Unsloth's launch folder pins (launch.ts UNSLOTH_PINS: the newest under unsloth_zoo's torch<2.13.0). */
export const UNSLOTH_TORCH = '2.12.0';

export const UNSLOTH_PROFILE: EngineProfile = {
  id: 'unsloth',
  framework: 'unsloth',
  // unsloth imports DEVICE_TYPE from unsloth_zoo/device_type.py, whose get_device_type takes cuda, hip or xpu from
  // torch (mlx only where Apple's MLX runtime is installed, not the torch stack the launch folder pins).
  notOnApple:
    'its get_device_type takes CUDA, HIP or XPU from torch (MLX only where Apple\'s MLX runtime is installed, not the torch stack the launch folder pins) and on an MPS-only torch raises NotImplementedError("Unsloth currently only works on NVIDIA, AMD and Intel GPUs.") (https://github.com/unslothai/unsloth-zoo/blob/0355f6f171c92cff7f4b73da6ebc9abb100b97f9/unsloth_zoo/device_type.py get_device_type)',
  torch: UNSLOTH_TORCH,
  methods: ['full', 'lora', 'qlora'],
  // unsloth 015bdef unsloth/models/rl.py patches every trl.trainer.<x>_trainer it finds (_patch_trl_rl_trainers),
  // with DPO / ORPO / GRPO replacements in rl_replacements.py; KTO runs as TRL's on FastLanguageModel.
  objectives: ['sft', 'dpo', 'orpo', 'kto', 'grpo'],
  // DDP and native FSDP2 under torchrun (multi-gpu.ts: unsloth 2026.10.9 wheel).
  maxDp: UNSLOTH_MULTI_GPU_RUNS.maxDp,
  fp16: true,
  tpShardsNormsAndLoss: false,
  tp: false,
  pp: false,
  cp: false,
  zero: UNSLOTH_MULTI_GPU_RUNS.zero,
  offload: {},
  // dtype=None picks float16 on GPUs without bf16 (FastLanguageModel.from_pretrained).
  fullWeights: ['bf16', 'fp16', 'fp32'],
  baseWeights: ['bf16', 'fp16', 'int8', 'nf4'], // 16-bit, load_in_8bit, load_in_4bit
  shardedQuantized: UNSLOTH_MULTI_GPU_RUNS.shardedQuantized,
  optimizers: HF_OPTIMIZERS,
  offloadOptimizers: [],
  bnbOptimizersSharded: UNSLOTH_MULTI_GPU_RUNS.bnbOptimizersSharded,
  zeroUndocumented: UNSLOTH_MULTI_GPU_RUNS.zeroUndocumented,
  oneMachineDocumented: UNSLOTH_MULTI_GPU_RUNS.oneMachineDocumented,
  optimizerInBackward: false,
  masterWeights: false,
  stochasticRounding: [],
  // use_gradient_checkpointing True, or "unsloth" (layer inputs offloaded to the host).
  checkpointing: ['none', 'full', 'offload'],
  // from_pretrained places the model on the GPU as it loads (device_map "sequential", or {"": LOCAL_RANK} under
  // torchrun: launch-multi.ts): every tensor streams from the checkpoint's mmap, none held on the host.
  hostLoading: { onePerNode: 'never', streamed: true },
  // get_peft_model: embed_tokens / lm_head in target_modules train fully as modules_to_save (llama.py#L3318).
  modulesToSave: true,
  // from_pretrained(unsloth_tiled_mlp=True) -> unsloth_zoo patch_tiled_mlp (unsloth/models/loader.py @015bdef0).
  tiledMlp: true,
  // The launcher installs no flash-attn: Unsloth's attention dispatch runs xformers (memory-efficient, like SDPA).
  attention: ['sdpa'],
  loraTargets: UNSLOTH_LORA,
  defaults: [
    loraRecipeDefault(UNSLOTH_LORA),
    {
      flag: 'double-quant',
      why: 'NF4 weights always carry double-quantized constants on this engine (rule unsloth-4bit-is-nf4)',
      apply: (o) => {
        if (o.weights === 'nf4') o.doubleQuant = true;
      },
    },
    {
      flag: 'checkpointing',
      // FastLanguageModel.get_peft_model(use_gradient_checkpointing="unsloth") default (rule unsloth-gc-default).
      why: 'use_gradient_checkpointing defaults to "unsloth": layer inputs offloaded to the host',
      apply: (o) => {
        if (o.method !== 'inference') o.checkpointing = 'offload';
      },
    },
    {
      flag: 'attention',
      why: 'the launched environment has no flash-attn: xformers memory-efficient attention',
      apply: (o) => {
        o.attention = 'sdpa';
      },
    },
  ],
  rules: UNSLOTH_RULES,
  docs: ['https://docs.unsloth.ai/get-started/fine-tuning-llms-guide'],
};
