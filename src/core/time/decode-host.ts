/** A decode step's host side: eager dispatch, CUDA-graph gaps and generate()'s per-token work. */
import { FRAMEWORKS } from '../memory/frameworks.js';
import type { DecodeGraphBuild, FrameworkProfile } from '../memory/framework-profile.js';
import type {
  DecodeFeatureKernels,
  EngineBuild,
  TorchBiasedRouter,
} from '../memory/decode-feature-kernels.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import type { QuantFormat, SlidingMask, TimeOptions } from '../../schema/time.js';
import type { ModelFacts } from './model-facts.js';
import { kvCacheGroups } from '../memory/kv-layout.js';
import {
  blockFp8Gemms,
  rocmAiterOn,
  runsBlockFp8Path,
  runsRocmBlockFp8Quant,
} from './block-fp8.js';
import { perExpertMoeSeconds } from './per-expert-moe.js';
import { releaseAtLeast, releaseWithin } from '../compare-releases.js';
import {
  GRAPH_KERNEL_SECONDS,
  INT8_LINEAR_SECONDS,
  OPS_PER_LAYER_COMPILED,
  OPS_PER_LAYER_EAGER,
  bnb4Ops,
  BNB4_GEMV_BIAS_OPS,
} from './train-work.js';

// HF generate adds per-token Python work outside the layers (logits processors, stopping criteria, cache
// update, .item() sync): ~2 ms (assumed; transformers generation/utils.py loop).
const GENERATE_TOKEN_SECONDS = 2e-3;

// transformers' generate on a static cache builds each decode step's 4-D attention masks in prepare_inputs_for_generation
// (create_masks_for_generate, one per distinct layer type) through sdpa_mask_recent_torch's four nested torch.vmap
// levels and an autograd.Function index per padding lookup: Python-bound host work, before the step's first layer.
// Measured with scripts/generate-mask-host.py on the wheel of https://pypi.org/project/transformers/4.56.2/ (masking_utils.py)
// and torch 2.8.0, CPU tensors, three runs (4.7-5.0, 5.7-6.4, 4.4-5.5): one gpt-oss mask, full or sliding, takes as
// long as 4.4-6.4 Llama decoder layers' eager decode calls; the lower part is taken, as a layer on a GPU also pays its
// kernel launches, which the mask's Python work mostly lacks.
export const GENERATE_MASK_LAYERS = 4.7;

// Eager decoding launches its kernels asynchronously: a token takes the longer of the GPU's work and the
// CPU's dispatch of it, then the per-token loop and sync. HF generate of Llama-7B fp16 on an RTX 3090 takes
// 32.9 ms/token where its 13.5 GB weight read is ~17 ms (bitsandbytes-foundation/bitsandbytes#347,
// https://github.com/bitsandbytes-foundation/bitsandbytes/issues/347): dispatch-bound, so (32.9 - 2) ms over
// 32 layers x 45 ops is ~21 µs per op of eager decoding (Python module calls on one-token tensors, where a
// training op on large tensors costs ~10 µs of CPU).
export const EAGER_DECODE_OP_SECONDS = 21e-6;
// A torch.compile'd function's call from eager code, by its parts (pytorch/pytorch#150488, a fullgraph function with one
// CUDA graph): TorchDynamo's cache lookup and the rest of torch.compile's wrapper 176 µs, the CUDA-graph tree's
// runtime checks 128 µs, cudaGraphLaunch 41 µs.
const COMPILED_CALL_SECONDS = 176e-6;
const CUDAGRAPH_TREE_CALL_SECONDS = 128e-6 + 41e-6;

/**
 * The ops a forward's decoder layers issue where the engine runs them eagerly: `base` a layer (OPS_PER_LAYER_EAGER for
 * transformers' layer, OPS_PER_LAYER_COMPILED for a graph engine's custom ops) and the ops the engine's layer of this
 * model_type issues beyond it on each group's layers, sliding or not, at `rows` sequences, with the build's in-layer
 * sliding mask (FrameworkProfile.eagerLayerExtraOps); vision layers excluded, as ModelFacts.layers.
 */
