/**
 * An MoE router GEMM the engine runs in fp32 (FrameworkProfile.fp32Router: vLLM's GLM-4.5 gate at 0.10.1-0.11.0,
 * engines/vllm/fp32-router.ts). Each token's hidden state is cast to fp32 (a 16-bit read and a 4-byte write) and
 * multiplied against every routed expert's gate row on the CUDA cores, at the card's fp32 GEMM rate
 * (GpuRates.gemm32), once a MoE layer and on every TP rank (the gate is not sharded). The step's 16-bit count of the
 * same gate FLOPs (in the model's active parameters, split over TP at the tensor rate) stays: 1/30 of this term or
 * less. Priced only where the run's release is known and inside the profile's range.
 */
import { releaseAtLeast } from '../compare-releases.js';
import type { FrameworkProfile } from '../memory/framework-profile.js';
import type { TimeOptions } from '../../schema/time.js';
import type { GpuRates } from './hardware.js';
import type { ModelFacts } from './model-facts.js';

/** Seconds a token (a row of the batch or prompt) adds on one GPU for the fp32 router; 0 where none runs. */
export function fp32RouterSecondsPerRow(
  m: Pick<ModelFacts, 'modelType' | 'experts' | 'moeLayers' | 'hidden'>,
  fw: Pick<FrameworkProfile, 'fp32Router'>,
  t: Pick<TimeOptions, 'engineVersion'>,
  r: Pick<GpuRates, 'gemm32' | 'mem'>,
): number {
  const g = fw.fp32Router;
  const v = t.engineVersion;
  if (g === undefined || v === undefined || m.experts <= 1 || m.moeLayers === 0) return 0;
  if (!g.modelTypes.includes(m.modelType)) return 0;
  if (!releaseAtLeast(v, g.from) || releaseAtLeast(v, g.before)) return 0;
  const flops = 2 * m.hidden * m.experts * m.moeLayers; // the gate's [hidden x experts] product, each MoE layer
  const castBytes = (2 + 4) * m.hidden * m.moeLayers; // hidden_states.to(torch.float32): read 16-bit, write fp32
  return flops / r.gemm32 + castBytes / r.mem;
}
