/** The hf-generate engine: what it runs, the defaults it applies, its rules (the planner's profile). */
import { ATTENTION } from '../../../schema/estimate.js';
import type { EngineProfile } from '../profile.js';
import { HF_GENERATE_ARCH_RULE } from '../hf/architectures.js';

export const HF_GENERATE_PROFILE: EngineProfile = {
  id: 'hf-generate',
  framework: 'hf',
  methods: ['inference'],
  objectives: ['sft'],
  maxDp: Infinity, // one process per GPU
  fp16: true,
  tpShardsNormsAndLoss: false,
  tp: false,
  pp: false,
  cp: false,
  zero: [0],
  offload: {},
  fullWeights: [],
  baseWeights: ['bf16', 'fp16', 'fp32', 'fp8', 'int8', 'nf4', 'fp4', 'int4'],
  shardedQuantized: [],
  optimizers: ['none'],
  offloadOptimizers: [],
  bnbOptimizersSharded: false,
  optimizerInBackward: false,
  masterWeights: false,
  stochasticRounding: [],
  // inference.
  checkpointing: ['none'],
  attention: ATTENTION,
  defaults: [],
  rules: [HF_GENERATE_ARCH_RULE],
  docs: ['https://huggingface.co/docs/transformers/main/en/quantization/overview'],
};
