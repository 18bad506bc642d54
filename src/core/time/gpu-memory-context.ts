/**
 * What a memory estimate reads of the GPU a run serves on: its memory and the driver's name for it (hardware.ts
 * gpuContext), and for MXFP4 weights on an engine that pads their experts for its kernel the card and kernel the
 * time model's step takes (EstimateContext.mxfp4Kernel), so the memory model holds the experts at the same padded
 * shape the time model reads (time/mxfp4-pad.ts, memory/mxfp4-pad-bytes.ts); where the engine upcasts the MXFP4
 * experts at load, that it does (EstimateContext.mxfp4Upcast, time/mxfp4-upcast.ts).
 */
import { FRAMEWORKS } from '../memory/frameworks.js';
import type { EstimateContext } from '../memory/types.js';
import type { Gpu } from '../../schema/gpu.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import { defaultTimeOptions, type TimeOptions } from '../../schema/time.js';
import { stepKernel } from './decode.js';
import { gpuContext, gpuRates, type GpuContext } from './hardware.js';
import { upcastsMxfp4Experts } from './mxfp4-upcast.js';

/** gpuContext with the MXFP4 kernel a run of `o` takes on `gpu` under `t` (its defaults where absent). */
export function servingGpuContext(
  gpu: Gpu,
  o: EstimateOptions,
  t?: TimeOptions,
): GpuContext & Pick<EstimateContext, 'mxfp4Kernel' | 'mxfp4Upcast'> {
  if (upcastsMxfp4Experts(o, gpu)) return { ...gpuContext(gpu), mxfp4Upcast: true };
  const base = gpuContext(gpu);
  if (o.weights !== 'mxfp4' || FRAMEWORKS[o.framework].mxfp4ExpertPad === undefined) return base;
  const time = t ?? defaultTimeOptions(o.gpus);
  const r = gpuRates(gpu, time, o.method === 'inference');
  const mxfp4Kernel = {
    cc: r.cc,
    rocm: r.rocm,
    kernel: stepKernel(o, time, r),
  };
  return { ...base, mxfp4Kernel };
}
