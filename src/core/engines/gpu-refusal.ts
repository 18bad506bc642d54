/**
 * Why an engine cannot run a configuration on one GPU, whatever else the configuration says: the torch its folder
 * pins has no ROCm kernels for the GPU (engines/torch-targets.ts), the engine has no Apple GPU path, its
 * quantization path fails on the run's weights there, or a training run's optimizer does not step there
 * (engines/apple.ts). `estimate --gpu` and `launch` refuse with it; the planner's
 * hardware gate asks the same questions per GPU option.
 */
import type { Engine } from '../../schema/engine.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import type { Gpu } from '../../schema/gpu.js';
import {
  appleKernelsRefusal,
  appleOptimizerRefusal,
  appleRefusal,
  appleWeightsRefusal,
} from './apple.js';
import { torchTargetRefusal } from './torch-targets.js';

/**
 * What is refused (`torch`: the engine's pinned torch, `engine`: the engine, `weights`: the run's quantized weights
 * on the engine, `kernels`: kernels the run loads (Liger's), `optimizer`: the run's optimizer) and why.
 */
export interface GpuRefusal {
  kind: 'torch' | 'engine' | 'weights' | 'kernels' | 'optimizer';
  why: string;
}

/** Why `engine` cannot run `o` on `gpu`, or null. */
export function gpuRefusal(
  engine: Engine,
  gpu: Pick<Gpu, 'vendor' | 'computeCapability'>,
  o: Pick<EstimateOptions, 'method' | 'optimizer' | 'weights' | 'liger' | 'chunkedLoss'>,
): GpuRefusal | null {
  const torch = torchTargetRefusal(engine, gpu.computeCapability);
  if (torch) return { kind: 'torch', why: torch };
  const apple = appleRefusal(engine, gpu);
  if (apple) return { kind: 'engine', why: apple };
  // The engine's quantization path on the run's weights (its profile's appleWeights).
  const weights = appleWeightsRefusal(engine, gpu, o.weights);
  if (weights) return { kind: 'weights', why: weights };
  // Liger's Triton kernels do not install on macOS (engines/apple.ts appleKernelsRefusal).
  const kernels = appleKernelsRefusal(engine, gpu, o);
  if (kernels) return { kind: 'kernels', why: kernels };
  // bitsandbytes' 8-bit and paged optimizer steps have no MPS path (engines/optimizers.ts notOnApple).
  const step = o.method === 'inference' ? null : appleOptimizerRefusal(o.optimizer, gpu);
  return step ? { kind: 'optimizer', why: step } : null;
}
