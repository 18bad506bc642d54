/**
 * A decode step's attention: its KV read at the rate the engine's decode-attention backend sustains on the GPU
 * (FrameworkProfile.decodeAttention), and the step's GPU work with the attention kernels apart from the GEMMs.
 *
 * Each layer runs its attention kernel between its QKV and output projections on the one stream, so the KV read
 * cannot hide under the GEMMs' arithmetic: a step whose GEMMs are bound by their FLOPs (large batches) takes the
 * GEMMs' time and then the attention's, not the longer of all FLOPs and all bytes. The attention's own FLOPs (q.K
 * and p.V, 4 x context x query width a token and layer) stay at the step's GEMM rate as before; they fall below the
 * KV bytes' time at decode but for an MLA latent read at 8 bits (a query group's 4 x heads / KV heads FLOPs per
 * cached element).
 *
 * Kernel benchmarks time a decode-attention call as a fixed part plus its bytes at a sustained rate: FlashInfer's
 * batch decode reads at a share of the peak that depends on the call's bytes alone, whatever the batch and the
 * context (its blog's Figures 6 and 9: batch 1, 16 and 64 at equal bytes give equal bandwidth). The sustained rate
 * (the slope) is what this module prices; the fixed part of an isolated call (22-26 µs in FlashInfer's cold-L2
 * nvbench runs, 12 µs in vllm-project/flash-attention#63's batch-1 table, launch included) is taken to be the launch
 * and gap the graph-kernel cost already charges each kernel (engines/graph-kernel.ts; docs/time-model.md "Decode
 * attention kernels").
 */
import type { DecodeAttentionFamily, FrameworkProfile } from '../memory/framework-profile.js';
import { MLA_TWO_PASS_LOGIT_BYTES } from '../memory/decode-feature-kernels.js';
import { MEM_EFF, MEM_EFF_AMD, type GpuRates } from './hardware.js';
import type { ModelFacts } from './model-facts.js';
import { routedExpertRate, stepExpertFlops } from './fp4-bf16-moe.js';
import { tritonMoeRate, tritonPaddedFlops, type TritonMoeStep } from './moe-pad-rows.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import { CDNA_HBM_LATENCY_S } from './matvec-tail.js';
import { releaseNamedBefore } from '../compare-releases.js';
import type { RocmSplitReleases } from '../memory/rocm-paged-decode.js';
import { embedOnly } from './train-work.js';
import { mlaAbsorbedExtraSeconds } from './mla-absorbed.js';

/** A decode-attention backend's sustained KV read, as a share of the card's peak bandwidth, on Ampere and Hopper. */
interface AttentionFamily {
  share: number;
  hopperShare: number;
}

const FAMILIES: Record<DecodeAttentionFamily, AttentionFamily> = {
  // FlashInfer's tensor-core batch decode, Llama-2-70B at TP 2 (32 query and 4 KV heads of 128, fp16), batch 64, 32 to
  // 8192 tokens a request: A100 PCIe 80GB 77% of its 1,935 GB/s at 4096 tokens, 79.5% at 8192; H100 SXM 82.5% and
  // 88.5% of 3,352 GB/s. Between those two points (537 and 1,074 MB a call) a call takes 0.63 µs (A100) and 0.31 µs
  // (H100) more a MB: 0.82 and 0.95 of the peak (https://flashinfer.ai/2024/02/02/introduce-flashinfer.html Figure 9).
  flashinfer: {
    share: 0.82, // on A100, https://flashinfer.ai/2024/02/02/introduce-flashinfer.html Figure 9
    hopperShare: 0.95, // on H100, https://flashinfer.ai/2024/02/02/introduce-flashinfer.html Figure 9
  },
  // FlashAttention-2's split-KV paged decode (vllm_flash_attn, 16-token blocks): Llama-3.1-8B on one H100 SXM, 64
  // sequences of 1024 tokens in and 1024 out, flash_fwd_splitkv_kernel averages 138.797 µs over 32,768 calls (1024
  // steps x 32 layers; vllm-project/vllm#9471, FLASH_ATTN). A call reads 64 x 1536.5 mean tokens x 8 KV heads x 128 x
  // 2 (K, V) x 2 B = 402.8 MB: 2.90 TB/s, 0.87 of 3.35. FA2 has no Hopper-specific path; Ampere is taken alike.
  'flash-attn-2': {
    share: 0.87, // FA2 split-KV decode in vLLM on H100, vllm-project/vllm#9471
    hopperShare: 0.87, // FA2 split-KV decode in vLLM on H100, vllm-project/vllm#9471
  },
};

