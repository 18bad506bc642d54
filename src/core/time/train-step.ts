/** A training step's seconds by phase from its work and the GPU's rates, and what bounds it. */
import { groupLink, matmulRate, type GpuRates } from './hardware.js';
import { TRAIN_PHASES } from './model-facts.js';
import type { Bound, TrainPhase } from './model-facts.js';
import {
  EAGER_OP_SECONDS,
  SYNCED_LOOP_OP_SECONDS,
  FP32_ATTN_SHARE,
  GRAPH_KERNEL_SECONDS,
  GRAPH_TRAIN_KERNEL_FACTOR,
  LAST_BUCKET_BYTES,
  STEP_OVERHEAD_SECONDS,
} from './train-work.js';
import type { TrainWork } from './train-work.js';
import {
  ALLREDUCE_LATENCY_NVLINK,
  ALLREDUCE_LATENCY_PCIE,
  collectiveLatency,
  NCCL_SM_SHARE,
} from './nccl-ring.js';
import { FLOAT8_GEMM_SPEEDUP } from '../kernels/float8.js';
import { bnbDequantSlowdown, int8ForwardExtraSeconds } from './bnb-dequant.js';
import { groupedMmFallback } from './grouped-mm.js';
import { GROUPED_MM_GROUP_SECONDS } from './grouped-mm-cost.js';
import { groupedExpertRate } from './grouped-mm-rate.js';
import { groupedTileSharesOf } from './grouped-mm-tiles.js';
import { pagedMigrationSeconds } from './paged-migration.js';
import { DOUBLE_FIELD } from '../double-field.js';
import { ringLatencyAcrossNodes, type RingCollective } from './nccl-ring.js';
import { socketCappedRing } from './pcie-sockets.js';
import { ringExposedSeconds } from './train-ring-attention.js';

/** Result of one step: seconds by phase and the bound. */
export interface StepTime {
  stepSeconds: number;
  /** Seconds per step by phase, TRAIN_PHASES order. */
  phases: Float64Array;
  bound: Bound;
}

const PH = Object.fromEntries(TRAIN_PHASES.map((p, i) => [p, i])) as Record<TrainPhase, number>;

/**
 * Seconds per optimizer step on one GPU type. `phases` (length TRAIN_PHASES) is filled when given (the
 * planner passes none and reads only the total: no allocation per candidate).
 */
/** Per-micro-batch times of one training step (scratch reused across calls: the search loop is hot). */
interface StepTimes {
  gemm: number;
  attnRate: number;
  fwdGpu: number;
  /** The host side of a forward and a backward pass: their dispatch and ZeRO hooks, outside a per-expert loop. */
  fwdHost: number;
  bwdHost: number;
  fwd: number;
  bwdGpu: number;
  bwd: number;
  rec: number;
  deq: number;
  /** Of deq, bitsandbytes' 4-bit host dispatch the GPU waits for (exposedBnb4Host). */
  deqHost: number;
  /** LLM.int8's forward matmuls beyond a 16-bit GEMM (bnb-dequant.ts int8ForwardExtraSeconds). */
  int8: number;
  compute: number;
  dpLink: number;
  gatherT: number;
  perMicroComm: number;
  exposedMicro: number;
  exposedStep: number;
  /** The gradient-norm clip's scalar all-reduces a step, in series with the optimizer (TrainWork.gradClipAllReduces). */
  clipNorm: number;
  tpT: number;
  /** Training EP's all-to-alls per micro-batch: in series with the MoE layers' compute (train-expert-parallel.ts). */
  epT: number;
  /**
   * Ulysses' all-to-alls (train-sequence-parallel.ts) or a context-parallel ring's exposed exchanges
   * (train-ring-attention.ts) per micro-batch, on the compute stream.
   */
  spT: number;
  offExposed: number;
  zeroGather: number;
  bubble: number;
  opt: number;
  hostOpt: number;
  /** Spilled paged optimizer states migrated over the host link (paged-migration.ts). */
  paged: number;
  /** torch._grouped_mm's per-group fallback beyond the experts' GPU work, forward and backward (grouped-mm.ts). */
  fallbackF: number;
  fallbackB: number;
  /** FSDP2's copy-outs and reduce-scatter copy-in per micro-batch, on the compute stream (fsdp2-copies.ts). */
  copyGather: number;
  copyReduce: number;
}

// Every field is written before it is read; DOUBLE_FIELD makes them double fields from the start.
const scratch: StepTimes = {
  gemm: DOUBLE_FIELD,
  attnRate: DOUBLE_FIELD,
  fwdGpu: DOUBLE_FIELD,
  fwdHost: DOUBLE_FIELD,
  bwdHost: DOUBLE_FIELD,
  fwd: DOUBLE_FIELD,
  bwdGpu: DOUBLE_FIELD,
  bwd: DOUBLE_FIELD,
  rec: DOUBLE_FIELD,
  deq: DOUBLE_FIELD,
  deqHost: DOUBLE_FIELD,
  int8: DOUBLE_FIELD,
  compute: DOUBLE_FIELD,
  dpLink: DOUBLE_FIELD,
  gatherT: DOUBLE_FIELD,
  perMicroComm: DOUBLE_FIELD,
  exposedMicro: DOUBLE_FIELD,
  exposedStep: DOUBLE_FIELD,
  clipNorm: DOUBLE_FIELD,
  tpT: DOUBLE_FIELD,
  epT: DOUBLE_FIELD,
  copyGather: DOUBLE_FIELD,
  copyReduce: DOUBLE_FIELD,
  spT: DOUBLE_FIELD,
  offExposed: DOUBLE_FIELD,
  zeroGather: DOUBLE_FIELD,
  bubble: DOUBLE_FIELD,
  opt: DOUBLE_FIELD,
  hostOpt: DOUBLE_FIELD,
  paged: DOUBLE_FIELD,
  fallbackF: DOUBLE_FIELD,
  fallbackB: DOUBLE_FIELD,
};