export function eagerLayerOps(
  m: ModelFacts,
  fw: FrameworkProfile,
  base: number,
  rows: number,
  mask?: SlidingMask,
): number {
  const extra = fw.eagerLayerExtraOps;
  let ops = 0;
  for (const g of m.arch.groups) {
    if (g.name === 'vision') continue;
    ops += g.count * (base + (extra?.(m.modelType, g.slidingWindow !== null, rows, mask) ?? 0));
  }
  return ops;
}

/**
 * Host seconds of a decode step's layers where the measured build's generate ran part of each layer through
 * torch.compile'd functions (TimeOptions.generateLayer): its own eager ops, each compiled call's wrapper and each
 * CUDA-graph tree replay's. Null for the default eager layer (OPS_PER_LAYER_EAGER and the engine's routing kernels).
 */
function compiledLayerHost(m: ModelFacts, t: TimeOptions): number | null {
  const g = t.generateLayer;
  if (g === undefined) return null;
  const call =
    g.compiledCalls * COMPILED_CALL_SECONDS + g.cudagraphCalls * CUDAGRAPH_TREE_CALL_SECONDS;
  return m.layers * (g.eagerOps * EAGER_DECODE_OP_SECONDS + call);
}

/**
 * Host seconds a decode step's host stalls on the stream where the measured build's layers block it (TimeOptions
 * generateLayer.sync: transformers 4.56's SlidingWindowLayer.update, once its window is full, builds its index with
 * `torch.tensor([-1], device=...)`, a blocking copy). At each such layer the host waits for what the GPU still has of
 * the previous layer's MoE call (one layer's share of `expertSeconds`, the step's expert reads on the GPU), less the
 * host time of the ops it issued since. Zero where the build does not sync or the model has no MoE layer.
 */
export function layerSyncStall(m: ModelFacts, t: TimeOptions, expertSeconds: number): number {
  const s = t.generateLayer?.sync;
  if (s === undefined || m.moeLayers === 0) return 0;
  const moeCallSeconds = expertSeconds / m.moeLayers;
  const issued = s.eagerOps * EAGER_DECODE_OP_SECONDS + s.compiledCalls * COMPILED_CALL_SECONDS;
  return s.layers * Math.max(0, moeCallSeconds - issued);
}

/**
 * A build whose expert matmul op runs one expert slot per op (TimeOptions.mulMatIdSync): the kernels its MoE layers
 * launch in a decode step beyond the dense count the layer is timed with (the engine's perSlotMoeKernels). Each
 * slot's projections launch a mat-vec, after its activation-quantizing kernel (`quantK`), per batch row; the dense
 * count holds one of each per projection, the activation chain once, and a quantizing kernel for the router, which
 * that build leaves unquantized (its own kernels are in `routing`).
 */
function perSlotMoeKernels(
  m: ModelFacts,
  fw: FrameworkProfile,
  rows: number,
  quantK: number,
): number {
  const k = fw.perSlotMoeKernels;
  if (k === undefined || m.moeLayers === 0) return 0;
  const projections = m.gated ? 3 : 2;
  const activation = m.gated ? 2 : 1;
  const slot = rows * projections * (1 + quantK) + activation + k.perSlot;
  const dense = projections * (1 + quantK) + activation + quantK;
  return m.moeLayers * (k.routing + m.topK * slot - 1 - dense);
}

/**
 * The kernels a decode step's MoE layers launch beyond a dense MLP's: the engine's count for the build's graph and the
 * model's routing where it gives one (FrameworkProfile.moeRoutingKernelsByGraph), else its flat moeRoutingKernels.
 * In an unfused graph the dense count gives every linear, the router included, an activation-quantizing kernel
 * (`quantK`), which the router, a float matrix (a GGUF quantizer leaves it unquantized), does not launch. None where
 * the build runs one expert slot per op (its perSlotMoeKernels count the routing).
 */
