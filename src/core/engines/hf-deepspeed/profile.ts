/** The hf-deepspeed engine: what it runs, the defaults it applies, its rules (the planner's profile). */
import { ATTENTION } from '../../../schema/estimate.js';
import { FLOAT16, HF_LORA, HF_OPTIMIZERS, HF_TORCH, TRL_OBJECTIVES } from '../hf/profile.js';
import { loraRecipeDefault, type EngineProfile } from '../profile.js';
import { HF_DEEPSPEED_RULES } from '../hf/rules.js';

export const HF_DEEPSPEED_PROFILE: EngineProfile = {
  id: 'hf-deepspeed',
  framework: 'deepspeed',
  // DeepSpeed's MPS accelerator (accelerator/mps_accelerator.py): fp32 only, no communication backend, no ops.
  notOnApple:
    'its MPS accelerator has no 16-bit dtypes (is_bf16_supported and is_fp16_supported return False, supported_dtypes [torch.float]), no communication backend (None) and no op builders (NotImplementedBuilder), so the bf16/fp16 ZeRO config the launch writes does not run there (https://github.com/deepspeedai/DeepSpeed/blob/ca2090baafc1b16c8b05d7ace068c30581b7a981/accelerator/mps_accelerator.py)',
  torch: HF_TORCH,
  methods: ['full', 'lora', 'qlora'],
  // TRL v1.9.0 trainers (trl/trainer/{dpo,kto,grpo}_trainer.py; ORPO and CPO/SimPO in trl/experimental/).
  objectives: TRL_OBJECTIVES,
  maxDp: Infinity,
  fp16: true,
  tpShardsNormsAndLoss: false,
  tp: false,
  pp: false, // the Trainer integration has no DeepSpeed pipeline engine
  cp: false,
  zero: [1, 2, 3],
  // The Trainer runs DeepSpeed on one GPU (`deepspeed --num_gpus=1` with a ZeRO-2 config, "Deployment with one GPU",
  // https://huggingface.co/docs/transformers/v4.30.0/main_classes/deepspeed#deployment-with-one-gpu): ZeRO-2 over one
  // rank is the engine's plainest run (no gathers, no partitioned parameters), ZeRO-3 adds its hooks.
  oneRankZero: 2,
  // offload_optimizer (ZeRO-Offload) for stages 1-3; offload_param needs stage 3.
  offload: { optimizer: [1, 2, 3], 'optimizer+params': [3] },
  // bf16/fp16 mode casts the model to 16 bits and keeps its own fp32 master partition: fp32 storage is the same run.
  fullWeights: FLOAT16,
  baseWeights: ['bf16', 'fp16', 'int8', 'nf4', 'fp4'],
  // ZeRO-3 + QLoRA needs bnb_4bit_quant_storage; 8-bit bitsandbytes weights are not supported under ZeRO-3.
  shardedQuantized: ['nf4', 'fp4'],
  // Client optimizers run under ZeRO with zero_allow_untested_optimizer (the Trainer sets it).
  optimizers: HF_OPTIMIZERS,
  // ZeRO-Offload steps on the host with DeepSpeedCPUAdam.
  offloadOptimizers: ['adamw'],
  bnbOptimizersSharded: true,
  optimizerInBackward: false,
  masterWeights: true,
  stochasticRounding: [],
  // gradient_checkpointing checkpoints whole layers; TRL activation_offloading moves saved activations to the host.
  checkpointing: ['none', 'full', 'offload'],
  // ZeRO-3 zero.Init partitions at construction; ZeRO-1/2 processes each load the model. DeepSpeed's own estimator
  // sizes host memory for offload with additional_buffer_factor=1.5 (pinned staging and swap buffers;
  // deepspeed/runtime/zero/stage_1_and_2.py estimate_zero2_model_states_mem_needs,
  // https://deepspeed.readthedocs.io/en/latest/memory.html).
  sharding: 'deepspeed',
  // `launch --sharding deepspeed` names it (Trainer + DeepSpeed ZeRO, https://huggingface.co/docs/transformers/deepspeed).
  shardingFlag: true,
  // DeepSpeed ZeRO accepts a client optimizer outside ZERO_SUPPORTED_OPTIMIZERS (bitsandbytes' included) only with
  // zero_allow_untested_optimizer (deepspeed/runtime/engine.py _configure_zero_optimizer).
  bnbOptimizersUntested: true,
  // bitsandbytes weights below ZeRO-3 load with device_map {"": local rank} (hf/trainer.ts device_map_per_rank); at
  // ZeRO-3 the 4-bit quantizer sets the same device_map itself (hf/memory.ts BNB_4BIT_LOADS_WHOLE).
  hostLoading: {
    onePerNode: 'zero3',
    streamed: false,
    offloadBufferFactor: 1.5,
    streamedWeights: ['int8', 'nf4', 'fp4'],
  },
  attention: ATTENTION,
  defaults: [loraRecipeDefault(HF_LORA)],
  loraTargets: HF_LORA,
  // transformers Trainer use_liger_kernel (https://huggingface.co/docs/transformers/main/en/trainer#liger-kernel).
  liger: true,
  // PEFT LoraConfig(modules_to_save=...) (https://huggingface.co/docs/peft/package_reference/lora#peft.LoraConfig).
  modulesToSave: true,
  rules: HF_DEEPSPEED_RULES,
  docs: [
    'https://huggingface.co/docs/transformers/deepspeed',
    'https://www.deepspeed.ai/tutorials/zero-offload/',
    'https://huggingface.co/docs/peft/accelerate/deepspeed',
    'https://deepspeed.readthedocs.io/en/latest/memory.html',
  ],
};
