/**
 * Why an engine cannot run a configuration on one GPU, whatever else the configuration says: the torch its folder
 * pins has no ROCm kernels for the GPU (engines/torch-targets.ts), the engine has no Apple GPU path, or a training
 * run's optimizer does not step there (engines/apple.ts). `estimate --gpu` and `launch` refuse with it; the planner's
 * hardware gate asks the same questions per GPU option.
 */
import type { Engine } from '../../schema/engine.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import type { Gpu } from '../../schema/gpu.js';
import { appleOptimizerRefusal, appleRefusal } from './apple.js';
import { torchTargetRefusal } from './torch-targets.js';

/** What is refused (`torch`: the engine's pinned torch, `engine`: the engine, `optimizer`: the run's optimizer) and why. */
export interface GpuRefusal {
  kind: 'torch' | 'engine' | 'optimizer';
  why: string;
}

/** Why `engine` cannot run `o` on `gpu`, or null. */
export function gpuRefusal(
  engine: Engine,
  gpu: Pick<Gpu, 'vendor' | 'computeCapability'>,
  o: Pick<EstimateOptions, 'method' | 'optimizer'>,
): GpuRefusal | null {
  const torch = torchTargetRefusal(engine, gpu.computeCapability);
  if (torch) return { kind: 'torch', why: torch };
  const apple = appleRefusal(engine, gpu);
  if (apple) return { kind: 'engine', why: apple };
  // bitsandbytes' 8-bit and paged optimizer steps have no MPS path (engines/optimizers.ts notOnApple).
  const step = o.method === 'inference' ? null : appleOptimizerRefusal(o.optimizer, gpu);
  return step ? { kind: 'optimizer', why: step } : null;
}