export function moeRoutingKernelCount(
  m: ModelFacts,
  fw: FrameworkProfile,
  t: TimeOptions,
  unfused: boolean,
  quantK: number,
): number {
  const byGraph = fw.moeRoutingKernelsByGraph;
  if (m.moeLayers === 0 || byGraph === undefined) return m.moeLayers * (fw.moeRoutingKernels ?? 0);
  if (t.mulMatIdSync === true && fw.perSlotMoeKernels !== undefined) return 0;
  const graph: DecodeGraphBuild = unfused
    ? 'unfused'
    : t.noMoeFusion === true
      ? 'no-moe-fusion'
      : t.noGemvFusion === true
        ? 'no-gemv-fusion'
        : 'fused';
  return m.moeLayers * (byGraph(m.modelType, m.topK, graph) - (unfused ? quantK : 0));
}

/**
 * Kernels a decode step's layers launch apart where the engine folds them into a mat-vec only up to a few batch rows
 * (FrameworkProfile.gemvFusion): above them, or in a build before the fusion (TimeOptions.noGemvFusion), each biased
 * linear's bias add, and per gated layer the gate/up pair's second mat-vec and its GLU (and, on quantized weights, the
 * second activation quantization). Zero where the engine has no such fusion or the step's graph is unfused.
 */
export function gemvApartKernels(
  m: ModelFacts,
  fw: FrameworkProfile,
  rows: number,
  t: TimeOptions,
  quantized: boolean,
): number {
  const f = fw.gemvFusion;
  if (f === undefined || (rows <= f.maxColumns && t.noGemvFusion !== true)) return 0;
  const glu = m.gated ? f.gluPair + (quantized ? f.gluPairQuantized : 0) : 0;
  return m.layers * (m.biasedLinearsPerLayer * f.perBiasedLinear + glu);
}

/**
 * The ops a decode step's unmerged adapters add (TimeOptions.unmergedAdapterOps: `perLinear` for each adapted
 * linear, beside its base matmul), on every layer's adapted attention projections and, in a dense model, its adapted
 * MLP projections. A routed expert's adapters run in the engine's own expert path and are not counted here.
 */
function unmergedAdapterOps(m: ModelFacts, o: EstimateOptions, perLinear: number): number {
  if (perLinear <= 0) return 0;
  const attn = o.loraTargets.filter((x) => x === 'q' || x === 'k' || x === 'v' || x === 'o').length;
  const mlp =
    m.moeLayers > 0
      ? 0
      : Math.min(
          o.loraTargets.filter((x) => x === 'gate' || x === 'up' || x === 'down').length,
          m.gated ? 3 : 2,
        );
  return m.layers * (attn + mlp) * perLinear;
}

/**
 * A graph kernel's cost beyond its bytes: the engine's own where it gives one, in SM cycles where the engine counts it
 * so and the card's SM clock is known (FrameworkProfile.graphKernelCycles, graphKernelSeconds; GpuRates.smClock).
 */
export function graphKernelSecondsOf(fw: FrameworkProfile, smClock: number | undefined): number {
  return fw.graphKernelCycles !== undefined && smClock !== undefined
    ? fw.graphKernelCycles / smClock
    : (fw.graphKernelSeconds ?? GRAPH_KERNEL_SECONDS);
}

// A kernel launched from the host on ROCm, outside a graph: launch plus cleanup, about 4.5 µs a kernel on an MI300X (Kog
// AI's measurements, https://blog.kog.ai/building-a-single-kernel-latency-optimized-llm-inference-engine-on-amd-mi300x-gpus,
// tabulated at https://dev.to/creeta/kog-hits-3k-ts-on-mi300x-no-kernel-switches-test-it-now-55dh). Other AMD cards take it.
const ROCM_LAUNCHED_KERNEL_SECONDS = 4.5e-6; // MI300X, Kog AI
// On CUDA kernels launched back to back take 3.8 µs each against 3.4 µs replayed from a graph, for 2.9 µs kernels
// (https://developer.nvidia.com/blog/cuda-graphs/): 0.4 µs more GPU idle a kernel than the graph gap.
const CUDA_LAUNCHED_KERNEL_EXTRA_SECONDS = 0.4e-6; // NVIDIA's CUDA Graphs post

