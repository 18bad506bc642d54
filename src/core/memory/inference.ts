/** What an inference stage holds: weights (or the layers on the GPU), KV cache, recurrent state, prefill. */
import type { RecurrentState } from '../model/arch.js';
import { meanContextOf, type EstimateOptions } from '../../schema/estimate.js';
import { type FrameworkProfile } from './frameworks.js';
import { isFourBitFloat } from '../model/dtypes.js';
import { MiB } from '../units.js';
import {
  cacheFigures,
  cacheTpOf,
  cacheShapeOf,
  kvElementBytes,
  recurrentLayerBytes,
  stateDtypeBytes,
  type CacheFigures,
} from './kv-layout.js';
import { type TowerBytes } from './vision.js';
import { draftGroups, draftWeightBytes } from './speculative.js';
import { loraSlotBytes, unmergedAdapterBytes } from './multi-lora.js';
import { ligerChunkRows } from '../kernels/liger.js';
import { expertStorageOf, sumParts } from './setup.js';
import type { Parts, Setup } from './setup.js';
import { chunkedHeadRows, compiledUpcastLoss, fusedLossChunk, withTower } from './training.js';
import type { Holdings, PhaseParts } from './training.js';

export type KvPool = { poolBytes: number; bytesPerToken: number; tokens: number };

/**
 * Bytes of one sequence's state in one linear-attention / SSM layer: the conv state (channels x (kernel - 1))
 * and the temporal state (heads x key dim x value dim), split over TP by channels and heads (vLLM
 * MambaStateShapeCalculator.gated_delta_net_state_shape / mamba2_state_shape), in the dtype the config names
 * (mamba_ssm_dtype) or the compute dtype; `fw` names the engine whose state dtypes hold (kv-layout.ts).
 */
export function recurrentStateBytes(
  r: RecurrentState,
  c: number,
  tp: number,
  fw?: FrameworkProfile,
): number {
  return recurrentLayerBytes(r, tp, stateDtypeBytes(fw?.cacheLayout, r, c));
}

/** Bytes per KV element (kv-layout.ts kvElementBytes). */
function kvElemBytes(s: Setup): number {
  return kvElementBytes(s.fw, s.o.kvCacheDtype, s.c);
}

/** Tokens one prefill step runs: every prompt at once, one chunk under a serving engine. */
function prefillChunk(s: Setup): number {
  const { fw, tokens, ctx } = s;
  if (fw.ubatch !== undefined) return Math.min(tokens, fw.ubatch);
  if (fw.kvCache !== 'paged-pool' || !fw.server) return tokens;
  return Math.min(
    tokens,
    fw.server.sizing(ctx.gpuCapacityBytes, s.tp, s.pp, ctx.gpuDeviceName).chunkTokens,
  );
}

/** KV tokens per sequence the cache holds: the full context, or a paged pool's share at the mean context. */
function pagedTokensPerSeq(s: Setup): number {
  const { o, fw } = s;
  if (fw.kvCache !== 'paged-pool') return o.seq;
  return Math.max(o.batch * meanContextOf(o), o.seq) / o.batch;
}

/** The TP degree the cache and a layer's intermediates split over (kv-layout.ts cacheTpOf). */
const cacheTp = (s: Setup): number => cacheTpOf(s.fw, s.tp);

/** One sequence's cache per GPU on the busiest pipeline stage (MemoryEstimate.cache), whole bytes. */
export function cacheOf(s: Setup): CacheFigures {
  const shape = cacheShapeOf(s.arch, s.fw, {
    c: s.c,
    tp: cacheTp(s),
    kvElem: kvElemBytes(s),
    ubatch: s.fw.ubatch ?? 0,
  });
  const f = cacheFigures(s.arch, shape);
  return {
    kvBytesPerToken: Math.round(f.kvBytesPerToken * s.lf),
    windowBytesPerSequence: Math.round(f.windowBytesPerSequence * s.lf),
    stateBytesPerSequence: Math.round(f.stateBytesPerSequence * s.lf),
  };
}

