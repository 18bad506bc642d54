/** The hf-trainer engine: what it runs, the defaults it applies, its rules (the planner's profile). */
import { ATTENTION } from '../../../schema/estimate.js';
import {
  HF_APPLE_WEIGHTS,
  HF_LORA,
  HF_OPTIMIZERS,
  TRL_OBJECTIVES,
  HF_TORCH,
} from '../hf/profile.js';
import { loraRecipeDefault, type EngineProfile } from '../profile.js';
import { HF_TRAINER_RULES } from '../hf/rules.js';

export const HF_TRAINER_PROFILE: EngineProfile = {
  id: 'hf-trainer',
  framework: 'hf',
  torch: HF_TORCH,
  methods: ['full', 'lora', 'qlora'],
  // TRL v1.9.0 trainers (trl/trainer/{dpo,kto,grpo}_trainer.py; ORPO and CPO/SimPO in trl/experimental/).
  objectives: TRL_OBJECTIVES,
  maxDp: Infinity, // DDP through accelerate launch
  fp16: true,
  tpShardsNormsAndLoss: false,
  tp: false,
  pp: false,
  cp: false,
  zero: [0],
  offload: {},
  // bf16 weights + bf16=True trains pure 16-bit; fp32 weights + bf16=True is torch.autocast.
  fullWeights: ['bf16', 'fp16', 'fp32'],
  baseWeights: ['bf16', 'fp16', 'fp32', 'int8', 'nf4', 'fp4'],
  shardedQuantized: [],
  // bitsandbytes nf4, fp4 and int8 run on MPS at the pins (hf/profile.ts HF_APPLE_WEIGHTS); int4 (GPTQ / AWQ through
  // gptqmodel, unpinned) is unread there.
  appleWeights: HF_APPLE_WEIGHTS,
  optimizers: HF_OPTIMIZERS,
  offloadOptimizers: [],
  bnbOptimizersSharded: true,
  optimizerInBackward: false,
  masterWeights: false,
  stochasticRounding: [],
  // gradient_checkpointing checkpoints whole layers; TRL activation_offloading moves saved activations to the host.
  checkpointing: ['none', 'full', 'offload'],
  // bitsandbytes weights load with device_map {"": local rank} (hf/trainer.ts device_map_per_rank): streamed.
  hostLoading: { onePerNode: 'never', streamed: false, streamedWeights: ['int8', 'nf4', 'fp4'] },
  attention: ATTENTION,
  defaults: [loraRecipeDefault(HF_LORA)],
  loraTargets: HF_LORA,
  // transformers Trainer use_liger_kernel (https://huggingface.co/docs/transformers/main/en/trainer#liger-kernel).
  liger: true,
  // PEFT LoraConfig(modules_to_save=...) (https://huggingface.co/docs/peft/package_reference/lora#peft.LoraConfig).
  modulesToSave: true,
  rules: HF_TRAINER_RULES,
  docs: [
    'https://huggingface.co/docs/transformers/main_classes/trainer',
    'https://huggingface.co/docs/transformers/main/en/optimizers',
  ],
};