/**
 * Seconds of one call of torch._grouped_mm's per-group fallback on this GPU (0 where PyTorch runs its grouped
 * kernel): the offsets copy (the stream drains first: a synced op) and one matmul per group issued in turn. The
 * experts' GPU work runs under a pass's calls, so each pass's expert part takes the longer of the two. A number,
 * not a pair: the search times every candidate through here.
 */
function fallbackCallSeconds(w: TrainWork, r: GpuRates): number {
  const g = w.groupedMm;
  if (g.fwdCalls === 0 || !groupedMmFallback(r.cc, w.groupedMmBf16)) return 0;
  return SYNCED_LOOP_OP_SECONDS + g.groups * GROUPED_MM_GROUP_SECONDS;
}

/**
 * The recompute of one micro-batch: the checkpointed layers' forward again under full checkpointing (`layersFwd`);
 * under selective, the engine's shares of the layers' attention, GEMMs (`layersGemm`: their seconds) and elementwise
 * traffic (TrainWork.selAttn...). The output layer and the loss sit outside every checkpointed region
 * (TrainWork.headFwdFlops): neither runs again.
 */
function recomputeSeconds(
  w: TrainWork,
  layersFwd: number,
  layersGemm: number,
  attnRate: number,
  mem: number,
): number {
  if (!w.recomputeAttnOnly) return w.recompute * layersFwd;
  return (
    (w.selAttn * w.fwdAttnFlops) / attnRate +
    w.selGemm * layersGemm +
    (w.selElem * (w.fwdElemBytes - w.lossElemBytes)) / mem
  );
}

/**
 * One forward pass from its GPU seconds `gpu`: the longer of them and the host's dispatch (`host`); where an MoE loop
 * or the grouped-mm fallback runs (`looped`), the experts' GPU work (`expertGpu`) takes the longer of it and their
 * calls (`calls`) and the synced loop's seconds (`loop`) add, as the rest runs beside the host.
 */
function forwardPassSeconds(
  gpu: number,
  host: number,
  looped: boolean,
  expertGpu: number,
  calls: number,
  loop: number,
): number {
  if (!looped) return Math.max(gpu, host);
  return Math.max(gpu - expertGpu, host) + Math.max(expertGpu, calls) + loop;
}

/** FLOP/s of the step's matmuls: fp32, bf16 on a card without bf16 tensor cores (emulated), else the 16-bit rate. */
const gemmRate = (w: TrainWork, r: GpuRates): number => matmulRate(r, w.fp32, w.bf16);

/**
 * FLOP/s of attention. Without bf16 tensor cores SDPA has no bf16 kernel (aten/src/ATen/native/transformers/cuda/
 * sdp_utils.cpp can_use_mem_efficient_attention: less_than_sm80_mem_efficient_dtypes is half and float; flash needs
 * sm_80): bf16 attention runs the math path, as fp32's does, at the emulated matmul rate. SDPA's cuDNN backend
 * (TrainWork.cudnnAttn) runs at the card's cuDNN rate where one is sourced (GpuRates.attnCudnn).
 */
function attentionRate(w: TrainWork, r: GpuRates): number {
  if (w.fp32) return r.gemm32 * FP32_ATTN_SHARE;
  const emulated = w.bf16 ? r.gemmBf16Emulated : undefined;
  if (emulated !== undefined) return emulated * FP32_ATTN_SHARE;
  return w.cudnnAttn && r.attnCudnn !== undefined ? r.attnCudnn : r.attn * w.attnShare;
}

/**
 * The part of bitsandbytes' 4-bit host dispatch (TrainWork.bnb4HostSeconds) the GPU waits for. Its ops are launched
 * like the layers' own: dequantize_4bit and the matmul queue their kernels and return without a sync
 * (bitsandbytes-foundation/bitsandbytes@0.41.1 bitsandbytes/functional.py `dequantize_4bit`,
 * autograd/_functions.py `MatMul4Bit`), and CUDA runs them asynchronously to the host (PyTorch "CUDA semantics",
 * asynchronous execution). So each pass's dispatch hides under the GPU work that pass queues beyond its host time
 * (`fwdSlack`, `bwdSlack`: the pass's time less its host time) and under the pass's dequantization kernels
 * (`deqGpu`, spread over the passes); only the rest adds to the step.
 */