/**
 * The KV read's rate (bytes a second) of a decode step of model `m` on GPU `r`: the sustained share of the peak of
 * the decode-attention family the engine runs for the model there (FrameworkProfile.decodeAttention), else the
 * card's stream rate (GpuRates.mem). The share scales the same derated rate (ECC, power limit) as the stream rate. On
 * an AMD GPU the engine's own ROCm kernels' share where it gives one (rocmKvReadRate).
 */
export function kvReadRate(
  m: ModelFacts,
  fw: FrameworkProfile,
  r: GpuRates,
  s: { kvBlock?: number; aiter?: boolean; ctx?: number; release?: DecodeRelease } = {},
): number {
  if (r.rocm) return rocmKvReadRate(m, fw, r, s);
  if (r.cc <= 0 || fw.decodeAttention === undefined) return r.mem;
  const family = fw.decodeAttention(m.modelType, m.mla, r.cc);
  if (family === undefined) return r.mem;
  // The figures are of Ampere (8.x) and Hopper (9.x) cards; others keep the stream rate.
  const major = Math.floor(r.cc);
  const share =
    major === 8 ? FAMILIES[family].share : major === 9 ? FAMILIES[family].hopperShare : 0;
  return share > 0 ? r.mem * (share / MEM_EFF) : r.mem;
}

/**
 * The release and loop a decode ran on (TimeOptions.engineVersion, v0Scheduler), where an engine's ROCm kernels differ,
 * and the attention backend the run named (TimeOptions.attentionBackend).
 */
export interface DecodeRelease {
  version?: string;
  v0?: boolean;
  backend?: string;
}

/**
 * Bytes a decode step reads beyond its cache where the engine's MLA decode runs two passes over it for this build
 * (DecodeFeatureKernels.mlaTwoPass): the second pass reads each MLA layer's latent value columns again
 * (ModelFacts.mlaValueShare of the layers' cached bytes, `kvGpu` over the step's attention layers), and the logits the
 * first wrote, one per local query head and cached token, written once and read once. 0 elsewhere.
 */
export function mlaTwoPassBytes(
  m: ModelFacts,
  fw: FrameworkProfile,
  r: GpuRates,
  s: { batch: number; tp: number; ctx: number; kvGpu: number; release?: DecodeRelease },
): number {
  if (!m.mla || m.attnLayers <= 0) return 0;
  const build = {
    ...(s.release?.version === undefined ? {} : { version: s.release.version }),
    ...(s.release?.backend === undefined ? {} : { attentionBackend: s.release.backend }),
  };
  if (fw.decodeFeatureKernels?.(m.modelType, r.cc, r.gfx, build)?.mlaTwoPass !== true) return 0;
  const values = (s.kvGpu * m.mlaValueShare * m.mlaLayers) / m.attnLayers;
  const heads = Math.max(1, m.heads / s.tp);
  return values + 2 * MLA_TWO_PASS_LOGIT_BYTES * heads * m.mlaLayers * s.ctx * s.batch;
}