/** The KV cache of every sequence (a paged pool: as admitted), and one layer's prefill transients, per GPU. */
function kvAndPrefill(s: Setup): { kv: number; prefill: number; state: number } {
  const { o, arch, c, lf } = s;
  const tp = cacheTp(s);
  const kvBytesPerElem = kvElemBytes(s);
  const prefillTokens = prefillChunk(s);
  // A paged pool admits sequences on the blocks they hold: batch sequences at their mean context, at least
  // one at the full context (vLLM refuses a max_model_len no pool holds; its scheduler preempts beyond).
  const held = pagedTokensPerSeq(s);
  let kv = 0;
  // Fixed per-sequence state of linear-attention / SSM layers (grows with the batch, never with the context).
  let state = 0;
  let prefill = 0;
  const cache = cacheShapeOf(arch, s.fw, {
    c,
    tp,
    kvElem: kvBytesPerElem,
    ubatch: s.fw.ubatch ?? 0,
  });
  for (const g of arch.groups) {
    if (g.name === 'vision') continue;
    state += g.count * lf * o.batch * cache.stateBytes(g);
    // Encoders run once over the input and keep no cache.
    if (g.name !== 'encoder')
      kv += g.count * lf * o.batch * cache.cells(g, held) * cache.tokenBytes(g);
    const kvLen = g.recurrent ? 0 : g.slidingWindow ? Math.min(g.slidingWindow, held) : held;
    // One layer's transient tensors during prefill: fp32 norm copy, q/k/v, MLP intermediates.
    const qd = g.heads * g.headDim;
    const mlp = 3 * g.ffn * g.topK * c * prefillTokens;
    // A serving engine's fused-MoE kernel allocates its own workspaces (ServerStart.moeWorkspace).
    const moe =
      g.experts > 1 && s.fw.server?.moeWorkspace
        ? s.fw.server.moeWorkspace({
            tokens: prefillTokens,
            hidden: g.hidden,
            ffn: g.ffn,
            topK: g.topK,
            tp,
            c,
          })
        : 0;
    let layer =
      prefillTokens * (4 * g.hidden + c * 2 * g.hidden) +
      Math.max(prefillTokens * c * (qd + g.kvHeads * 2 * g.headDim + qd), mlp, moe * tp) / tp;
    if (o.attention === 'eager') layer += o.batch * (g.heads / tp) * o.seq * kvLen * (4 + c);
    prefill = Math.max(prefill, layer);
  }
  // Speculative decoding: the draft's layers keep their own KV cache (memory/speculative.ts).
  for (const g of draftGroups(s))
    kv += g.count * o.batch * cache.cells(g, held) * cache.tokenBytes(g);
  return { kv, prefill, state };
}

/**
 * llama.cpp `-ngl`: the first layers' weights and KV on the GPU, the output layer too once every layer is
 * there (n_gpu_layers > n_layer, llama-model.cpp), token embeddings always on the host; the rest in host RAM.
 * `--n-cpu-moe N` puts the routed-expert tensors of the first N layers in host RAM besides (common/arg.cpp at
 * 25d5b0c5: a CPU buffer override for `blk.<i>.ffn_(up|down|gate)_exps`, i < N); -ngl leaves the first layers on
 * the host too, so the host holds the experts of the first max(N, L - ngl) layers, taken as that share of the
 * MoE layers' experts (every layer is MoE in Qwen3-MoE, gpt-oss, Mixtral; DeepSeek-V3's first 3 are dense).
 */