function exposedBnb4Host(w: TrainWork, deqGpu: number, fwdSlack: number, bwdSlack: number): number {
  if (w.bnb4HostSeconds === 0) return 0;
  const fwdPasses = 1 + w.recompute;
  const passes = fwdPasses + 1;
  const host = w.bnb4HostSeconds / passes;
  const gpu = deqGpu / passes;
  return (
    fwdPasses * Math.max(0, host - gpu - Math.max(0, fwdSlack)) +
    Math.max(0, host - gpu - Math.max(0, bwdSlack))
  );
}

/**
 * Dequantization of one micro-batch, its host share exposed past the passes' slack (`fwdSlack`, `bwdSlack`) and the
 * int8 matmuls' extra into `s`: bitsandbytes' tree kernel (before 0.48) and its lookup kernel run 4-bit passes slower
 * than the memory rate on some GPUs, and its int8 matmul is slower than a 16-bit GEMM (bnb-dequant.ts).
 */
function dequantTimes(
  w: TrainWork,
  r: GpuRates,
  gemm: number,
  fwdSlack: number,
  bwdSlack: number,
  s: StepTimes,
): number {
  s.int8 = int8ForwardExtraSeconds(w.int8ForwardFlops, w.tokens, r, gemm, w.shape);
  const deqGpu =
    (w.dequantBytes + w.bnb4DequantBytes * (bnbDequantSlowdown(r.cc, w.bnbTreeDequant) - 1)) /
    r.mem;
  s.deqHost = exposedBnb4Host(w, deqGpu, fwdSlack, bwdSlack);
  return deqGpu + w.dequantSeconds + s.deqHost + s.int8;
}

/** Routed-expert GEMMs at their shape and grouped rate (grouped-mm-rate.ts); fp32 experts at the fp32 rate. */
const expertRateOf = (w: TrainWork, r: GpuRates, base: number): number =>
  (w.expertFp32 ? r.gemm32 : groupedExpertRate(w, r, base)) * w.expertShape;

/**
 * The routed experts' GEMMs of one micro-batch, forward and backward, each at least the read of the experts' weights:
 * at `expertRateOf`, the forward and the input gradient at the row-tile share, the weight gradient (the backward's
 * FLOPs beyond the forward's, where the experts' weights train) at its K-tile share (grouped-mm-tiles.ts).
 */
function expertGemmSeconds(w: TrainWork, r: GpuRates, base: number): { f: number; b: number } {
  const rate = expertRateOf(w, r, base);
  const tiles = groupedTileSharesOf(w, r.cc);
  const floor = w.expertWeightBytes / r.mem;
  const b = w.expertBwdFlops;
  const wg = b > 0 ? Math.max(0, b - w.expertFwdFlops) / b : 0;
  return {
    f: Math.max(w.expertFwdFlops / rate / tiles.rows, floor),
    b: Math.max((b * ((1 - wg) / tiles.rows + wg / tiles.weightGrad)) / rate, floor),
  };
}

/** ParamWrapper's ΔW (an einsum over the rank: low arithmetic intensity) and W + ΔW: FLOPs or bytes. */
const deltaSeconds = (flops: number, bytes: number, base: number, mem: number): number =>
  Math.max(flops / base, bytes / mem);