/**
 * A kernel boundary of a decode step the build launches from the host, without graph replay (TimeOptions.ungraphedDecode):
 * on an AMD GPU (`gfx` set) the ROCm launch's own cost in place of the graph gap, on NVIDIA the graph gap and the idle a
 * launch adds to it.
 */
export function launchedKernelSeconds(graphKernel: number, gfx: string | undefined): number {
  return gfx !== undefined
    ? ROCM_LAUNCHED_KERNEL_SECONDS
    : graphKernel + CUDA_LAUNCHED_KERNEL_EXTRA_SECONDS;
}

/**
 * The kernels a decode step's attention layers launch to prepare q beyond the layer's usual chain: per-head q and k
 * norms (FrameworkProfile.qkNormKernels) and, above one sequence, a plain layer's copy of its strided q
 * (FrameworkProfile.stridedQCopyKernels).
 */
export const qkNormKernelCount = (
  m: ModelFacts,
  fw: FrameworkProfile,
  batch: number,
  eager = false,
): number => {
  const k = fw.qkNormKernels;
  return (
    m.qkNormLayers * ((eager ? k?.eager : batch > 1 ? k?.more : k?.one) ?? 0) +
    (batch > 1 ? m.plainAttnLayers * (fw.stridedQCopyKernels ?? 0) : 0)
  );
};

/** The build a timing ran, as the engines' per-build tables read it (EngineBuild). */
export const buildOf = (t: TimeOptions | undefined): EngineBuild => ({
  ...(t?.engineVersion === undefined ? {} : { version: t.engineVersion }),
  ...(t?.attentionBackend === undefined ? {} : { attentionBackend: t.attentionBackend }),
});

/**
 * Kernels a decode step launches for the model's MLA layers, shared experts, biased grouped router and block-FP8
 * activations beyond the counted chain (FrameworkProfile.decodeFeatureKernels). The block-FP8 kernels where the
 * step runs block-scaled FP8 weights through the engine's blockwise path (time/block-fp8.ts runsBlockFp8Path, any
 * generation from cc 8.9, and the AMD targets the engine's table lists, runsRocmBlockFp8Quant): one set per linear
 * of blockFp8Gemms (without the shared expert's where it runs on a stream beside the routed experts), with the row pad
 * on cc 9.0, and per MoE layer (on those AMD targets only where AITER's MoE does not run the experts). A hybrid
 * model's recurrent layers, gated attention layers and MoE calls, and a sparse-attention model's indexers, where the
 * engine's count for its type gives them. Where the engine runs the experts through TensorRT-LLM's MoE (16-bit unless the build ran Triton's,
 * TimeOptions.tritonMoe16; MXFP4), its kernels' difference from the Triton chain per MoE layer; at NVFP4, each layer's
 * activation quantizations.
 */