function layerSplit(
  s: Setup,
  h: Holdings,
): { gpuShare: number; weights: number; constants?: number; host: number } {
  const L = s.facts.totalLayers;
  const ngl = Math.min(s.o.gpuLayers ?? L + 1, L + 1);
  const share = Math.min(ngl, L) / L;
  const embed = s.arch.embedParams * s.floatBytes;
  const head = h.hasHead ? s.arch.lmHeadParams * s.floatBytes : 0;
  const layers = Math.max(0, h.weights - embed - head);
  const cpuMoe = s.o.cpuMoeLayers ?? 0;
  if (cpuMoe === 0) {
    const weights = Math.min(h.weights, layers * share + (ngl > L ? head : 0));
    return { gpuShare: share, weights, host: Math.max(0, h.weights - weights) };
  }
  // The experts this GPU's layers hold (the layout holdingsOf gives them: lf of them over tp).
  const x = expertStorageOf(s.arch, s.o);
  const expertWeights = Math.min(h.weights, ((x.values + x.bias) * s.lf) / s.tp);
  const expertConstants = Math.min(h.quantConstants, (x.constants * s.lf) / s.tp);
  // The host holds the experts of the first max(N, L - ngl) layers; over a layer split (--gpus N) the busiest GPU
  // is the last stage, whose layers come last: the share of its layers whose experts stay on it.
  const hostExpertLayers = Math.max(Math.min(cpuMoe, L), L - Math.min(ngl, L));
  const stageLayers = s.lf * L;
  const expertsOnGpu = Math.min(
    1,
    Math.max(0, L - Math.max(hostExpertLayers, L - stageLayers)) / stageLayers,
  );
  const weights = Math.min(
    h.weights,
    (layers - expertWeights) * share + expertWeights * expertsOnGpu + (ngl > L ? head : 0),
  );
  const constants = h.quantConstants - expertConstants * (1 - expertsOnGpu);
  // Host RAM per GPU: the one llama-server process's host-held experts spread over its GPUs (times the GPUs, the
  // whole), the rest of the layers past -ngl and the token embeddings as before.
  const hostExperts = ((expertWeights + expertConstants) * hostExpertLayers) / L;
  const hostLayers =
    Math.max(0, layers - expertWeights) * (1 - share) + (ngl > L ? 0 : head) + embed;
  return {
    gpuShare: share,
    weights,
    constants,
    host: Math.max(0, Math.min(h.weights + h.quantConstants, hostExperts + hostLayers)),
  };
}

/** Inference: KV cache, prefill activations and logits; a serving engine's paged pool fills the rest. */
export function inferencePhases(
  s: Setup,
  h: Holdings,
  base: Parts,
  tower: TowerBytes | null,
): { phases: PhaseParts[]; kvPool?: KvPool; host: number; poolStart: number } {
  const { o, fw, tp, tokens } = s;
  const full = kvAndPrefill(s);
  const split = fw.layerOffload ? layerSplit(s, h) : null;
  // The cache per GPU: KV that grows with the context plus the fixed recurrent state (poolFill sizes the pool
  // by the growing part per token).
  const cache = full.kv + full.state;
  const kv = split ? cache * split.gpuShare : cache;
  const prefill = full.prefill;
  const logitRows = fw.prefillLogits === 'all' ? tokens : o.batch;
  // A paged-pool engine sizes its pool after a profiling step whose sampler runs over every sequence slot
  // (max_num_seqs: the plan's batch, or the server's cap where it is larger) with top-k/top-p on the whole
  // vocabulary; vLLM gathers the logits to every TP rank (V1 all_gather), so each rank holds them. llama.cpp
  // reserves fp32 rows for one ubatch.
  const logits = !h.hasHead
    ? 0
    : split
      ? Math.min(tokens, fw.ubatch ?? tokens) * s.V * 4
      : fw.kvCache === 'paged-pool' && fw.server
        ? Math.max(o.batch, o.maxNumSeqs ?? 0) * s.V * fw.server.samplerBytesPerLogit
        : (logitRows * s.V * s.c + o.batch * s.V * 4) / tp;
  const kvTransient = fw.kvCache === 'dynamic' ? kv / Math.max(1, s.facts.totalLayers * s.lf) : 0; // torch.cat of one layer
  // bitsandbytes 4-bit dequantizes a whole weight for any input of more than one row (matmul_4bit: the gemv
  // kernel serves one token of one sequence): every prefill, and decode steps of a batch. LLM.int8 inference
  // multiplies in int8 and dequantizes only its outlier columns (MatMul8bitLt.forward).
  const bnbDequant = fw.bnbSavesInput && isFourBitFloat(o.weights) ? s.dequant : 0;
  const draft = draftWeightBytes(s);
  // Multi-LoRA serving: the engine's preallocated adapter slots (memory/multi-lora.ts).
  // One adapter run unmerged (FrameworkProfile.unmergedLora): its A and B on the targeted linears, no slots.
  const slots =
    fw.unmergedLora && o.maxLoras === 1
      ? unmergedAdapterBytes(s.arch, o, s.c)
      : loraSlotBytes(s.arch, o, s.c);
  // A tower in its own file (llama.cpp's mmproj) sits whole on the GPU that runs it, outside the layer split
  // (FrameworkProfile.visionFile).
  const file = towerFileBytes(s, tower);
  // llama.cpp allocates each adapter's A and B in the buffer type of the weight they adapt
  // (llama_adapter_lora_init_impl, src/llama-adapter.cpp at 25d5b0c5): they follow the -ngl split.
  const onGpu = split
    ? {
        ...base,
        weights: split.weights + file,
        quantConstants: split.constants ?? base.quantConstants,
        adapters: base.adapters + slots * split.gpuShare,
      }
    : draft > 0 || slots > 0 || file > 0
      ? { ...base, weights: base.weights + draft + file, adapters: base.adapters + slots }
      : base;
  const graphs = cudaGraphBytes(s);
  const listed: PhaseParts[] = [
    {
      phase: 'prefill',
      parts: { ...onGpu, kvCache: kv, activations: prefill, logits, buffers: bnbDequant },
    },
    {
      phase: 'decode',
      parts: {
        ...onGpu,
        kvCache: kv,
        buffers: kvTransient + (o.batch > 1 ? bnbDequant : 0) + graphs,
      },
    },
  ];
  // The tower encodes the prompt's images before the prefill (a paged pool is sized after it: vLLM profiles
  // its encoder with the most multimodal items a batch admits, gpu_model_runner.py profile_run).
  const phases = tower ? withTower(listed, tower, 1) : listed;
  const host = split ? split.host + (cache - kv) + slots * (1 - split.gpuShare) : 0;
  const poolStart = poolStartBudget(s, phases, full.kv, full.state);
  const kvPool = poolFill(s, phases, full.kv, full.state);
  return kvPool ? { phases, kvPool, host, poolStart } : { phases, host, poolStart };
}