/** Forward, backward, recompute and dequantization of one micro-batch. */
function computeTimes(w: TrainWork, r: GpuRates, s: StepTimes): void {
  const base = gemmRate(w, r);
  const gemm = base * w.shape;
  const attnRate = attentionRate(w, r);
  const { f: expertF, b: expertB } = expertGemmSeconds(w, r, base);
  const deltaF = deltaSeconds(w.deltaFwdFlops, w.deltaFwdBytes, base, r.mem);
  const deltaB = deltaSeconds(w.deltaBwdFlops, w.deltaBwdBytes, base, r.mem);
  // FP8 training: the converted linears' matmuls at the 8-bit rate, plus their casts (time/float8.ts).
  const f8Gemm = gemm * (r.fp8 ? FLOAT8_GEMM_SPEEDUP : 1);
  const f8 = w.f8;
  const f8F = f8.fwdFlops / f8Gemm - f8.fwdFlops / gemm + f8.castFwdBytes / r.mem;
  const f8B = f8.bwdFlops / f8Gemm - f8.bwdCounted / gemm + f8.castBwdBytes / r.mem;
  const a32 = w.adapterFp32Flops / r.gemm32 - w.adapterFp32Flops / gemm; // TrainWork.adapterFp32Flops
  const fwdGemm = (w.fwdGemmFlops - w.expertFwdFlops) / gemm + f8F + expertF + deltaF + a32;
  // A context-parallel ring's fp32 merges run beside each forward's attention (train-ring-attention.ts).
  const loopRowF = w.moeLoopRowFwdBytes / r.mem;
  const fwdGpu =
    fwdGemm +
    w.fwdAttnFlops / attnRate +
    (w.fwdElemBytes + w.adapterFwdBytes + w.ring.fwdBytes) / r.mem +
    loopRowF;
  // CPU dispatch runs ahead of the GPU; a pass takes the longer of the two. An MoE loop syncs per expert in forward
  // (torch.nonzero): its dispatch adds to the experts' work (GEMMs, `loopRowF`: moe-loop-traffic.ts) rather than
  // hide behind it, as do the experts' own ZeRO hooks, which run eager whatever compiles (time/zero-hooks.ts).
  const loopOpsF = w.moeLoopOps * SYNCED_LOOP_OP_SECONDS;
  const loopF = loopOpsF + w.zeroHookLoopOps * SYNCED_LOOP_OP_SECONDS + w.zeroHookLoopSeconds;
  const fwdHost = forwardHostSeconds(w);
  const call = fallbackCallSeconds(w, r);
  const fbF = call === 0 ? 0 : w.groupedMm.fwdCalls * call;
  const fbB = call === 0 ? 0 : w.groupedMm.bwdCalls * call;
  const looped = w.moeLoopOps > 0 || fbF > 0;
  const fwd = forwardPassSeconds(fwdGpu, fwdHost, looped, expertF + loopRowF, fbF, loopF);
  // The recompute re-runs the checkpointed layers: not the output layer nor the loss (TrainWork.headFwdFlops).
  const headGemm = w.headFwdFlops / gemm;
  const layersGpu = fwdGpu - headGemm - w.lossElemBytes / r.mem;
  const layersFwd = forwardPassSeconds(layersGpu, fwdHost, looped, expertF + loopRowF, fbF, loopF);
  const bwdGpu =
    (w.bwdGemmFlops - w.expertBwdFlops) / gemm +
    f8B +
    expertB +
    deltaB +
    2 * a32 +
    w.bwdAttnFlops / attnRate +
    (2 * (w.fwdElemBytes - w.lossElemBytes) +
      w.lossBwdBytes +
      w.adapterBwdBytes +
      w.moeLoopBwdBytes +
      w.moeLoopRowBwdBytes +
      w.ring.bwdBytes +
      w.gradHookCopyBytes) /
      r.mem;
  const loopHostB =
    (2 * w.moeLoopOps + w.zeroHookLoopBwdOps) * EAGER_OP_SECONDS + w.zeroHookLoopBwdSeconds;
  const bwdHost = backwardHostSeconds(w);
  // ZeRO-3 keeps few collectives in flight: fetch_sub_module waits on its oldest fetch event past
  // __max_ongoing_fetch_events (2) and the gradient path on its oldest reduce event past max_param_reduce_events
  // (2) (partitioned_param_coordinator.py, stage3.py; DeepSpeed v0.16.5). The host runs at most a few modules
  // ahead, so a loop's host-heavy experts cannot borrow the GPU-heavy layers' time: each part takes its longer side.
  const loopGpuB = expertB + (w.moeLoopBwdBytes + w.moeLoopRowBwdBytes) / r.mem;
  const bwd =
    w.zeroHookLoopBwdOps > 0
      ? Math.max(bwdGpu - loopGpuB, bwdHost - loopHostB) + Math.max(loopGpuB, loopHostB)
      : fbB > 0
        ? Math.max(bwdGpu - expertB, bwdHost) + Math.max(expertB, fbB)
        : Math.max(bwdGpu, bwdHost);
  const rec =
    recomputeSeconds(w, layersFwd, fwdGemm - headGemm, attnRate, r.mem) + w.tiledMlpFlops / gemm;
  // The loss's forward-only traffic joins the forward after the recompute is taken from it (TrainWork).
  const lossFwd = w.lossHeadGradBytes / r.mem + w.lossChunkExtraFlops / gemm;
  const deq = dequantTimes(w, r, gemm, fwd - fwdHost, bwd - bwdHost, s);
  s.gemm = gemm;
  s.attnRate = attnRate;
  s.fwdGpu = fwdGpu;
  s.fwdHost = fwdHost;
  s.bwdHost = bwdHost - loopHostB;
  s.fwd = fwd + lossFwd;
  s.bwdGpu = bwdGpu;
  s.bwd = bwd;
  s.rec = rec;
  s.deq = deq;
  s.compute = fwd + lossFwd + bwd + rec + deq;
  s.fallbackF = Math.max(0, fbF - expertF);
  s.fallbackB = Math.max(0, fbB - expertB);
}

// Passes of a micro-batch that issue ZeRO-3's all-gathers: forward and recompute under full recompute (backward finds
// the recompute's parameters still gathered), forward and backward without (DeepSpeed's own code counted at
// deepspeedai/DeepSpeed@v0.14.4 by scripts/measure/zero3-collectives.py: calibration/measured/zero3-collectives-cpu.json,
// https://github.com/deepspeedai/DeepSpeed/blob/v0.14.4/deepspeed/runtime/zero/partitioned_param_coordinator.py).
const ZERO3_GATHER_PASSES = 2;

/** The data-parallel group's link (dataParallelLink): bus bandwidth (bytes/s) and collective latencies (s). */
export interface DpLink {
  link: number;
  latency: number;
  allReduceLatency: number;
}

/** dataParallelLink's scratch for the step's own calls (double fields from the start: core/double-field.ts). */
const LINK: DpLink = { link: DOUBLE_FIELD, latency: DOUBLE_FIELD, allReduceLatency: DOUBLE_FIELD };
const FETCH = { gather: DOUBLE_FIELD, copy: DOUBLE_FIELD };