export function decodeFeatureKernels(
  m: ModelFacts,
  o: EstimateOptions,
  cc: number | undefined,
  t?: TimeOptions,
  gfx?: string,
): number {
  const k = FRAMEWORKS[o.framework].decodeFeatureKernels?.(m.modelType, cc ?? 0, gfx, buildOf(t));
  if (k === undefined) return 0;
  const router = biasedRouterKernels(m, k, t);
  // On the AMD targets the engine lists, its ROCm blockwise linears quantize per token group as well.
  const rocm = runsRocmBlockFp8Quant(m.arch, o, k.rocmBlockFp8Targets, gfx);
  const fp8 = runsBlockFp8Path(m.arch, o, cc ?? 0) || rocm;
  // AITER's fused MoE quantizes inside its own call (time/aiter-moe.ts): the Triton fused_moe's kernels only without it.
  const moeQuant = rocm && rocmAiterOn(FRAMEWORKS[o.framework], t?.rocmAiter) ? 0 : k.blockFp8Moe;
  const beside = k.sharedExpertBeside === true;
  const linears = fp8
    ? blockFp8Gemms(m.arch, o.tp, false, beside).reduce((a, g) => a + g.count, 0)
    : 0;
  const perLinear = k.blockFp8Linear + (cc === 9 ? k.blockFp8PadSm90 : 0);
  const moe16 = runsTrtllmMoe16(k, o, t) ? m.moeLayers * (k.trtllmMoe16 ?? 0) : 0;
  const mxfp4 =
    o.weights === 'mxfp4'
      ? m.moeLayers * ((k.trtllmMoeMxfp4 ?? 0) + tritonKernelsRouting(k, t))
      : 0;
  const nvfp4 = o.weights === 'nvfp4' ? m.layers * (k.nvfp4Layer ?? 0) : 0;
  // A hybrid model's recurrent mixers and gated attention layers, and its MoE calls' own kernels.
  const hybrid =
    (m.layers - m.attnLayers) * (k.recurrentLayer ?? 0) +
    m.attnLayers * ((k.gatedAttentionLayer ?? 0) + (k.attentionLayer ?? 0)) +
    m.moeLayers * (k.moeLayer ?? 0) +
    m.indexerLayers * (k.indexerLayer ?? 0);
  return (
    m.mlaLayers * k.mlaLayer +
    hybrid +
    m.sharedExpertLayers * k.sharedExpert +
    router +
    moe16 +
    mxfp4 +
    nvfp4 +
    (fp8 ? linears * perLinear + m.moeLayers * moeQuant : 0)
  );
}

/**
 * The kernels an MXFP4 MoE layer's triton_kernels routing-data build launches beyond the counted chain
 * (DecodeFeatureKernels.tritonKernelsMxfp4Routing): the count of the span of releases the given release falls in, where
 * no quantization format was named (the engine's default backend, not Marlin).
 */
function tritonKernelsRouting(k: DecodeFeatureKernels, t?: TimeOptions): number {
  const v = t?.engineVersion;
  if (v === undefined || (t?.quantFormat ?? null) !== null) return 0;
  const span = k.tritonKernelsMxfp4Routing?.find((r) => releaseWithin(v, r));
  return span?.kernels ?? 0;
}

/** Whether `n` routed experts are a power of two (SGLang's fused gates take only those: layers/moe/topk.py). */
const powerOfTwo = (n: number): boolean => n > 0 && (n & (n - 1)) === 0;

/** Whether the release runs `from`'s code or later (none given: the newest). */
const from = (t: TimeOptions | undefined, release: string): boolean =>
  t?.engineVersion === undefined || releaseAtLeast(t.engineVersion, release);

/**
 * Whether a fused gate of the engine's takes the model's grouped router (DecodeFeatureKernels.torchBiasedRouter): a
 * power-of-two count with few enough experts a group, or in one group from the release a wider gate arrived, or an
 * exact expert and group count a gate of its own serves.
 */
function takesFusedGate(m: ModelFacts, r: TorchBiasedRouter, t?: TimeOptions): boolean {
  const groups = Math.max(1, m.routerGroups);
  const pow2 = powerOfTwo(m.experts);
  if (pow2 && m.experts / groups <= r.gateMaxPerGroup) return true;
  const wide = pow2 && groups === 1 && m.experts <= r.pow2MaxExperts && m.topK <= r.pow2MaxTopK;
  if (wide && from(t, r.fusedPow2From)) return true;
  return r.countGates.some(
    (g) => g.experts === m.experts && g.groups === groups && from(t, g.from),
  );
}

/**
 * A decode step's kernels of a biased grouped router beyond the chain's top-k: the engine's fused gate's count for the
 * model types it names, or, where the engine runs the torch.compile'd fallback for the model's router
 * (DecodeFeatureKernels.torchBiasedRouter, no fused gate taking it), that fallback's count.
 */
function biasedRouterKernels(m: ModelFacts, k: DecodeFeatureKernels, t?: TimeOptions): number {
  const torch = k.torchBiasedRouter;
  if (torch?.modelTypes.includes(m.modelType) === true)
    return takesFusedGate(m, torch, t) ? 0 : m.moeLayers * torch.kernels;
  return k.biasedRouter.modelTypes.includes(m.modelType) ? m.moeLayers * k.biasedRouter.kernels : 0;
}