/** Bytes of the tower's own file on this stage: where the tower runs (`tower` non-null) and the engine keeps one. */
export const towerFileBytes = (s: Setup, tower: TowerBytes | null): number =>
  tower && s.visionFile ? s.visionFile.bytes : 0;

/** A serving engine's CUDA-graph buffers outside its pool's budget (its profile's sizing). */
function cudaGraphBytes(s: Setup): number {
  if (!s.fw.server || !s.ctx.gpuCapacityBytes) return 0;
  return s.fw.server.sizing(s.ctx.gpuCapacityBytes, s.tp, s.pp, s.ctx.gpuDeviceName).cudaGraphBytes;
}

/**
 * A serving engine's paged pool, filled in place: vLLM hands every byte below gpu_memory_utilization that
 * its profiled peak leaves to KV blocks; SGLang gives the pool mem_fraction_static of memory less the weights.
 */
function poolFill(s: Setup, phases: PhaseParts[], kv: number, state: number): KvPool | undefined {
  const { o, fw, ctx } = s;
  if (fw.kvCache !== 'paged-pool' || !fw.server || !ctx.gpuCapacityBytes) return undefined;
  const context = fw.cudaContextMiB * MiB;
  const staticBudget = fw.poolBudget === 'static';
  const fraction = fw.server.sizing(
    ctx.gpuCapacityBytes,
    s.tp,
    s.pp,
    ctx.gpuDeviceName,
  ).poolFraction;
  const budget = fraction * ctx.gpuCapacityBytes - context;
  let pool = Infinity;
  for (const p of phases) {
    const need = staticBudget
      ? p.parts.weights + p.parts.quantConstants + p.parts.kvCache
      : sumParts(p.parts);
    pool = Math.min(pool, budget - (need - p.parts.kvCache));
    if (need < budget) p.parts.kvCache += budget - need;
  }
  // A sequence's fixed recurrent state takes pool blocks too (vLLM: one Mamba block per request and group;
  // SGLang: its MambaPool, sized from the same memory): each token carries its share at the held context.
  const perToken = (kv + state) / (o.batch * pagedTokensPerSeq(s));
  return {
    poolBytes: Math.max(0, pool),
    bytesPerToken: perToken,
    tokens: perToken > 0 ? Math.floor(Math.max(0, pool) / perToken) : 0,
  };
}