/**
 * The data-parallel group's bus bandwidth (bytes/s) and a collective's latency (s): `latency` a reduce-scatter's or
 * all-gather's, `allReduceLatency` an all-reduce's. Inside one node the measured small-message latency; a group over
 * several nodes adds the ring steps NCCL's tuner prices for it (nccl-ring.ts). Written into `out` (the search times
 * every feasible candidate's step through here: the step's own calls pass one scratch and allocate nothing).
 */
export function dataParallelLink(
  w: Pick<TrainWork, 'gpus' | 'zeroRanks' | 'tp' | 'pp'>,
  r: GpuRates,
  out: DpLink = { link: 0, latency: 0, allReduceLatency: 0 },
): DpLink {
  const multiNode = w.gpus > r.gpusPerNode;
  const dpGroupInNode = Math.min(
    w.zeroRanks,
    Math.max(1, Math.floor(r.gpusPerNode / (w.tp * w.pp))),
  );
  const ring = dpGroupInNode <= 2 ? r.intraPair : r.intraMany;
  // A PCIe ring over more than one socket's cards crosses the inter-socket link (pcie-sockets.ts).
  const intra = socketCappedRing(ring, dpGroupInNode, r.socketLink);
  // Across nodes NCCL runs one ring/tree channel per NIC (one NIC per GPU on DGX/HGX nodes): every GPU
  // of the node carries 1/k of the crossing traffic, so the group's bus bandwidth is the node's k NICs
  // together, capped by the intra-node links (nccl-tests bus bandwidth,
  // https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md; DGX A100 8x HDR ~ 180 GB/s busbw).
  const link = multiNode ? Math.min(intra, r.interNode * dpGroupInNode) : intra;
  // A ring over PCIe (at the host rate, or staged through host memory at half of it where the cards have no P2P,
  // NVIDIA/nccl#1127) or over the network takes the PCIe latency (ALLREDUCE_LATENCY_PCIE, assumed 2x NVLink's).
  const staged = dpGroupInNode <= 2 ? r.peerStaged.pair : r.peerStaged.many;
  const pcie = ring === r.host || staged || link === r.interNode;
  const base = pcie ? ALLREDUCE_LATENCY_PCIE : ALLREDUCE_LATENCY_NVLINK;
  out.link = link;
  out.latency = base + acrossNodes('scatter', w.zeroRanks, dpGroupInNode, multiNode, pcie);
  out.allReduceLatency =
    base + acrossNodes('all-reduce', w.zeroRanks, dpGroupInNode, multiNode, pcie);
  return out;
}

/** The ring steps a collective of the group adds across nodes (nccl-ring.ts), 0 within one node. */
const acrossNodes = (
  c: RingCollective,
  dp: number,
  inNode: number,
  multiNode: boolean,
  pcie: boolean,
): number => (multiNode ? ringLatencyAcrossNodes(c, dp, inNode, !pcie) : 0);

