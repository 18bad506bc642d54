/** The hf-generate engine: what it runs, the defaults it applies, its rules (the planner's profile). */
import { ATTENTION } from '../../../schema/estimate.js';
import type { EngineProfile } from '../profile.js';
import { HF_GENERATE_ARCH_RULE } from '../hf/architectures.js';
import { HF_APPLE_WEIGHTS } from '../hf/profile.js';

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
  // bitsandbytes nf4, fp4 and int8 run on MPS at the pins (hf/profile.ts HF_APPLE_WEIGHTS); int4 (GPTQ / AWQ through
  // gptqmodel, unpinned) is unread there.
  appleWeights: HF_APPLE_WEIGHTS,
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
