/**
 * The fixed latency of one MoE layer's fused-expert call at small batch: beyond its weight bytes, the routing
 * kernels (top-k, token alignment by expert, the weighted sum) and two grouped GEMMs of a few rows each run
 * latency-bound, one short wave after another. The engine's figure (FrameworkProfile.moeCallSeconds) is the
 * kernel benchmark's batch-1 time less the bytes at the modelled bandwidth and less the kernels' launch gaps the
 * step already counts; it fades as the call's bytes grow, gone once they take 20x that latency at the modelled
 * bandwidth (vllm-project/vllm#19049's A100 table: 37 µs unexplained at batch 1, 31 / 29 / 20 / 8 µs at batch 2 / 4 / 8 / 16,
 * none from 32).
 */
import { isSm100 } from '../compute-capability.js';
import type { FrameworkProfile } from '../memory/framework-profile.js';
import { CDNA_HBM_LATENCY_S, dramLatencySeconds } from './matvec-tail.js';
import type { ModelFacts } from './model-facts.js';
import type { EstimateOptions } from '../../schema/estimate.js';

/**
 * GPUs by the generation the engine's figure was measured on: compute capability 10+, 9.x, else Ampere's; NVFP4
 * experts on Blackwell take the engine's FP4 MoE kernel's figure where it has one, on 10.x its SM100 kernel's first;
 * MXFP4 experts on 10.x the engine's SM100 MXFP4 kernel's where it has one (`fp4`: the FP4 format the step's native
 * FP4 MoE runs, null where it runs none); block-scaled FP8 experts on 10.x that the engine hands to its TensorRT-LLM
 * block-scale MoE (`blockFp8Trtllm`, time/decode-host.ts trtllmMoeBlockFp8) that kernel's where it has one.
 */
export function moeCallLatency(
  fw: FrameworkProfile,
  cc: number,
  fp4: 'nvfp4' | 'mxfp4' | null = null,
  blockFp8Trtllm = false,
): number {
  const l = fw.moeCallSeconds;
  if (l === undefined) return 0;
  const sm100 = isSm100(cc);
  if (sm100 && fp4 === 'mxfp4' && l.sm100Mxfp4 !== undefined) return l.sm100Mxfp4;
  if (sm100 && blockFp8Trtllm && l.sm100BlockFp8 !== undefined) return l.sm100BlockFp8;
  const nvfp4 = fp4 === 'nvfp4';
  if (cc >= 10 && !nvfp4) return l.blackwell;
  if (cc >= 10) return (sm100 ? l.sm100Nvfp4 : undefined) ?? l.blackwellNvfp4 ?? l.blackwell;
  return cc >= 9 ? l.hopper : l.ampere;
}

/** The FP4 format of a weight dtype that a native FP4 MoE kernel runs (moeCallLatency's `fp4`), else null. */
export const nativeFp4 = (w: EstimateOptions['weights']): 'nvfp4' | 'mxfp4' | null =>
  w === 'nvfp4' || w === 'mxfp4' ? w : null;

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

/**
 * Seconds a decode step's 16-bit fused-expert GEMMs take beyond their bytes where a program's K loop is longer than
 * the bytes take. Each program of the Triton fused_moe kernel (`fused_moe_kernel`: one BLOCK_M row block of one
 * expert against one BLOCK_N column block) walks K in blockK steps, its pipeline keeping stages - 1 tiles' loads
 * in flight, so at a few rows a step it takes K / blockK x DRAM latency / (stages - 1) however few bytes it reads
 * (Little's law: rate <= bytes in flight / latency, as matvec-tail.ts's rows). At small batch a GEMM takes the
 * longer of that chain and its bytes at the modelled bandwidth: w13 (K = hidden) and w2 (K = one expert's width
 * on this GPU). A wide-hidden, narrow-expert shard (Qwen3-235B-A22B over TP 8: 64 steps of w13, 3 of w2) is
 * chain-bound at one token; the shape the engine's batch-1 figure was timed at (moeCallSeconds, E=128, N=768,
 * hidden 2048: 32 and 12 steps) is not, on any generation covered. On an AMD Instinct GPU (gfx9) a step waits the
 * CDNA HBM round trip at the depth Triton's HIP backend pipelines (`rocmStages`); other AMD cards are not timed.
 * `layerBytes`: one MoE layer's routed-expert bytes on one GPU this step; `expertWidth`: its experts' width here.
 */
export function fusedMoeChainSeconds(
  m: ModelFacts,
  fw: FrameworkProfile,
  r: { cc: number; mem: number; rocm?: boolean; gfx?: string },
  layerBytes: number,
  expertWidth: number,
): number {
  const tile = fw.fusedMoeTile16;
  if (tile === undefined || m.moeLayers <= 0) return 0;
  const cdna = r.rocm === true && (r.gfx ?? '').startsWith('gfx9');
  const latency =
    r.rocm === true ? (cdna ? CDNA_HBM_LATENCY_S : undefined) : dramLatencySeconds(r.cc);
  const stages = r.rocm === true ? tile.rocmStages : tile.stages;
  if (latency === undefined || stages === undefined || stages < 2) return 0;
  const stepSeconds = latency / (stages - 1);
  // w13 holds the gate and up projections of a gated expert (two of its three matrices), w2 the down projection.
  const w13Share = m.gated ? 2 / 3 : 1 / 2;
  const gemms: readonly [number, number][] = [
    [m.hidden, layerBytes * w13Share],
    [expertWidth, layerBytes * (1 - w13Share)],
  ];
  let extra = 0;
  for (const [k, bytes] of gemms)
    extra += Math.max(0, Math.ceil(k / tile.blockK) * stepSeconds - bytes / r.mem);
  return m.moeLayers * extra;
}