/** Communication and host transfers of a step, and what of them compute does not hide. */
function commTimes(w: TrainWork, r: GpuRates, s: StepTimes): void {
  const { link: dpLink, latency, allReduceLatency } = dataParallelLink(w, r, LINK);
  // ZeRO-3 gathers: prefetched one unit ahead, hidden behind that micro-batch's compute except what exceeds it. Each
  // collective holds the stream for its latency besides its bytes (NCCL's own time model: latency + bytes / bus
  // bandwidth, tuning.cc ncclTopoGetAlgoTime at NVIDIA/nccl v2.20.5-1), in the two passes that issue them.
  const gatherT = w.gatherBytes / dpLink + ZERO3_GATHER_PASSES * w.zeroGathers * latency;
  // Under overlap_comm false ZeRO-3 reduce-scatters each full bucket on the compute stream (stage3.py
  // __reduce_and_partition_ipg_grads, DeepSpeed v0.14.4): each call's fixed NCCL latency (`latency`; NCCL's own
  // tuner prices a 4-8 KB ring all-reduce at 25.9-26.5 µs, NVIDIA/nccl#1453) sits in series with backward besides its
  // bytes.
  const reduceLatency = w.serialComm ? w.zeroReduces * latency : 0;
  // torch FSDP's division passes run on the stream the reduce-scatter waits on, in series with it (fsdp-grad-divide.ts).
  const gradT = w.gradReduceBytes / dpLink + reduceLatency + w.gradDivideBytes / r.mem;
  const perMicroComm = gatherT + (w.gradReducePerMicro ? gradT : 0);
  // A forward whose gathers wait for the unit before them (TrainWork.fwdGatherSerial, fsdp-unshard-order.ts
  // forwardGathersInSeries): that pass's gathers add to the step, and its compute hides none of the other passes'
  // collectives (FSDP's backward waits for its reduce-scatters before the step ends: _post_backward_final_callback).
  // A backward whose own gather of each unit waits alone (TrainWork.bwdGatherSerial) adds one pass more; its compute
  // still hides the recompute's gathers and the reduce-scatters.
  const passGatherT = w.gatherPassBytes / dpLink + w.zeroGathers * latency;
  const serialGatherT =
    (w.fwdGatherSerial ? passGatherT : 0) + (w.bwdGatherSerial ? passGatherT : 0);
  // What compute does not hide, plus what hiding costs: NCCL kernels run on SMs, so while a collective
  // overlaps compute it slows that compute by the SMs it holds (NCCL_SM_SHARE).
  const busy = (w.fwdGatherSerial ? 0 : s.fwd) + s.bwd + s.rec;
  // Gradient reduces issued from the compute stream and waited on at once (overlap_comm false) hold the
  // backward behind them; the rest overlaps as usual.
  const serialT = (w.serialComm && w.gradReducePerMicro ? gradT : 0) + serialGatherT;
  const overlapT = perMicroComm - serialT;
  s.exposedMicro =
    serialT +
    Math.max(0, overlapT - busy) +
    (w.gatherBytes > 0 ? gatherT / w.layers : 0) +
    Math.min(overlapT, busy) * NCCL_SM_SHARE;
  // DDP: one all-reduce per step, overlapped with the last micro-batch's backward except the last bucket (under
  // torch DDP it also holds the input embedding's gradient, ready only when backward ends: lastBucketEmbedBytes).
  const stepComm = w.gradReducePerMicro ? 0 : gradT;
  s.exposedStep =
    w.gradReduceBytes > 0 && !w.gradReducePerMicro
      ? Math.max(0, stepComm - s.bwd) +
        Math.min(stepComm, (LAST_BUCKET_BYTES + w.lastBucketEmbedBytes) / dpLink) +
        allReduceLatency +
        Math.min(stepComm, s.bwd) * NCCL_SM_SHARE
      : 0;
  // The clip's norm all-reduces: a few bytes each, so their latency alone (NCCL's latency + bytes / bandwidth).
  s.clipNorm = w.gradClipAllReduces * allReduceLatency;
  const tpLink = groupLink(w.tp, r);
  s.tpT = w.tpBytes / tpLink + w.tpCalls * ALLREDUCE_LATENCY_NVLINK;
  // The all-to-alls' link and latency as the DP-attention token exchange of serving picks them (expert-parallel.ts
  // gatherSeconds); NCCL's all-to-all bus bandwidth is its bytes x (n - 1) / n over time (nccl-tests PERFORMANCE.md).
  const epLink = w.ep.group > r.gpusPerNode ? r.interNode : r.intraMany;
  const epLatency = collectiveLatency(epLink, r);
  s.epT = w.ep.bytes > 0 ? w.ep.bytes / epLink + w.ep.calls * epLatency : 0;
  // Ulysses' all-to-alls or a ring's exchanges over the cp group (consecutive ranks, parallel_state_sp.py; torchtitan's
  // mesh puts cp inside dp), picked as the EP group's are.
  const cpGroup = Math.max(w.sp.group, w.ring.group);
  const spLink = groupLink(cpGroup, r);
  const spLatency = collectiveLatency(spLink, r);
  s.spT = w.sp.bytes > 0 ? w.sp.bytes / spLink + w.sp.calls * spLatency : 0;
  // A ring's K/V gathers and dk/dv sends over the same cp group, what its attention blocks leave exposed.
  s.spT += ringExposedSeconds(
    w.ring,
    w.fwdAttnFlops / s.attnRate,
    w.bwdAttnFlops / s.attnRate,
    spLink,
    spLatency,
  );
  s.offExposed = offloadExposed(w, r, s);
  s.dpLink = dpLink;
  s.gatherT = gatherT;
  s.perMicroComm = perMicroComm;
  s.zeroGather = w.paramGatherAfterStep / dpLink;
}

/**
 * Host copies of CPU offload that compute does not hide, per micro-batch. Each pass (forward, backward,
 * recompute) overlaps its own copies; FSDP prefetches one unit ahead (backward_prefetch BACKWARD_PRE, the
 * pre-forward unshard of the next unit once the CPU runs ahead; https://pytorch.org/docs/stable/fsdp.html),
 * so the first unit's copy of every pass waits with nothing to hide behind. Copies to and from the device run
 * on separate copy engines over the two directions of the link (CUDA C++ Programming Guide, "Concurrent Data
 * Transfers": asyncEngineCount 2), so a pass takes the longer direction, never their sum. Where the parameter
 * copies block the thread that issues the compute (DeepSpeed's, FrameworkProfile.zeroHooks.blockingParamCopies)
 * that thread's pass is its dispatch and hooks plus the copies, so a pass takes the longer of the GPU's work and
 * that; FSDP's copies are issued non_blocking and only the link holds them. Parameter copies run at the pinned
 * rate or, from pageable memory, at its share (TrainWork.offloadCopyShare); gradient copies to the host likewise
 * (TrainWork.offloadGradCopyShare).
 */
