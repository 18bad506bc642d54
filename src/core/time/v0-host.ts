/**
 * vLLM V0's host work a decode step (docs/time-model.md "vLLM V0's host work by version"): the engine's
 * v0StepHostSeconds + v0SeqHostSeconds a running sequence, all in series with the GPU on the 0.5 builds. A release
 * that processes step n's outputs while step n+1's forward runs (the profile's v0OutputHost, from its `since`) moves
 * that share beside the GPU: it bounds the step from below instead of adding to it. The run must capture CUDA graphs
 * (enforce_eager turns it off) and keep the model in one pipeline stage.
 */
import { releaseAtLeast } from '../compare-releases.js';
import type { FrameworkProfile } from '../memory/framework-profile.js';
import type { TimeOptions } from '../../schema/time.js';

export interface V0Host {
  /** Seconds a step in series with the GPU. */
  serial: number;
  /** Seconds a step beside the GPU's forward (the step lasts at least this). */
  beside: number;
}

export function v0HostSeconds(
  fw: FrameworkProfile,
  t: TimeOptions,
  batch: number,
  pp: number,
): V0Host {
  if (t.v0Scheduler !== true) return { serial: 0, beside: 0 };
  const step = fw.v0StepHostSeconds ?? 0;
  const seq = fw.v0SeqHostSeconds ?? 0;
  const out = fw.v0OutputHost;
  const eager = t.graphMaxBatch === 0;
  const asyncOutput =
    out !== undefined &&
    !eager &&
    pp <= 1 &&
    t.engineVersion !== undefined &&
    releaseAtLeast(t.engineVersion, out.since);
  if (!asyncOutput) return { serial: step + seq * batch, beside: 0 };
  return {
    serial: Math.max(0, step - out.stepSeconds) + Math.max(0, seq - out.seqSeconds) * batch,
    beside: out.stepSeconds + out.seqSeconds * batch,
  };
}