/** The longest sequence the split kernel takes in release `version` (the latest release's where none is named). */
function splitMaxSeqLen(rel: RocmSplitReleases, version: string | undefined): number {
  const last = rel.maxSeqLen[rel.maxSeqLen.length - 1]?.tokens ?? Infinity;
  if (version === undefined) return last;
  const hit = rel.maxSeqLen.find(
    (e) => e.until !== undefined && releaseNamedBefore(version, e.until),
  );
  return hit?.tokens ?? last;
}

/**
 * Which of the engine's own ROCm decode kernels takes the model's layers (FrameworkProfile.rocmPagedDecode): the
 * split-context HIP kernel where the cache's block size (`kvBlock`, else the engine's default), the head size and the
 * query heads a KV head allow it and the release has it for the step's context (RocmPagedDecode.releases); else, on
 * the engine's pre-V1 loop of a profile with releases, the generic kernel with one workgroup a query head
 * ('perHead'); else the Triton kernel.
 */
function rocmDecodeKernel(
  m: ModelFacts,
  pd: NonNullable<FrameworkProfile['rocmPagedDecode']>,
  s: { kvBlock?: number; ctx?: number; release?: DecodeRelease },
): 'split' | 'perHead' | 'triton' {
  const headDim = m.attnWidth / m.heads;
  const kvHeads = m.kvWidth / headDim;
  const fits =
    pd.blockSizes.includes(s.kvBlock ?? pd.defaultBlockSize) &&
    pd.headSizes.includes(headDim) &&
    m.heads / kvHeads <= pd.maxQueriesPerKv;
  const rel = pd.releases;
  const v = s.release?.version;
  const released =
    rel === undefined ||
    ((v === undefined || !releaseNamedBefore(v, rel.since)) &&
      (s.ctx ?? 0) <= splitMaxSeqLen(rel, v));
  if (fits && released) return 'split';
  return rel !== undefined && s.release?.v0 === true ? 'perHead' : 'triton';
}

/**
 * The KV read's rate on an AMD GPU: where the engine's own decode kernels run (FrameworkProfile.rocmPagedDecode.peakShares, on the
 * gfx targets its figures are of; not AITER's, `aiter`; K/V heads, not an MLA latent), the share of the card's peak
 * its split HIP kernel sustains where it takes the layers, else its Triton kernel's; otherwise the card's stream rate.
 * The share scales the same derated rate (power limit) as the stream rate. Where a pre-V1 build runs its generic
 * kernel (rocmDecodeKernel 'perHead'), each query head's workgroup reads its KV head's bytes: the step's KV bytes are
 * read once a query head, each at the split kernel's rate, the kernel AMD wrote to replace it taken as its bound
 * (engines/vllm/rocm-attention.ts VLLM_ROCM_SPLIT_RELEASES).
 */
function rocmKvReadRate(
  m: ModelFacts,
  fw: FrameworkProfile,
  r: GpuRates,
  s: { kvBlock?: number; aiter?: boolean; ctx?: number; release?: DecodeRelease },
): number {
  const pd = fw.rocmPagedDecode;
  if (pd === undefined || s.aiter === true || m.mla || m.heads <= 0) return r.mem;
  const kernel = rocmDecodeKernel(m, pd, s);
  const d = pd.peakShares;
  const own = d !== undefined && r.gfx !== undefined && d.gfx.includes(r.gfx);
  const share = !own ? MEM_EFF_AMD : kernel === 'triton' ? d.triton : d.split;
  const reads = kernel === 'perHead' ? m.heads / (m.kvWidth / (m.attnWidth / m.heads)) : 1;
  return (r.mem * (share / MEM_EFF_AMD)) / reads;
}

