/** Llama 3.1 8B under vLLM: flags to the estimate's inputs on a catalog GPU, and a static batch's seconds. */
import { staticBatchSeconds } from '../../src/core/time/serving-request.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags, type RawFlags } from '../../src/schema/flags.js';
import { timeOptionsFromFlags } from '../../src/schema/time.js';

export const LLAMA_8B = 'llama-3.1-8b';

export function llama8bOptions(gpu: string, flags: RawFlags) {
  const f: RawFlags = { model: LLAMA_8B, gpu, method: 'inference', framework: 'vllm', ...flags };
  const o = optionsFromFlags(f);
  return { o, t: timeOptionsFromFlags(f, o), g: findGpu(gpu) };
}

/** A static batch's seconds: one prefill of every prompt, then the decode steps. */
export function llama8bBatchSeconds(gpu: string, flags: RawFlags): number {
  const { o, t, g } = llama8bOptions(gpu, flags);
  return staticBatchSeconds(resolveModel(LLAMA_8B), o, g, t);
}