/**
 * What a paged-pool server's budget must hold for it to start (0 for other engines): what it holds beside the
 * pool (vLLM: the CUDA context and the profiled peak without KV; SGLang: the context, weights and their
 * constants) plus the least pool it starts with: one request of o.seq tokens where the engine checks for one
 * (poolHoldsMaxLen), else one token (SGLang raises on an empty pool).
 */
function poolStartBudget(s: Setup, phases: PhaseParts[], kv: number, state: number): number {
  const { o, fw } = s;
  if (fw.kvCache !== 'paged-pool' || !fw.server) return 0;
  const perToken = (kv + state) / (o.batch * pagedTokensPerSeq(s));
  const least = (fw.server.poolHoldsMaxLen ? o.seq : 1) * perToken;
  let beside = 0;
  for (const p of phases)
    beside = Math.max(
      beside,
      fw.poolBudget === 'static'
        ? p.parts.weights + p.parts.quantConstants
        : sumParts(p.parts) - p.parts.kvCache,
    );
  return fw.cudaContextMiB * MiB + beside + least;
}

/**
 * The least GPU memory a server whose budget must hold `budget` bytes starts on (poolStartBudget), when a GPU of
 * `capacity` bytes is short of it: budget / its pool fraction on that GPU; 0 when the GPU suffices.
 */
export function poolStartShort(
  fw: FrameworkProfile,
  budget: number,
  capacity: number,
  tp: number,
  pp: number,
): number {
  if (budget <= 0 || !fw.server) return 0;
  const fraction = fw.server.sizing(capacity, tp, pp).poolFraction;
  return fraction * capacity >= budget ? 0 : budget / fraction;
}

/**
 * The largest one-off tensor of a step: its cached block stays reserved when smaller requests reuse the
 * pool (PyTorch caching allocator keeps freed blocks; ZeRO §3.2 on fragmentation; meta-pytorch/torchtune#1185).
 */
export function largestTransient(s: Setup, hasHead: boolean): number {
  const { o, fw, arch, c, tp, tokens, V } = s;
  let transient = 0;
  // Inference runs its prompts in chunks under a serving engine (prefillChunk: all tokens otherwise).
  const chunk = s.training ? tokens : prefillChunk(s);
  for (const g of arch.groups) transient = Math.max(transient, (chunk * g.ffn * g.topK * c) / tp);
  if (hasHead && V > 0) {
    const fused = fusedLossChunk(s);
    const head = chunkedHeadRows(s);
    const lossTensor = s.training
      ? head !== null
        ? head * V * (compiledUpcastLoss(s) ? c : 4) // one chunk's largest (chunkedHead: training.ts)
        : fused !== null
          ? fused * V * 4 // one chunk's fp32 logits, the size the fused loss caps
          : s.fusedLinearLoss
            ? ligerChunkRows(tokens, V, arch.hidden) * V * c // one chunk of logits, re-made per chunk
            : o.chunkedLoss
              ? 0
              : compiledUpcastLoss(s)
                ? tokens * V * c // a compiled loss's largest temporary: the 16-bit logits' gradient
                : tokens * V * 4
      : (fw.prefillLogits === 'all' ? tokens : o.batch) * V * 4;
    transient = Math.max(transient, lossTensor / tp);
  }
  if (o.attention === 'eager')
    for (const g of arch.groups)
      transient = Math.max(transient, (o.batch * g.heads * o.seq * o.seq * 4) / tp);
  return transient;
}

/**
 * Whether an estimate of `o` is the same with flash or SDPA attention: an inference estimate reads the attention
 * only as eager or not (the scores eager attention keeps in a prefill layer, in a step's largest transient and in
 * the vision tower's forward), so flash and SDPA estimate alike (test/core/memory-attention-alike.test.ts).
 */
export const attentionAlike = (o: EstimateOptions): boolean =>
  o.method === 'inference' && o.attention !== 'eager';