// Near the ridge a GEMM runs slower than the longer of its weight read and its arithmetic: its time is the cube-norm
// of the two. torch bf16 (cuBLAS) N=6144 K=4096 on H100: 19.7 µs at M=1, 23.8 at 256 where 706 TFLOPS (M=2048) gives
// 18.3, 39.8 at 512 (vllm-project/vllm#19627); on B200: 8.5 µs at M=1, 11.6 at 256, 19.3 at 512 against 1433 TFLOPS
// (vllm-project/vllm#18778). A norm of 3 gives 24.2, 38.3 (H100) and 10.9, 18.6 µs (B200); 2 gives 26.8 at H100's 256.
const RIDGE_NORM = 3; // vllm-project/vllm#19627 and vllm-project/vllm#18778 torch-bf16 tables, M = 1-2048

/**
 * The linears' time from their weight read `read` and their arithmetic `math` (seconds): the cube-norm of the two,
 * which is the longer of them away from the ridge and up to 2^(1/3) = 1.26 times it where they are equal. Every linear
 * of a decode step has the same FLOPs a weight byte (2 x batch over the weight's bytes an element), so the blend of the
 * step's sums is the sum of its GEMMs' blends.
 */
export function ridgeBlend(read: number, math: number): number {
  const hi = Math.max(read, math);
  if (hi <= 0) return 0;
  return hi * Math.cbrt(1 + (Math.min(read, math) / hi) ** RIDGE_NORM);
}

/**
 * The longest program's time over a step's layers where the engine decodes an AMD GPU's attention with a kernel that
 * walks each sequence's context in one program (FrameworkProfile.rocmPagedDecode, outside its split kernel's block
 * and head sizes; or, on a piecewise-graph build, the `unsplitLayers` whose Triton unified attention ran its
 * unsplit kernel: time/piecewise.ts unsplitTritonLayers, tiles of one cache block): each tile's K and V loads wait
 * one HBM round trip before the tile's dot products, and the next tile's loads issue after them, so a program of
 * `ctx` tokens takes ceil(ctx / tile) round trips a layer whatever the card's bandwidth. 0 where the split kernel
 * runs, or on other GPUs.
 */
export function unsplitChainSeconds(
  m: ModelFacts,
  fw: FrameworkProfile,
  r: GpuRates,
  s: { ctx: number; kvBlock?: number; unsplitLayers?: number; release?: DecodeRelease },
): number {
  const pd = fw.rocmPagedDecode;
  if (!r.rocm || pd === undefined || m.mla || m.attnLayers <= 0 || m.heads <= 0) return 0;
  const block = s.kvBlock ?? pd.defaultBlockSize;
  const triton = Math.min(s.unsplitLayers ?? 0, m.attnLayers) * Math.ceil(s.ctx / block);
  // The split HIP kernel, and V0's generic kernel (its long contexts in 512-token partitions; its walk not counted).
  if (rocmDecodeKernel(m, pd, s) !== 'triton') return triton * CDNA_HBM_LATENCY_S;
  const tile = Math.min(block, pd.maxTileTokens);
  return Math.max(m.attnLayers * Math.ceil(s.ctx / tile), triton) * CDNA_HBM_LATENCY_S;
}

/** A decode step's GPU core: the GEMMs' read or arithmetic, then the attention's KV read or arithmetic. */
export interface StepCore {
  /** Seconds of the step's GPU core (before host, all-reduce and per-kernel costs). */
  core: number;
  /** Its linear layers' share (weights read, or their FLOPs where those take longer). */
  linear: number;
  /** Its attention's share (the KV read, or its FLOPs where those take longer). */
  attention: number;
  /** The core's seconds bound by arithmetic (the GEMMs', where they outlast their read) and by memory. */
  compute: number;
  memory: number;
  /** Model FLOPs of the step per GPU (linears and attention). */
  flops: number;
}

/**
 * Seconds a decode step's Triton fused_moe adds to its GEMMs (moe-pad-rows.ts): the rows its BLOCK_SIZE_M blocks pad
 * (tritonPaddedFlops), and its routed rows' FLOPs again at the kernel's own rate where that is below the card's GEMM
 * rate `rate` (tritonMoeRate), beyond what they take at `rate`. 0 where the step runs no Triton fused_moe, or `rate` is
 * undefined (its experts priced at another kernel's rate).
 */
