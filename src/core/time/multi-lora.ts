/**
 * Multi-LoRA serving's time per decode step: the adapters in use are read beside the base weights, and every
 * LoRA-wrapped linear runs a shrink (x A) and an expand (x B) kernel over the batch, each a graph kernel's gap
 * at decode (vLLM's punica kernels: add_shrink / add_expand per layer, vllm/lora/punica_wrapper/punica_gpu.py).
 */
import type { EstimateOptions } from '../../schema/estimate.js';
import { FLOAT_BYTES } from '../model/dtypes.js';
import { adapterBytesPerGpu } from '../memory/multi-lora.js';
import type { GpuRates } from './hardware.js';
import type { ModelFacts } from './model-facts.js';
import { GRAPH_KERNEL_SECONDS } from './train-work.js';
import { floatCompute } from '../../schema/estimate.js';

export interface LoraTime {
  /** Distinct adapters a step reads: one per sequence at most, and at most the slots. */
  adaptersPerStep: number;
  /** Seconds per decode step: reading those adapters, and the shrink and expand kernels. */
  seconds: number;
}

/** The LoRA cost of one decode step of `batch` sequences (null without --max-loras). */
export function loraStepTime(
  m: ModelFacts,
  o: EstimateOptions,
  r: GpuRates,
  batch = o.batch,
): LoraTime | null {
  if (o.maxLoras === undefined) return null;
  const adapters = Math.min(batch, o.maxLoras);
  const bytes =
    adapters * adapterBytesPerGpu(m.arch, o.loraRank, o.tp, FLOAT_BYTES[floatCompute(o.compute)]);
  const kernels = 2 * m.layers * m.linearsPerLayer;
  return { adaptersPerStep: adapters, seconds: bytes / r.mem + kernels * GRAPH_KERNEL_SECONDS };
}
