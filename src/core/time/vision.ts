/**
 * The vision tower's own time: its forward over every patch of the images (training and prefill), its
 * backward when it is trained or records a graph, and the recomputed forward under checkpointing. Pure.
 */
import type { Arch } from '../model/arch.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import { matmulRate, type GpuRates } from './hardware.js';
import { towerRun } from '../model/vision.js';
import { trainableSet } from '../model/trainable.js';
import { towerMode } from '../memory/vision.js';
import { shapeFactor } from './shape.js';

// FlashAttention backward is 2.5x its forward matmul FLOPs (5 GEMMs vs 2, arXiv:2205.14135 §B), as computeWork.
const ATTN_BWD_FACTOR = 2.5;

/** Seconds and FLOPs of the tower for `seqs` sequences of `o.images` images each, on one GPU. */
export interface TowerTime {
  seconds: number;
  /** FLOPs it runs, recomputation included. */
  flops: number;
  /** Model FLOPs (MFU convention: forward, plus 2x for the backward it needs; no recomputation). */
  modelFlops: number;
}

/**
 * The tower's work: 2 FLOPs per weight per patch forward; backward adds the input gradients (2 per weight)
 * whenever anything before or inside the tower needs a gradient, and the weight gradients (2 more) when it is
 * trained: forward only when frozen, 3x when trained (Kaplan et al. 2020 §2.1 6N; Narayanan et al. 2021 §5.1).
 * Full checkpointing re-runs its forward. The GEMMs run at the 16-bit (or fp32) rate at the patches' shape,
 * attention at the fused-attention rate. Not split by tensor parallelism (transformers runs it whole).
 */
export function towerTime(
  arch: Arch,
  o: EstimateOptions,
  r: GpuRates,
  seqs = o.batch,
): TowerTime | null {
  if (!o.images) return null;
  const run = towerRun(arch, o.images, o.imagePixels);
  if (!run) return null;
  const mode = towerMode(run.group, o, trainableSet(o), arch.vision?.tower?.inputGradHook === true);
  const images = seqs * run.images;
  const gemmFwd = (run.flopsPerImage - run.attnFlopsPerImage) * images;
  const attnFwd = run.attnFlopsPerImage * images;
  const gemmBwd = mode === 'trained' ? 2 : mode === 'frozen' ? 0 : 1;
  const attnBwd = mode === 'frozen' ? 0 : ATTN_BWD_FACTOR;
  const ckpt = o.checkpointing === 'full' || o.checkpointing === 'offload';
  const rec = mode !== 'frozen' && ckpt ? 1 : 0;
  const gemm = gemmFwd * (1 + gemmBwd + rec);
  const attn = attnFwd * (1 + attnBwd + rec);
  const rate = matmulRate(r, o.compute === 'fp32', o.compute === 'bf16');
  const patches = images * run.patchesPerImage;
  return {
    seconds: gemm / (rate * shapeFactor(patches, run.group.hidden)) + attn / r.attn,
    flops: gemm + attn,
    modelFlops: (gemmFwd + attnFwd) * (1 + gemmBwd),
  };
}
