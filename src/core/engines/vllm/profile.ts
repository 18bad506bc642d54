/** The vllm engine: what it runs, the defaults it applies, its rules (the planner's profile). */
import { ATTENTION } from '../../../schema/estimate.js';
import type { EngineProfile } from '../profile.js';
import { VLLM_RULES } from './rules.js';

export const VLLM_PROFILE: EngineProfile = {
  id: 'vllm',
  framework: 'vllm',
  methods: ['inference'],
  objectives: ['sft'],
  maxDp: Infinity, // replicas
  fp16: true,
  tpShardsNormsAndLoss: false,
  tp: true,
  pp: true,
  cp: false,
  zero: [0],
  offload: {},
  fullWeights: [],
  // fp8 and int8 (W8A8) checkpoints, bitsandbytes nf4, AWQ/GPTQ int4, MXFP4 (gpt-oss) and NVFP4 checkpoints.
  baseWeights: ['bf16', 'fp16', 'fp32', 'fp8', 'int8', 'nf4', 'int4', 'mxfp4', 'nvfp4'],
  shardedQuantized: [],
  optimizers: ['none'],
  offloadOptimizers: [],
  bnbOptimizersSharded: false,
  optimizerInBackward: false,
  masterWeights: false,
  stochasticRounding: [],
  // inference.
  checkpointing: ['none'],
  // vLLM loads each TP rank's shard, iterating safetensors tensor by tensor from an mmap
  // (vllm/model_executor/model_loader/weight_utils.py safetensors_weights_iterator): page cache, not a held copy.
  hostLoading: { onePerNode: 'always', streamed: true },
  attention: ATTENTION,
  defaults: [],
  rules: VLLM_RULES,
  docs: [
    'https://docs.vllm.ai/en/latest/serving/distributed_serving.html',
    'https://docs.vllm.ai/en/latest/features/quantization/supported_hardware.html',
  ],
};
