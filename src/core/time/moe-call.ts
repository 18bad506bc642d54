/**
 * The fixed latency of one MoE layer's fused-expert call at small batch: beyond its weight bytes, the routing
 * kernels (top-k, token alignment by expert, the weighted sum) and two grouped GEMMs of a few rows each run
 * latency-bound, one short wave after another. The engine's figure (FrameworkProfile.moeCallSeconds) is the
 * kernel benchmark's batch-1 time less the bytes at the modelled bandwidth and less the kernels' launch gaps the
 * step already counts; it fades as the call's bytes grow, gone once they take 20x that latency at the modelled
 * bandwidth (vllm-project/vllm#19049's A100 table: 37 µs unexplained at batch 1, 31 / 29 / 20 / 8 µs at batch 2 / 4 / 8 / 16,
 * none from 32).
 */
import type { FrameworkProfile } from '../memory/framework-profile.js';

/**
 * GPUs by the generation the engine's figure was measured on: compute capability 10+, 9.x, else Ampere's; NVFP4
 * experts on Blackwell take the engine's FP4 MoE kernel's figure where it has one.
 */
export function moeCallLatency(fw: FrameworkProfile, cc: number, nvfp4 = false): number {
  const l = fw.moeCallSeconds;
  if (l === undefined) return 0;
  if (cc >= 10) return nvfp4 ? (l.blackwellNvfp4 ?? l.blackwell) : l.blackwell;
  return cc >= 9 ? l.hopper : l.ampere;
}

/**
 * Seconds a decode step adds for its MoE layers' fused-expert calls beyond their bytes and kernel gaps.
 * `layerBytesSeconds`: one MoE layer's routed-expert bytes on one GPU at the modelled bandwidth.
 */
export function moeCallSeconds(
  latency: number,
  moeLayers: number,
  layerBytesSeconds: number,
): number {
  if (latency <= 0 || moeLayers <= 0) return 0;
  // Fades linearly with the call's bytes (the A100 table above), zero at 20x the latency.
  const FADE = 20;
  return moeLayers * latency * Math.max(0, 1 - layerBytesSeconds / (FADE * latency));
}
