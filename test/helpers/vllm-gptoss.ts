/** gpt-oss-20b served by vLLM in MXFP4: the model and the estimate's options, one stream of 1,024 prompt tokens. */
import { resolveModel } from '../../src/io/load-model.js';
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';

export const gptOss = resolveModel('openai/gpt-oss-20b');

export const gptOssOptions = (p: Partial<EstimateOptions>): EstimateOptions => ({
  ...defaultOptions('inference'),
  framework: 'vllm',
  weights: 'mxfp4',
  batch: 1,
  seq: 2048,
  promptTokens: 1024,
  ...p,
});
