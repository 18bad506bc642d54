import type { Arch } from '../../src/core/model/arch.js';
import { resolveModel } from '../../src/io/load-model.js';
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';

/** DeepSeek-V3's block-scaled FP8 checkpoint (weight_block_size 128 x 128). */
export const DSV3_BLOCK_FP8: Arch = resolveModel('deepseek-v3');

/** The same architecture as a per-channel FP8 checkpoint (no weight_block_size). */
export const DSV3_PER_CHANNEL_FP8: Arch = {
  ...DSV3_BLOCK_FP8,
  quant: DSV3_BLOCK_FP8.quant && { ...DSV3_BLOCK_FP8.quant, groupSize: null },
};

/** DeepSeek-V3 served with its FP8 weights by SGLang over TP 8, one request of 2,048 tokens, with `o` over it. */
export const dsv3Fp8Serving = (o: Partial<EstimateOptions> = {}): EstimateOptions => ({
  ...defaultOptions('inference'),
  framework: 'sglang',
  weights: 'fp8',
  gpus: 8,
  tp: 8,
  batch: 1,
  seq: 2048,
  ...o,
});
