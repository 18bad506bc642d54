/** The litgpt engine: what it runs, the defaults it applies, its rules (the planner's profile). */
import { ATTENTION } from '../../../schema/estimate.js';
import type { EngineProfile } from '../profile.js';

export const LITGPT_PROFILE: EngineProfile = {
  id: 'litgpt',
  framework: 'litgpt',
  methods: ['full', 'lora', 'qlora'],
  maxDp: Infinity,
  fp16: true,
  tpShardsNormsAndLoss: false,
  tp: false,
  pp: false,
  cp: false,
  zero: [0, 3], // Fabric FSDPStrategy
  offload: {},
  fullWeights: ['bf16', 'fp32'], // --precision bf16-true / bf16-mixed
  baseWeights: ['bf16', 'fp32', 'int8', 'nf4', 'fp4'], // --quantize bnb.int8 / bnb.nf4 / bnb.fp4
  shardedQuantized: [], // quantization is single-device only
  optimizers: ['adamw', 'adamw-8bit', 'paged-adamw', 'paged-adamw-8bit', 'sgd', 'sgd-momentum'],
  offloadOptimizers: [],
  bnbOptimizersSharded: false,
  optimizerInBackward: false,
  masterWeights: false,
  stochasticRounding: [],
  // whole-block activation checkpointing only.
  checkpointing: ['none', 'full'],
  attention: ATTENTION,
  rules: [],
  docs: [
    'https://github.com/Lightning-AI/litgpt/blob/main/tutorials/finetune.md',
    'https://github.com/Lightning-AI/litgpt/blob/main/tutorials/quantize.md',
  ],
};
