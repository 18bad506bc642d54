/** The hf-fsdp engine: what it runs, the defaults it applies, its rules (the planner's profile). */
import { ATTENTION } from '../../../schema/estimate.js';
import { HF_LORA, HF_OPTIMIZERS, TRL_OBJECTIVES, HF_TORCH } from '../hf/profile.js';
import { loraRecipeDefault, type EngineProfile } from '../profile.js';
import { HF_FSDP_RULES } from '../hf/rules.js';
import { AXOLOTL_SHARDED_QUANT_LOAD } from '../hf/memory.js';

export const HF_FSDP_PROFILE: EngineProfile = {
  id: 'hf-fsdp',
  framework: 'hf',
  // Accelerate v1.14.0 state.py: _prepare_backend maps a launched rank to a distributed type only on CUDA, XPU,
  // NPU, HPU, MLU, MUSA, SDAA or Neuron (else DistributedType.NO), and AcceleratorState turns FSDP on only from
  // those MULTI_* types; the transformers docs: "The mps backend doesn't support distributed training".
  notOnApple:
    'Accelerate runs no FSDP on MPS: its _prepare_backend gives an MPS rank DistributedType.NO (no process group) and AcceleratorState switches to DistributedType.FSDP only from the CUDA/XPU/NPU/HPU/MLU/MUSA/SDAA/Neuron multi-device types, so the FSDP config the launch writes is ignored there (https://github.com/huggingface/accelerate/blob/beb0672aa8444ea7647aee056f624effe5996346/src/accelerate/state.py _prepare_backend, AcceleratorState.__init__; "The mps backend doesn\'t support distributed training", https://huggingface.co/docs/transformers/perf_train_special)',
  torch: HF_TORCH,
  methods: ['full', 'lora', 'qlora'],
  // TRL v1.9.0 trainers (trl/trainer/{dpo,kto,grpo}_trainer.py; ORPO and CPO/SimPO in trl/experimental/).
  objectives: TRL_OBJECTIVES,
  maxDp: Infinity,
  fp16: true,
  tpShardsNormsAndLoss: false,
  tp: false,
  pp: false,
  cp: false,
  // sharding_strategy SHARD_GRAD_OP (ZeRO-2) and FULL_SHARD (ZeRO-3).
  zero: [2, 3],
  // FSDP CPUOffload(offload_params=True) moves parameters and gradients to the host and steps the optimizer there.
  offload: { 'optimizer+params': [3] },
  // Mixed precision keeps fp32 sharded parameters and gathers bf16 units (MixedPrecision param_dtype).
  fullWeights: ['bf16', 'fp16', 'fp32'],
  baseWeights: ['bf16', 'fp16', 'fp32', 'int8', 'nf4', 'fp4'],
  // FSDP shards only float tensors: 4-bit needs bnb_4bit_quant_storage; LLM.int8 Int8Params cannot be sharded.
  shardedQuantized: ['nf4', 'fp4'],
  optimizers: HF_OPTIMIZERS,
  offloadOptimizers: ['adamw', 'sgd', 'sgd-momentum', 'adafactor', 'lion'],
  bnbOptimizersSharded: true,
  optimizerInBackward: false,
  masterWeights: false,
  stochasticRounding: [],
  // gradient_checkpointing checkpoints whole layers; TRL activation_offloading moves saved activations to the host.
  checkpointing: ['none', 'full', 'offload'],
  // Accelerate FSDP with cpu_ram_efficient_loading (the plan sets it; https://huggingface.co/docs/accelerate/usage_guides/fsdp).
  // 4-bit weights stream onto every rank's GPU instead: the quantizer's device_map (hf/memory.ts BNB_4BIT_LOADS_WHOLE);
  // NF4 under FSDP FULL_SHARD loads through axolotl's sharded loader onto rank 0's host (AXOLOTL_SHARDED_QUANT_LOAD).
  hostLoading: {
    onePerNode: 'always',
    streamed: false,
    streamedWeights: ['nf4', 'fp4'],
    shardedQuantWeights: AXOLOTL_SHARDED_QUANT_LOAD.weights,
  },
  // `launch --sharding fsdp` names it (Trainer + Accelerate FSDP, https://huggingface.co/docs/accelerate/usage_guides/fsdp).
  shardingFlag: true,
  // accelerate.ts and axolotl.ts write fsdp_version (hf/fsdp-version.ts); --from reads the user's.
  fsdpVersion: true,
  attention: ATTENTION,
  defaults: [loraRecipeDefault(HF_LORA)],
  loraTargets: HF_LORA,
  // transformers Trainer use_liger_kernel (https://huggingface.co/docs/transformers/main/en/trainer#liger-kernel).
  liger: true,
  // PEFT LoraConfig(modules_to_save=...) (https://huggingface.co/docs/peft/package_reference/lora#peft.LoraConfig).
  modulesToSave: true,
  rules: HF_FSDP_RULES,
  docs: [
    'https://huggingface.co/docs/accelerate/usage_guides/fsdp',
    'https://huggingface.co/docs/bitsandbytes/main/fsdp_qlora',
  ],
};