function offloadExposed(w: TrainWork, r: GpuRates, s: StepTimes): number {
  if (w.offloadBytes === 0) return 0;
  const c = w.offloadParamPassBytes / (r.host * w.offloadCopyShare);
  const first = c / w.layers;
  const act = w.offloadActBytes / r.host;
  // Reloads in series with the backward (offload-work.ts serialReloadBytes) add whole; the rest overlap the pass.
  const serial = w.offloadActSerialBytes / r.host;
  const grad = w.offloadGradBytes / (r.host * w.offloadGradCopyShare);
  // DeepSpeed's backward reuses the recompute's fetches it kept (offload-work.ts): the passes beyond two copy again.
  const bwdC = w.recompute === 0 ? c : Math.max(0, w.offloadPasses - 2) * c;
  const recC = w.recompute > 0 ? c : 0;
  // A blocking copy also waits behind the pass's own dispatch and hooks (0 where the copies are asynchronous).
  const held = (host: number, copy: number) => (w.offloadCopyBlocks && copy > 0 ? host : 0);
  const lead = (copy: number) => (copy > 0 ? first : 0);
  const fwd = lead(c) + Math.max(0, Math.max(held(s.fwdHost, c) + c, act) - s.fwd);
  const bwd =
    lead(bwdC) +
    Math.max(0, Math.max(held(s.bwdHost, bwdC) + bwdC + (serial > 0 ? 0 : act), grad) - s.bwd) +
    serial;
  const rec =
    recC > 0 ? first + Math.max(0, held(w.recompute * s.fwdHost, recC) + recC - s.rec) : 0;
  return fwd + bwd + rec;
}

/**
 * Seconds one pass over the policy's parameters spends reaching the GPU, by way: `gather`, the all-gather of every
 * ZeRO-3 / FSDP shard over the data-parallel link with its launches' latency; `copy`, the host-to-device copy of the
 * offloaded shards at the pinned (or pageable) rate. Read by forwardFetchSeconds and the trainer's fetches
 * (trainer-fetch.ts passFetchSeconds). Filled into one scratch object, read at once (no allocation on the search path).
 */
export function passFetchParts(w: TrainWork, r: GpuRates): { gather: number; copy: number } {
  const { link, latency } = dataParallelLink(w, r, LINK);
  FETCH.gather = w.gatherPassBytes / link + w.zeroGathers * latency;
  FETCH.copy = w.offloadParamPassBytes / (r.host * w.offloadCopyShare);
  return FETCH;
}

/**
 * Seconds a further forward of the trained model over the step's micro-batches (`forward`: that pass's compute,
 * the step's forward phase) waits on fetching its parameters: a no-grad pass through the same wrapped modules (a
 * reference with the adapters disabled, old log-probs) gathers every ZeRO-3 / FSDP FULL_SHARD unit and copies every
 * offloaded shard to the device again, as the policy's forward does: the pre-forward hooks fetch whether or not
 * grad is enabled (deepspeed/runtime/zero/parameter_offload.py pre_sub_module_forward_function: a forward pre-hook
 * that runs fetch_sub_module(sub_module, forward=True); torch/distributed/fsdp/_runtime_utils.py _pre_forward:
 * _pre_forward_unshard). Priced as the policy's own forward pass is (commTimes, offloadExposed), without
 * activation copies (no grad, nothing saved).
 */
export function forwardFetchSeconds(w: TrainWork, r: GpuRates, forward: number): number {
  if (w.gatherPassBytes === 0 && w.offloadParamPassBytes === 0) return 0;
  const fwd = forward / w.microBatches;
  const { gather: g, copy: c } = passFetchParts(w, r);
  const gather = g > 0 ? g / w.layers + Math.max(0, g - fwd) + Math.min(g, fwd) * NCCL_SM_SHARE : 0;
  // A blocking copy waits behind the pass's own dispatch and hooks (offloadExposed).
  const held = w.offloadCopyBlocks ? forwardHostSeconds(w) : 0;
  const copy = c > 0 ? c / w.layers + Math.max(0, held + c - fwd) : 0;
  // FSDP2 copies each gathered unit out on the compute stream (fsdp2-copies.ts).
  return w.microBatches * (gather + copy + w.fsdpCopyPassBytes / r.mem);
}

/** Host seconds of one forward pass outside a per-expert loop: its dispatch and ZeRO hooks (computeTimes). */
function forwardHostSeconds(w: TrainWork): number {
  const hookF = w.zeroHookFwdOps * EAGER_OP_SECONDS + w.zeroHookFwdSeconds;
  return (w.fwdOps + w.adapterFwdOps) * hostPerOpOf(w) + hookF;
}

/** Host seconds of one backward pass: its dispatch (two ops a forward op), an MoE loop's and the ZeRO hooks' ops. */
function backwardHostSeconds(w: TrainWork): number {
  const bwdOps = 2 * w.fwdOps + w.adapterBwdOps;
  const loopOps = 2 * w.moeLoopOps + w.zeroHookBwdOps;
  return bwdOps * hostPerOpOf(w) + loopOps * EAGER_OP_SECONDS + w.zeroHookBwdSeconds;
}

/** Host seconds to dispatch one op: eager, or a graph kernel's where the step compiles. */
const hostPerOpOf = (w: TrainWork): number =>
  w.compiled ? GRAPH_KERNEL_SECONDS * GRAPH_TRAIN_KERNEL_FACTOR : EAGER_OP_SECONDS;

