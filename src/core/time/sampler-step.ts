/**
 * A serving step's sampler on the GPU: the passes a server's sampler makes over the step's logits, one row per running
 * sequence and one entry per vocabulary token, after the forward and in series with it on the same stream. The
 * engine's profile gives the bytes a logit moves (FrameworkProfile.samplerStepBytesPerLogit, a vLLM figure counted
 * from its sampler's code); an engine without the field adds nothing.
 */
import type { FrameworkProfile } from '../memory/framework-profile.js';
import type { GpuRates } from './hardware.js';
import type { ModelFacts } from './model-facts.js';

/**
 * Seconds a decode step of `batch` running sequences spends in the sampler's memory passes: batch x vocabulary x the
 * profile's bytes a logit, at the card's stream rate. Every tensor-parallel rank samples the whole vocabulary (vLLM's
 * LogitsProcessor all-gathers the shards first), so the figure does not shrink with TP.
 */
export function samplerStepSeconds(
  m: ModelFacts,
  fw: FrameworkProfile,
  batch: number,
  r: GpuRates,
): number {
  const bytes = fw.samplerStepBytesPerLogit ?? 0;
  if (bytes === 0 || m.lmHead === 0) return 0;
  return (batch * m.vocab * bytes) / r.mem;
}