/**
 * A decode step's all-reduces of a full-width q/k norm's per-token statistic beyond the layers' two (under attention
 * TP > 1, DecodeFeatureKernels.attentionTpAllReduces for each attention layer), and the bytes of one: two fp32 a token.
 */
export function attentionTpAllReduces(
  m: ModelFacts,
  o: EstimateOptions,
  r: { cc: number; gfx?: string },
): number {
  if (o.tp <= 1) return 0;
  const k = FRAMEWORKS[o.framework].decodeFeatureKernels?.(m.modelType, r.cc, r.gfx);
  return m.attnLayers * (k?.attentionTpAllReduces ?? 0);
}
/** Bytes a token adds to a full-width q/k norm's all-reduce: q's and k's sums of squares in fp32. */
// sgl-project/sglang#14416: rms_sumsq_serial all-reduces one fp32 buffer of q's and k's sums, two a token
export const QK_NORM_STAT_BYTES = 2 * 4;

/** Whether the step's 16-bit experts run through the engine's TensorRT-LLM MoE (DecodeFeatureKernels.trtllmMoe16). */
const runsTrtllmMoe16 = (
  k: DecodeFeatureKernels | undefined,
  o: EstimateOptions,
  t: TimeOptions | undefined,
): boolean =>
  k?.trtllmMoe16 !== undefined &&
  t?.tritonMoe16 !== true &&
  (o.weights === 'bf16' || o.weights === 'fp16');

/** Whether the engine runs this model's 16-bit experts through TensorRT-LLM's MoE on this GPU, not Triton's fused_moe. */
export const trtllmMoe16 = (
  m: ModelFacts,
  o: EstimateOptions,
  cc: number,
  t?: TimeOptions,
): boolean =>
  runsTrtllmMoe16(
    FRAMEWORKS[o.framework].decodeFeatureKernels?.(m.modelType, cc, undefined, buildOf(t)),
    o,
    t,
  );

/**
 * Whether the engine runs this model's block-scaled FP8 experts through its TensorRT-LLM block-scale MoE on this GPU
 * (DecodeFeatureKernels.trtllmMoeBlockFp8): the checkpoint's FP8 weights on the blockwise path (block-fp8.ts).
 */
export const trtllmMoeBlockFp8 = (
  m: ModelFacts,
  o: EstimateOptions,
  cc: number,
  t?: TimeOptions,
): boolean =>
  FRAMEWORKS[o.framework].decodeFeatureKernels?.(m.modelType, cc, undefined, buildOf(t))
    ?.trtllmMoeBlockFp8 === true && runsBlockFp8Path(m.arch, o, cc);

/**
 * The norms a forward's all-reduces take into their kernels (FrameworkProfile.allReduceNormFusion), at `tokens` tokens
 * a forward (a decode step's sequences, a prefill's prompt tokens).
 */
export const fusedNormKernels = (
  m: ModelFacts,
  o: EstimateOptions,
  cc: number | undefined,
  t: TimeOptions | undefined,
  tokens: number,
): number => {
  const f = FRAMEWORKS[o.framework].allReduceNormFusion;
  const on =
    f !== undefined &&
    t?.noAllReduceNormFusion !== true &&
    tokens <= (f.maxTokens ?? Infinity) &&
    o.tp > 1 &&
    o.dpAttention !== true &&
    (cc ?? 0) >= f.minCc &&
    f.modelTypes.includes(m.modelType);
  return on ? 2 * m.layers - 1 : 0;
};

/**
 * Whether a decode step of `o` under `t` reads the options' attention: only an unfused graph's flash-attention kernel
 * count does (decodeHost: under TimeOptions.unfusedGraph or a row split), and no other serving figure reads it
 * (test/core/tps-memo.test.ts times every engine's serving rows with each attention). True under DP attention too,
 * whose expert group runs a wider TP than `o`'s (expert-parallel.ts groupOptions).
 */
