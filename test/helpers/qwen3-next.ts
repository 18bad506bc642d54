import { modelFacts } from '../../src/core/time/index.js';
import { resolveModel } from '../../src/io/load-model.js';
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';

/** Qwen3-Next-80B-A3B (512 routed experts, 10 a token), as the time model reads it. */
export const QWEN3_NEXT = modelFacts(resolveModel('qwen3-next-80b-a3b'));

/** Qwen3-Next served by SGLang over TP 8 on eight GPUs at 2,048 tokens (sgl-project/sglang#10404's runs). */
export const QWEN3_NEXT_SGLANG_TP8: EstimateOptions = {
  ...defaultOptions('inference'),
  framework: 'sglang',
  gpus: 8,
  tp: 8,
  seq: 2048,
};