function tritonMoeExtra(
  m: ModelFacts,
  fw: FrameworkProfile,
  r: GpuRates,
  s: { batch: number; tp: number; tritonMoe?: TritonMoeStep },
  rate: number | undefined,
): number {
  if (s.tritonMoe === undefined || rate === undefined) return 0;
  const own = tritonMoeRate(fw, r, s.tritonMoe, rate);
  const padded = tritonPaddedFlops(m, fw, { ...s.tritonMoe, tp: s.tp });
  const routed = stepExpertFlops(m, s.batch, s.tp);
  return (routed + padded) / own - routed / rate;
}

/**
 * The GPU core of a decode step of `batch` sequences at context `ctx` over `tp` ranks: the linears' kernels (their
 * weight read, `weightSeconds`, or their FLOPs at the traffic's GEMM rate), then each layer's attention kernel (the
 * step's KV bytes a GPU at the backend's read rate, and the cache update's copy at the memory rate where the engine
 * rebuilds its cache each step (FrameworkProfile.kvAppendCopies), or its FLOPs at the same GEMM rate, or on ROCm the longest
 * program's HBM round trips where the engine's decode kernel does not split the context: unsplitChainSeconds; on
 * NVIDIA the tensor-core products of the layers whose calls walk their keys unsplit, `varlen` builds:
 * unsplitWalkSeconds).
 */
export function stepCore(
  m: ModelFacts,
  fw: FrameworkProfile,
  r: GpuRates,
  tr: {
    kvGpu: number;
    fp32Gemm: boolean;
    rate: number;
    paddedFlops?: number;
    q?: string | null;
    /** AITER's kernels run the ROCm attention (TimeOptions.rocmAiter), not the engine's own (kvReadRate). */
    aiter?: boolean;
    /** Seconds a token of the engine's fp32 router GEMM beyond the linears (fp32-router.ts). */
    fp32Router?: number;
    /** Bytes per stored linear weight element (the MLA layers' own linears, mla-absorbed.ts). */
    wb?: number;
  },
  s: {
    batch: number;
    tp: number;
    ctx: number;
    weightSeconds: number;
    kvBlock?: number;
    unsplitLayers?: number;
    /** V1's varlen decode entry (a V0 build's kvcache entry splits any layer); absent: not V0 where `release` says. */
    varlen?: boolean;
    /** The release and loop the decode ran on (rocmDecodeKernel). */
    release?: DecodeRelease;
    weights?: EstimateOptions['weights'];
    /** The decode is compiled, on a preallocated cache: no per-step copy (FrameworkProfile.kvAppendCopies). */
    compiled?: boolean;
    /** The step's routed experts run the Triton fused_moe (moe-pad-rows.ts decodeTritonMoe). */
    tritonMoe?: TritonMoeStep;
  },
): StepCore {
  const attnFlops = (4 * m.attnLayers * s.ctx * m.attnWidth * s.batch) / s.tp;
  const gemmFlops = ((2 * (m.active - embedOnly(m)) + m.recurrentFlopsPerToken) * s.batch) / s.tp;
  const rate = tr.fp32Gemm ? r.gemm32 : tr.rate;
  // The GEMMs' arithmetic includes the tiles an MoE tile kernel pads (time/moe-tile.ts); the model FLOPs do not. The
  // routed experts' run at their own rate where the engine's MoE has one (fp4-bf16-moe.ts).
  const expertRate = tr.fp32Gemm
    ? rate
    : routedExpertRate(fw, s.weights, { q: tr.q ?? null, cc: r.cc }, rate);
  const expertFlops = expertRate === rate ? 0 : stepExpertFlops(m, s.batch, s.tp);
  const gemm =
    (gemmFlops - expertFlops + (tr.paddedFlops ?? 0)) / rate +
    expertFlops / expertRate +
    tritonMoeExtra(m, fw, r, s, expertFlops > 0 || tr.fp32Gemm ? undefined : rate);
  // A build that materializes MLA's absorbed weights reads them in place of q_b, kv_b and o (mla-absorbed.ts).
  const absorbed = mlaAbsorbedExtraSeconds(m, fw, r, {
    tp: s.tp,
    wb: tr.wb ?? 2,
    fp8: s.weights === 'fp8',
    ...(s.release?.version === undefined ? {} : { version: s.release.version }),
  });
  // An fp32 router GEMM (fp32-router.ts) is a CUDA-core kernel of its own after the blended linears.
  const linear = ridgeBlend(s.weightSeconds + absorbed, gemm) + (tr.fp32Router ?? 0) * s.batch;
  // The cache update's torch.cat (FrameworkProfile.kvAppendCopies) reads the step's cache and writes it again, in kernels
  // of its own before the attention's, at the memory rate.
  const copy = fw.kvAppendCopies === true && s.compiled !== true ? (2 * tr.kvGpu) / r.mem : 0;
  // An MLA decode of two passes reads the latent's values and its logits again (mlaTwoPassBytes).
  const reread = mlaTwoPassBytes(m, fw, r, { ...s, kvGpu: tr.kvGpu });
  const attention =
    Math.max(
      (tr.kvGpu + reread) /
        kvReadRate(m, fw, r, {
          kvBlock: s.kvBlock,
          aiter: tr.aiter,
          ctx: s.ctx,
          release: s.release,
        }),
      attnFlops / rate,
      unsplitChainSeconds(m, fw, r, s),
      unsplitWalkSeconds(m, fw, r, { ...s, varlen: s.varlen ?? s.release?.v0 === false }),
    ) + copy;
  const bound = gemm > s.weightSeconds + absorbed;
  return {
    core: linear + attention,
    linear,
    attention,
    compute: bound ? linear : 0,
    memory: bound ? attention : linear + attention,
    flops: gemmFlops + attnFlops,
  };
}