/** The seconds of each phase of the step (shares of `total` that the text and JSON show). */
function fillPhases(phases: Float64Array, w: TrainWork, s: StepTimes): void {
  const m = w.microBatches;
  const gatherShare = w.gatherBytes > 0 ? s.gatherT / s.perMicroComm : 0;
  phases.fill(0);
  phases[PH.forward] = m * s.fwd;
  phases[PH.backward] = m * s.bwd;
  phases[PH.recompute] = m * s.rec;
  phases[PH.dequantize] = m * s.deq;
  phases[PH.optimizer] = s.opt + s.hostOpt + s.paged + s.clipNorm;
  phases[PH['gradient-reduce']] =
    s.exposedStep +
    s.zeroGather +
    m * s.copyReduce +
    (w.gradReducePerMicro ? m * Math.max(0, s.exposedMicro - s.exposedMicro * gatherShare) : 0);
  phases[PH['parameter-gather']] =
    m * s.copyGather + (w.gatherBytes > 0 ? m * s.exposedMicro * gatherShare : 0);
  phases[PH['tensor-parallel']] = m * s.tpT;
  phases[PH['expert-parallel']] = m * s.epT;
  phases[PH['sequence-parallel']] = m * s.spT;
  phases[PH['pipeline-bubble']] = s.bubble;
  phases[PH.offload] = m * s.offExposed;
  phases[PH.overhead] = STEP_OVERHEAD_SECONDS;
}

/** What bounds the step: compute, memory, communication or the host. */
function boundOfStep(w: TrainWork, s: StepTimes, total: number): Bound {
  const m = w.microBatches;
  const fwdCompute = w.fwdGemmFlops / s.gemm + w.fwdAttnFlops / s.attnRate;
  const bwdCompute = w.bwdGemmFlops / s.gemm + w.bwdAttnFlops / s.attnRate;
  // The recompute's compute leaves out the output layer's GEMM (TrainWork.headFwdFlops).
  const recCompute = w.recomputeAttnOnly
    ? s.rec
    : w.recompute * (fwdCompute - w.headFwdFlops / s.gemm);
  const computeT = m * (fwdCompute + bwdCompute + recCompute + s.int8);
  const loopOpsF = w.moeLoopOps * SYNCED_LOOP_OP_SECONDS;
  const loopF = loopOpsF + w.zeroHookLoopOps * SYNCED_LOOP_OP_SECONDS + w.zeroHookLoopSeconds;
  const hostT =
    s.hostOpt +
    s.paged +
    m * s.offExposed +
    m * Math.max(0, s.fwdHost - s.fwdGpu) * (loopOpsF > 0 ? 0 : 1) +
    m * (loopF + s.fallbackF) * (1 + (w.recomputeAttnOnly ? 0 : w.recompute)) +
    m * s.fallbackB +
    m * (s.bwd - s.bwdGpu) +
    m * (w.dequantSeconds + s.deqHost);
  const commT =
    m * (s.exposedMicro + s.tpT + s.epT + s.spT) +
    s.bubble +
    s.exposedStep +
    s.zeroGather +
    s.clipNorm;
  const memT = total - computeT - hostT - commT - STEP_OVERHEAD_SECONDS;
  return argmaxBound(computeT, memT, commT, hostT);
}

/**
 * `pagedSpilled`: the paged optimizer states do not all fit on this GPU, so each step migrates them
 * (paged-migration.ts; the caller knows the card and the device figure).
 */
export function trainStep(
  w: TrainWork,
  r: GpuRates,
  phases?: Float64Array,
  bound?: { value: Bound },
  pagedSpilled = false,
): number {
  const s = scratch;
  computeTimes(w, r, s);
  commTimes(w, r, s);
  // FSDP2 copies gathered units out and gradients in on the compute stream: HBM traffic in series with the passes.
  s.copyGather = w.fsdpCopyGatherBytes / r.mem;
  s.copyReduce = w.fsdpCopyReduceBytes / r.mem;
  const copies = s.copyGather + s.copyReduce;
  const perMicro = s.compute + copies + s.exposedMicro + s.tpT + s.epT + s.spT + s.offExposed;
  const m = w.microBatches;
  // 1F1B bubble: (p-1)·(t_f + t_b) of one micro-batch on one stage, (p-1)/m of the ideal pipeline time m·(t_f + t_b)
  // (Narayanan et al. SC'21 §2.2, https://arxiv.org/abs/2104.04473).
  s.bubble = w.pp > 1 ? (w.pp - 1) * (s.compute + copies + s.tpT + s.epT) : 0;
  // A Python optimizer loop issues its kernels as it goes: the step takes the longer of its host and its traffic.
  s.opt = Math.max(w.optimizerBytes / r.mem, w.optimizerHostSeconds);
  const ranksPerNode = Math.min(w.gpus, r.gpusPerNode);
  s.hostOpt = w.optimizerOnHost ? (w.hostOptimizerBytes * ranksPerNode) / w.hostStepBytesPerS : 0;
  s.paged = pagedSpilled ? pagedMigrationSeconds(w, r) : 0;
  const total =
    m * perMicro +
    s.bubble +
    s.opt +
    s.hostOpt +
    s.paged +
    s.clipNorm +
    s.exposedStep +
    s.zeroGather +
    STEP_OVERHEAD_SECONDS;
  if (phases) fillPhases(phases, w, s);
  if (bound) bound.value = boundOfStep(w, s, total);
  return total;
}

export function argmaxBound(compute: number, memory: number, comm: number, host: number): Bound {
  let b: Bound = 'compute';
  let best = compute;
  if (memory > best) [b, best] = ['memory', memory];
  if (comm > best) [b, best] = ['communication', comm];
  if (host > best) b = 'host';
  return b;
}