export const decodeReadsAttention = (
  fw: FrameworkProfile,
  o: EstimateOptions,
  t: TimeOptions,
): boolean =>
  (fw.unfusedDecodeKernels?.flashAttentionFewer ?? 0) !== 0 &&
  (t.unfusedGraph === true ||
    (fw.tpRowSplit !== undefined && (o.tp > 1 || o.dpAttention === true)));

/**
 * Per-token host cost of decoding: eager dispatch (overlaps the GPU's work), CUDA-graph replay gaps (add to
 * it: the GPU idles between graph kernels) and fixed per-token work (generate()'s loop and its sync).
 * bitsandbytes layers add Python and ctypes calls per linear; LLM.int8's small kernels per linear. `expertSeconds`:
 * the step's expert reads on the GPU, for the host's stalls where the build's layers block it (layerSyncStall). `gfx`:
 * an AMD card's gfx target (its compute capability reads 0), for the engine's decode feature kernels there. `apple`:
 * an Apple GPU, where an engine with a Metal backend (FrameworkProfile.metalDecode) pays its Metal kernel boundary.
 * `kernels`: the graph kernels the gaps count (0 for an eager step). A release whose int4 Marlin MoE launches a kernel
 * per expert adds those launches to the gaps (FrameworkProfile.perExpertMarlinMoe, time/per-expert-moe.ts).
 */
export function decodeHost(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  q: QuantFormat | null,
  smClock?: number,
  expertSeconds = 0,
  cc?: number,
  gfx?: string,
  apple = false,
): { dispatch: number; gaps: number; fixed: number; kernels: number } {
  const fw = FRAMEWORKS[o.framework];
  const compiled = o.compile || fw.fusedKernels;
  // On an Apple GPU the engine's Metal dispatch and barrier take the graph gap's place (no graph replay there).
  const metal = apple ? fw.metalDecode : undefined;
  const graphKernel = metal?.kernelSeconds ?? graphKernelSecondsOf(fw, smClock);
  const linears = m.layers * m.linearsPerLayer;
  // A CUDA-graph replay (vLLM registers bitsandbytes' 4-bit matmul as a custom op, captured with the rest:
  // vllm/model_executor/layers/quantization/bitsandbytes.py _apply_bnb_4bit + direct_register_custom_op)
  // launches its kernels without the Python around them: each op costs a graph kernel's gap, not a dispatch.
  const bnb4Op = compiled ? graphKernel : EAGER_DECODE_OP_SECONDS;
  // Eager, one token a call (batch 1) runs bitsandbytes' gemv_4bit, which adds each linear's bias in ops of its own
  // (a graph-captured engine adds the bias its own way).
  // An engine's own generate that dequantizes 4-bit weights itself (TimeOptions.bnb4DecodeOps) adds its biases in its layer.
  const own = compiled ? undefined : t.bnb4DecodeOps;
  const gemvBias =
    o.batch === 1 && !compiled && own === undefined
      ? m.layers * m.biasedLinearsPerLayer * BNB4_GEMV_BIAS_OPS
      : 0;
  const bnb =
    q !== 'bnb'
      ? 0
      : o.weights === 'int8'
        ? linears * INT8_LINEAR_SECONDS
        : (linears * (own ?? bnb4Ops(o)) + gemvBias) * bnb4Op;
  // A build before the engine fused ops (TimeOptions.unfusedGraph): its own kernels per layer, each quantized linear
  // with its activation-quantizing kernel (engines/<engine>/memory.ts unfusedDecodeKernels).
  // A row split turns the matmul fusions off too ("TODO: add support for fusion for split buffers") and the graph's
  // replay: each gap grows by a launched kernel's (FrameworkProfile.tpRowSplit).
  const rowSplit = o.tp > 1 ? fw.tpRowSplit : undefined;
  const unfused = t.unfusedGraph || rowSplit ? fw.unfusedDecodeKernels : undefined;
  // A build without graph replay (TimeOptions.ungraphedDecode) pays a host launch at each boundary instead.
  const gap = metal
    ? graphKernel
    : t.ungraphedDecode
      ? launchedKernelSeconds(graphKernel, gfx)
      : graphKernel + (rowSplit?.ungraphedKernelSeconds ?? 0);
  const quantK =
    unfused && q === 'gguf' ? (metal?.quantizedLinearKernels ?? unfused.perQuantizedLinear) : 0;
  // An MoE layer's routing kernels beyond a dense MLP's (the engine's count, engines/<engine>/memory.ts).
  const routing =
    moeRoutingKernelCount(m, fw, t, unfused !== undefined, quantK) +
    qkNormKernelCount(m, fw, o.batch) +
    decodeFeatureKernels(m, o, cc, t, gfx) -
    fusedNormKernels(m, o, cc, t, o.batch);
  // Flash attention runs a layer's attention as one kernel (FrameworkProfile.unfusedDecodeKernels.flashAttentionFewer).
  const fa = unfused && o.attention === 'flash' ? (unfused.flashAttentionFewer ?? 0) : 0;
  const perLayer = unfused
    ? unfused.perLayer - fa + quantK * m.linearsPerLayer
    : OPS_PER_LAYER_COMPILED;
  const perSlot = t.mulMatIdSync ? perSlotMoeKernels(m, fw, o.batch, quantK) : 0;
  const adapter = unmergedAdapterOps(m, o, t.unmergedAdapterOps ?? 0);
  // The mat-vec fusions' ops a fused graph launches apart above their batch (or before the build had them).
  const gemv = unfused ? 0 : gemvApartKernels(m, fw, o.batch, t, q === 'gguf');
  const kernels = m.layers * perLayer + routing + perSlot + adapter + gemv;
  const experts = perExpertMoeSeconds(m, o, t, q, { cc, gfx, gap });
  if (compiled) return { dispatch: 0, gaps: kernels * gap + bnb + experts, fixed: 0, kernels };
  // A build whose layer ran partly compiled (TimeOptions.generateLayer): its count covers the layer, routing included.
  const layered = compiledLayerHost(m, t);
  return {
    dispatch:
      (layered === null
        ? (eagerLayerOps(m, fw, OPS_PER_LAYER_EAGER, o.batch, t.slidingMaskInLayer) + routing) *
          EAGER_DECODE_OP_SECONDS
        : layered) +
      (adapter + (t.autocastDecodeOps ?? 0)) * EAGER_DECODE_OP_SECONDS +
      bnb +
      layerSyncStall(m, t, expertSeconds),
    gaps: 0,
    // The step's vmap'd masks run on the host before its first layer, the GPU idle (TimeOptions.generateMasks).
    fixed:
      GENERATE_TOKEN_SECONDS +
      (t.generateMasks ?? 0) * GENERATE_MASK_LAYERS * OPS_PER_LAYER_EAGER * EAGER_DECODE_OP_SECONDS,
    kernels: 0,
  };
}