/**
 * The decode step's attention layers whose calls walk their keys unsplit (FrameworkProfile.unsplitDecodeWalk, where the
 * engine runs that family for the model on this GPU, `varlen`: the build's decode entry is the one the walk describes):
 * each of a layer's sequence x query-head programs runs the tensor-core products of its 64-row query tile against
 * every key it attends (min(context, window)), q.K and p.V at 2 x 2 x blockM x head_dim FLOPs a key, on one SM at the
 * card's dense 16-bit peak over its SMs times the share a walking program sustains (UnsplitDecodeWalk.smEfficiency,
 * its tile loads and softmax between the products), and programs beyond one an SM share the SMs. 0 where no layer
 * walks.
 */
export function unsplitWalkSeconds(
  m: ModelFacts,
  fw: FrameworkProfile,
  r: GpuRates,
  s: { batch: number; tp: number; ctx: number; varlen?: boolean },
): number {
  const w = fw.unsplitDecodeWalk;
  if (w === undefined || s.varlen !== true || r.rocm || r.sms === undefined || r.cc <= 0) return 0;
  if (fw.decodeAttention?.(m.modelType, m.mla, r.cc) !== w.family) return 0;
  const perSm = (r.peak16 / r.sms) * w.smEfficiency;
  let seconds = 0;
  for (const g of m.arch.groups) {
    if (g.name !== 'decoder' || g.recurrent || g.mlaCacheWidth !== null || !w.unsplit(g)) continue;
    const keys = g.slidingWindow === null ? s.ctx : Math.min(s.ctx, g.slidingWindow);
    const programs = s.batch * Math.max(1, g.heads / s.tp);
    const walk = (keys * 4 * w.blockM * g.headDim) / perSm;
    seconds += g.count * walk * Math.max(1, programs / r.sms);
  }
  return seconds;
}
