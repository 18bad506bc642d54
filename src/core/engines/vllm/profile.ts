/** The vllm engine: what it runs, the defaults it applies, its rules (the planner's profile). */
import { ATTENTION } from '../../../schema/estimate.js';
import type { EngineProfile } from '../profile.js';
import { VLLM_RULES } from './rules.js';

export const VLLM_PROFILE: EngineProfile = {
  // vLLM's installation guide: GPU builds for CUDA and ROCm; on macOS a CPU build from source only.
  notOnApple:
    'its GPU builds are CUDA and ROCm; on Apple silicon it runs as a CPU build from source ("vLLM has experimental support for macOS with Apple Silicon. For now, users must build from source to natively run on macOS. Currently the CPU implementation for macOS supports FP32 and FP16 datatypes"; "Currently, there are no pre-built Apple silicon CPU wheels"), and Metal inference is the community vllm-metal plugin (MLX), not the GPU serve.sh the launch writes (https://github.com/vllm-project/vllm/blob/v0.21.0/docs/getting_started/installation/cpu.apple.inc.md; https://docs.vllm.ai/en/v0.32.0/getting_started/installation/cpu/)',
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
  // --tensor-parallel-size N --enable-expert-parallel: FusedMoEParallelConfig.make gives ep_size = tp x dp and tp_size 1
  // ("TP = 2, DP(PCP) = 1 and EP = True ... The experts are split between the 2 devices"); with dp 1 no all-to-all runs
  // (use_all2all_kernels needs dp_size > 1) and the layer's output is all-reduced over the TP group as under plain TP
  // (runner/moe_runner.py _maybe_reduce_final_output): the vllm 0.33.0 wheel's model_executor/layers/fused_moe/.
  tpExpertParallel:
    '--tensor-parallel-size N --enable-expert-parallel (vllm 0.33.0 model_executor/layers/fused_moe/config.py FusedMoEParallelConfig.make: ep_size = tp x dp)',
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