/**
 * Whether a prefill's launches wait for the decode step queued before it: the engine's prefill forward reads a device
 * value back before its first kernel (FrameworkProfile.prefillHostSync, by the model's type, its attention's MLA
 * latent and the GPU).
 */
export function prefillWaitsForStep(m: ModelFacts, o: EstimateOptions, cc: number): boolean {
  const sync = FRAMEWORKS[o.framework].prefillHostSync;
  if (sync === undefined) return false;
  return sync(m.modelType, m.mla, cc);
}

/**
 * A serial scheduler's host work per running request and decode step: the engine's (serialSeqHostSeconds, or
 * serialLoopSeqHostSeconds where the current release runs its serial loop for the model: TimeOptions.serialLoop), and
 * its hybrid KV layout's for each further KV-cache group the model's layers make (kv-layout.ts kvCacheGroups).
 */
export function serialSeqSeconds(m: ModelFacts, fw: FrameworkProfile, t: TimeOptions): number {
  const perGroup = fw.cacheLayout?.hybridPages?.groupSeqHostSeconds ?? 0;
  const further = perGroup > 0 ? kvCacheGroups(m.arch) - 1 : 0;
  const own =
    (t.serialLoop ? fw.serialLoopSeqHostSeconds : undefined) ?? fw.serialSeqHostSeconds ?? 0;
  return own + perGroup * further;
}
