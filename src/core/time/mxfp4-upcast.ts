/**
 * MXFP4 routed experts an engine upcasts to BF16 at load (FrameworkProfile.mxfp4UpcastExperts): SGLang's
 * Mxfp4MoEMethod with no MXFP4 runner for the card and expert parallelism (engines/sglang/mxfp4-runner.ts). The GPU
 * then holds the experts at 2 bytes a value and the step reads them so: the estimate runs as the same model with BF16
 * weights (an MXFP4 checkpoint keeps its other linears in BF16), its kernel named `triton-bf16`.
 */
import { FRAMEWORKS } from '../memory/frameworks.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import type { Gpu } from '../../schema/gpu.js';

/** Whether the engine of `o` holds its MXFP4 experts upcast to BF16 on `gpu`. */
export function upcastsMxfp4Experts(
  o: EstimateOptions,
  gpu: Pick<Gpu, 'computeCapability'>,
): boolean {
  const rule = FRAMEWORKS[o.framework].mxfp4UpcastExperts;
  if (o.weights !== 'mxfp4' || rule === undefined) return false;
  // A gfx target (AMD) is no compute capability: 0, as gpuRates reads it (time/hardware.ts).
  const cc = Number(gpu.computeCapability ?? 0) || 0;
  return cc > 0 && rule(cc, o.ep ?? 1);
}

/** The options the memory and time models run for a run whose MXFP4 experts are held in BF16. */
export const upcastOptions = (o: EstimateOptions): EstimateOptions => ({ ...o, weights: 'bf16' });
