/** A decode step's tensor-parallel all-reduces, and its mat-vecs (which a row split gathers instead). */
import { FRAMEWORKS } from '../memory/frameworks.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import type { TimeOptions } from '../../schema/time.js';
import type { TwoStageAllReduce } from '../memory/layout-profiles.js';
import type { MatVec } from './matvec-tail.js';
import { rowSplitSeconds } from './row-split.js';
import { groupLink, measuredAllReduceSeconds, type GpuRates } from './hardware.js';
import type { ModelFacts } from './model-facts.js';
import { attentionTpAllReduces, fusedNormKernels, QK_NORM_STAT_BYTES } from './decode-host.js';
import { ALLREDUCE_LATENCY_NVLINK, ALLREDUCE_LATENCY_PCIE } from './nccl-ring.js';
import { embeddingAllReduces, vocabParallelLogitsSeconds } from './vocab-parallel.js';

/** The mat-vecs of one decode step, per layer and the output head (rows x cols, counted per step). */
export function stepMatVecs(m: ModelFacts): MatVec[] {
  const L = m.layers;
  return [
    { rows: m.attnWidth, cols: m.hidden, count: L },
    { rows: m.kvWidth, cols: m.hidden, count: 2 * L },
    { rows: m.hidden, cols: m.attnWidth, count: L },
    { rows: m.ffn, cols: m.hidden, count: m.gated ? 2 * L : L },
    { rows: m.hidden, cols: m.ffn, count: L },
    { rows: m.vocab, cols: m.hidden, count: m.lmHead > 0 ? 1 : 0 },
  ];
}

/**
 * The engine's two-stage all-reduce kernel (FrameworkProfile.twoStageAllReduce) where its custom all-reduce runs it:
 * more than two ranks inside one fully NVLinked node (no socket hop between the cards), off ROCm, and not where the
 * engine fuses the all-reduces with their norms into another library's kernel (decode-host.ts fusedNormKernels).
 */
function twoStageOf(
  m: ModelFacts,
  o: EstimateOptions,
  r: GpuRates,
  t: TimeOptions | undefined,
  tokens: number,
): TwoStageAllReduce | undefined {
  const two = FRAMEWORKS[o.framework].twoStageAllReduce;
  if (two === undefined || o.tp <= 2 || o.tp > r.gpusPerNode) return undefined;
  if (r.rocm || r.socketLink !== undefined) return undefined;
  return fusedNormKernels(m, o, r.cc, t, tokens) > 0 ? undefined : two;
}

/**
 * Megatron TP decode: 2 all-reduces per layer of batch x hidden, each paying the collective's latency: NCCL's,
 * or over NVLink inside a node the engine's own all-reduce where it has one (profile allReduceSeconds). Where the
 * GPU's catalog entry measures the all-reduce over a group of this size on its fabric (GpuRates.allReduce), no call
 * takes less than the measured time at its message size: on MI300X's Infinity Fabric mesh RCCL's bus rate at 1-16 MB
 * is 95-197 GB/s, not the large-message 319 the bus term assumes (the catalog's table), and vLLM before v0.8 had no
 * custom all-reduce on ROCm (vllm/distributed/device_communicators/custom_all_reduce.py @v0.6.3: custom_ar is False
 * "For AMD GPUs"; ROCm support came with vllm-project/vllm#14125). A model whose q/k norm spans every head adds, where
 * the engine's table says so, its statistic's all-reduces (decode-host.ts attentionTpAllReduces), each at that small
 * message. Above its one-stage sizes the engine's custom all-reduce runs its two-stage kernel (twoStageOf). Where the
 * engine's embedding is vocabulary-parallel (FrameworkProfile.vocabParallel) its all-reduce is one more of the hidden
 * state, and the output layer's logits of `logitRows` sequences are gathered after the forward (vocab-parallel.ts).
 */
export function decodeTpSeconds(
  m: ModelFacts,
  o: EstimateOptions,
  B: number,
  r: GpuRates,
  t?: TimeOptions,
  logitRows = B,
): number {
  const tp = o.tp;
  if (tp <= 1) return 0;
  // A row split gathers each split matrix's result on the main GPU instead (row-split.ts).
  const rows = FRAMEWORKS[o.framework].tpRowSplit;
  if (rows) return rowSplitSeconds(rows, stepMatVecs(m), o, B, r);
  const tpLink = groupLink(tp, r);
  const own = FRAMEWORKS[o.framework].allReduceSeconds;
  const latency =
    tpLink === r.host
      ? ALLREDUCE_LATENCY_PCIE
      : own !== undefined && tpLink !== r.interNode
        ? own
        : ALLREDUCE_LATENCY_NVLINK;
  const measured = r.allReduce;
  const timed = measured !== undefined && measured.ranks === tp && tp <= r.gpusPerNode;
  const two = own !== undefined && tpLink === r.intraMany ? twoStageOf(m, o, r, t, B) : undefined;
  const callAt = (bytes: number): number =>
    Math.max(
      (2 * bytes * (tp - 1)) / tp / tpLink + latency,
      timed ? measuredAllReduceSeconds(measured, bytes, tpLink) : 0,
      two !== undefined && bytes >= two.fromBytes(tp) && bytes <= two.maxBytes
        ? two.seconds + (2 * bytes * (tp - 1)) / tp / Math.min(two.busBytesPerSecond, tpLink)
        : 0,
    );
  // The layers' two of the hidden state (and the embedding's), a full-width q/k norm's of its statistic
  // (decode-host.ts), and the logits' gather.
  const qkNorm = attentionTpAllReduces(m, o, r) * callAt(B * QK_NORM_STAT_BYTES);
  const hiddenReduces = 2 * m.layers + embeddingAllReduces(o);
  return (
    hiddenReduces * callAt(B * m.hidden * 2) +
    qkNorm +
    vocabParallelLogitsSeconds(m, o, logitRows, r)
  );
}
