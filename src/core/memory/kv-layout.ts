/**
 * How a serving engine lays out the KV cache and the recurrent (linear-attention / SSM) state, as its memory
 * profile's cacheLayout says: the dtypes it keeps the state in, the cells it gives a sliding-window layer, and
 * hybrid page unification (attention and Mamba pages of one size, layer groups of one size). Pure: memory.ts
 * applies it per GPU.
 */
import type { Arch, LayerGroup, RecurrentState } from '../model/arch.js';
import type { CacheLayoutProfile, FrameworkProfile } from './framework-profile.js';

// fp32 bytes: transformers' Gated DeltaNet state (torch_chunk_gated_delta_rule casts to float32,
// modeling_qwen3_next.py at huggingface/transformers@01cdc608; stateDtypeBytes below).
const FP32 = 4;

/**
 * Bytes per element of the conv state and of the temporal (SSM / delta-rule) state under the engine's cache
 * layout (`cl`; CacheLayoutProfile). Without one, as transformers keeps them: a Mamba state in the model dtype
 * (or the dtype the config names) and a Gated DeltaNet state in fp32.
 */
export function stateDtypeBytes(
  cl: CacheLayoutProfile | undefined,
  r: RecurrentState,
  c: number,
): { conv: number; temporal: number } {
  if (cl)
    return {
      conv: cl.convStateBytes === 'compute' ? c : cl.convStateBytes,
      temporal:
        cl.temporalStateBytes === 'config'
          ? (r.stateBytes ?? r.vllmStateBytes ?? c)
          : cl.temporalStateBytes,
    };
  // transformers' LinearAttentionLayer allocates the state like the tensor the mixer returns (zeros_like in
  // cache_utils.py); the Gated DeltaNet kernels return it in fp32 (torch_chunk_gated_delta_rule casts q, k, v
  // to float32, modeling_qwen3_next.py at huggingface/transformers@01cdc608; fla's chunk kernels likewise).
  if (r.kind === 'gated-deltanet') return { conv: c, temporal: FP32 };
  return { conv: c, temporal: r.stateBytes ?? c };
}

/**
 * KV cells a sliding-window (or chunked-attention) layer holds per sequence of `held` tokens under the engine's
 * cache layout (CacheLayoutProfile.sliding): whole blocks over the window plus one ("+1 here because the
 * sliding window may not start from the beginning of the block", vLLM's SlidingWindowSpec), the window plus
 * the ubatch padded, or a share of the pool per token held. Without a layout, the window.
 */
export function slidingCells(
  cl: CacheLayoutProfile | undefined,
  window: number,
  held: number,
  ubatch: number,
): number {
  const sl = cl?.sliding;
  if (sl?.kind === 'blocks') {
    const blocks = Math.ceil((window - 1) / sl.blockTokens) + 1;
    return Math.min(held, blocks * sl.blockTokens);
  }
  if (sl?.kind === 'padded') return Math.min(held, Math.ceil((window + ubatch) / sl.pad) * sl.pad);
  // A sliding pool sized by the full pool: a token held carries its share of it, whatever the window.
  if (sl?.kind === 'pool-share') return sl.ratio * held;
  return Math.min(held, window);
}

/**
 * One sequence's state in one recurrent layer, per TP rank (vLLM MambaStateShapeCalculator shapes). Under TP a
 * Mamba2 layer whose n_groups TP does not divide gets tp - n_groups more groups, so every head shard holds the B
 * and C groups it reads (mamba2_state_shape, extra_groups_for_head_shards).
 */
export function recurrentLayerBytes(
  r: RecurrentState,
  tp: number,
  dtype: { conv: number; temporal: number },
): number {
  const extra = r.groups && tp > 1 && r.groups % tp !== 0 ? tp - r.groups : 0;
  const channels = r.convChannels + 2 * extra * r.keyDim;
  const conv = (channels / tp) * (r.convKernel - 1) * dtype.conv;
  const temporal = Math.ceil(r.heads / tp) * r.keyDim * r.valueDim * dtype.temporal;
  return conv + temporal;
}

/** Per-token KV bytes of one attention layer on one TP rank (FullAttentionSpec / MLAAttentionSpec page / block). */
export function attentionTokenBytes(g: LayerGroup, tp: number, kvElem: number): number {
  // Each TP rank holds at least one KV head (replicated when kvHeads < tp; vLLM/Megatron).
  const kv = (g.mlaCacheWidth ?? Math.ceil(g.kvHeads / tp) * (g.headDim + g.vHeadDim)) * kvElem;
  return kv + (g.extraCacheBytes ?? 0);
}

/** A kind of cached layer: full attention, a sliding window of one size, or a recurrent mixer. */
const kindOf = (g: LayerGroup): string =>
  g.recurrent ? 'state' : g.slidingWindow ? `window:${g.slidingWindow}` : 'full';

/** The decoder's cached layers by kind, and the size of the KV-cache groups they are split into. */
function layerKinds(arch: Arch): { counts: Map<string, number>; groupSize: number } {
  const counts = new Map<string, number>();
  for (const g of arch.groups)
    if (g.name === 'decoder' && !g.kvShared)
      counts.set(kindOf(g), (counts.get(kindOf(g)) ?? 0) + g.count);
  const sizes = [...counts.values()];
  const min = Math.min(...sizes);
  const max = Math.max(...sizes);
  return { counts, groupSize: max < min * 1.5 ? max : min }; // kv_cache_utils.py: "1.5 is a heuristic"
}

/**
 * KV-cache groups of a hybrid layout with uniform pages (CacheLayoutProfile.hybridPages): one for a model whose
 * cached layers are all of one kind, else each kind's layers in groups of one size (layerKinds), each group with
 * its own block table the engine's scheduler and model runner keep per request (vLLM's KVCacheCoordinator runs one
 * SingleTypeKVCacheManager a group, vllm/v1/core/kv_cache_coordinator.py; MultiGroupBlockTable one BlockTable a
 * group, vllm/v1/worker/block_table.py). gpt-oss's 12 full and 12 sliding-window layers make two.
 */
export function kvCacheGroups(arch: Arch): number {
  const { counts, groupSize } = layerKinds(arch);
  if (counts.size <= 1) return 1;
  let groups = 0;
  for (const n of counts.values()) groups += Math.ceil(n / groupSize);
  return groups;
}

/**
 * A hybrid KV layout with uniform pages (CacheLayoutProfile.hybridPages; vLLM's
 * vllm/v1/core/kv_cache_utils.py _get_kv_cache_groups_uniform_page_size): layers of each kind are split into
 * KV-cache groups of one size (the fewest layers of any kind, or the most when that is under 1.5 x the fewest),
 * the last group of a kind padded with empty slots that hold blocks like real layers. A Mamba layer's page is
 * padded to the attention page of the smallest `blockTokens` multiple that holds it (vLLM's
 * HybridAttentionMambaModelConfig, no prefix caching). Returns the factor each kind's bytes grow by.
 */
export function hybridPadding(
  arch: Arch,
  blockTokens: number,
  stateBytes: (r: RecurrentState) => number,
  tokenBytes: (g: LayerGroup) => number,
): { layers: (g: LayerGroup) => number; statePage: (g: LayerGroup) => number } {
  const cached = arch.groups.filter((g) => g.name === 'decoder');
  const { counts, groupSize } = layerKinds(arch);
  const layers = (g: LayerGroup): number => {
    const n = counts.get(kindOf(g)) ?? g.count;
    return counts.size > 1 ? (Math.ceil(n / groupSize) * groupSize) / n : 1;
  };
  const attention = cached.find((g) => !g.recurrent);
  const statePage = (g: LayerGroup): number => {
    if (!g.recurrent || !attention) return 1;
    const page = stateBytes(g.recurrent);
    const token = tokenBytes(attention);
    const block = blockTokens * Math.ceil(page / (blockTokens * token));
    return page > 0 ? (block * token) / page : 1;
  };
  return { layers, statePage };
}

/** What one sequence holds per layer of a group, per GPU, as an engine lays its cache out. */
export interface CacheShape {
  /**
   * Tokens per KV block of full-attention layers under hybrid pages (the layout's blockTokens, or a hybrid Mamba
   * model's larger block); 1 without them.
   */
  block: number;
  /** One sequence's recurrent state in one layer of the group, with the hybrid page and group padding. */
  stateBytes: (g: LayerGroup) => number;
  /** One token's KV in one attention layer of the group, with the hybrid group padding. */
  tokenBytes: (g: LayerGroup) => number;
  /** KV cells one sequence of `held` tokens keeps in a layer of the group (0 for recurrent layers). */
  cells: (g: LayerGroup, held: number) => number;
}

/**
 * The cache shape of `arch` under `fw` with `c`-byte compute, TP `tp` and `kvElem`-byte KV elements: a layout
 * with hybrid pages pads hybrid models' layer groups and Mamba pages (hybridPadding) and rounds a hybrid Mamba
 * model's full-attention KV up to its large blocks; `ubatch` is the engine's physical batch (padded SWA cells).
 */
export function cacheShapeOf(
  arch: Arch,
  fw: FrameworkProfile,
  o: { c: number; tp: number; kvElem: number; ubatch: number },
): CacheShape {
  const cl = fw.cacheLayout;
  const perState = (r: RecurrentState): number =>
    recurrentLayerBytes(r, o.tp, stateDtypeBytes(cl, r, o.c));
  const perToken = (g: LayerGroup): number => attentionTokenBytes(g, o.tp, o.kvElem);
  const hybrid = cl?.hybridPages;
  const pad = hybrid ? hybridPadding(arch, hybrid.blockTokens, perState, perToken) : null;
  const attention = arch.groups.find((g) => g.name === 'decoder' && !g.recurrent);
  const stateGroup = arch.groups.find((g) => g.name === 'decoder' && g.recurrent);
  // A hybrid Mamba model's attention block holds the padded Mamba page (HybridAttentionMambaModelConfig).
  const block =
    pad && attention && stateGroup?.recurrent
      ? Math.round(
          (pad.statePage(stateGroup) * perState(stateGroup.recurrent)) / perToken(attention),
        )
      : (hybrid?.blockTokens ?? 1);
  const layers = (g: LayerGroup): number => (pad ? pad.layers(g) : 1);
  return {
    block,
    stateBytes: (g) =>
      g.recurrent ? perState(g.recurrent) * layers(g) * (pad ? pad.statePage(g) : 1) : 0,
    tokenBytes: (g) => (g.recurrent || g.kvShared ? 0 : perToken(g) * layers(g)),
    cells: (g, held) => {
      if (g.recurrent) return 0;
      if (g.slidingWindow) return slidingCells(cl, g.slidingWindow, held, o.ubatch);
      // Whole blocks: only a hybrid Mamba model's blocks (hundreds of tokens) are worth counting.
      return pad && block > hybrid!.blockTokens ? Math.ceil(held / block) * block : held;
    },
  };
}

export interface CacheFigures {
  kvBytesPerToken: number;
  windowBytesPerSequence: number;
  stateBytesPerSequence: number;
}

/**
 * The cache of one sequence per GPU, split by how it grows: bytes per token of context (full-attention
 * layers), bytes its sliding-window layers hold once the context passes their window, and the fixed
 * recurrent state. Vision towers and encoders keep no cache.
 */
export function cacheFigures(arch: Arch, shape: CacheShape): CacheFigures {
  let kvBytesPerToken = 0;
  let windowBytesPerSequence = 0;
  let stateBytesPerSequence = 0;
  for (const g of arch.groups) {
    if (g.name === 'vision' || g.name === 'encoder') continue;
    stateBytesPerSequence += g.count * shape.stateBytes(g);
    if (g.recurrent) continue;
    // A layer whose cells stop at a window holds them per sequence; one whose cells follow the context (full
    // attention, SGLang's sliding pool share) adds its cells per token.
    const capped = g.slidingWindow ? shape.cells(g, Infinity) : Infinity;
    const perToken = g.slidingWindow ? shape.cells(g, 1) : 1;
    if (Number.isFinite(capped)) windowBytesPerSequence += g.count * capped * shape.tokenBytes(g);
    else kvBytesPerToken += g.count * perToken * shape.tokenBytes(g);
  }
  return { kvBytesPerToken, windowBytesPerSequence, stateBytesPerSequence };
}

/** Bytes per KV element: the compute dtype (`c`), or fp8 (in the format the engine's cache layout writes it). */
export function kvElementBytes(
  fw: FrameworkProfile,
  kvCacheDtype: string | undefined,
  c: number,
): number {
  if (kvCacheDtype === 'q4_0') return fw.cacheLayout?.q4KvElementBytes ?? c; // flags.ts refuses it elsewhere
  if (kvCacheDtype !== 'fp8') return c; // 'auto' = the compute dtype (vLLM, SGLang, HF, torchtune)
  return fw.cacheLayout?.fp8KvElementBytes ?? 1;
}

/** One sequence's cache reads split by how they grow: per token of context, per sliding window, fixed. */
interface CacheReads {
  perToken: number;
  /** Pairs of (window tokens, bytes per token inside it) for the sliding-window layer groups. */
  windows: number[];
  fixed: number;
}

// The planner times millions of decode steps: the split is kept per architecture and cache layout.
const READS = new WeakMap<Arch, Map<CacheLayoutProfile | undefined, Map<number, CacheReads>>>();

function cacheReads(
  arch: Arch,
  cl: CacheLayoutProfile | undefined,
  o: { c: number; tp: number; kvElem: number },
): CacheReads {
  const key = (o.c * 65536 + o.tp) * 4096 + o.kvElem * 64;
  let byLayout = READS.get(arch);
  if (!byLayout) READS.set(arch, (byLayout = new Map()));
  let byKey = byLayout.get(cl);
  if (!byKey) byLayout.set(cl, (byKey = new Map()));
  let r = byKey.get(key);
  if (r) return r;
  r = { perToken: 0, windows: [], fixed: 0 };
  for (const g of arch.groups) {
    if (g.name === 'vision' || g.name === 'encoder') continue;
    if (g.recurrent)
      r.fixed +=
        2 * g.count * recurrentLayerBytes(g.recurrent, o.tp, stateDtypeBytes(cl, g.recurrent, o.c));
    else if (g.slidingWindow)
      r.windows.push(g.slidingWindow, g.count * attentionTokenBytes(g, o.tp, o.kvElem));
    else if (g.attendTopK) {
      // Sparse attention reads the indexer's keys for every token, the KV of the top-k it picks (a window's cap).
      const extra = g.extraCacheBytes ?? 0;
      r.windows.push(g.attendTopK, g.count * (attentionTokenBytes(g, o.tp, o.kvElem) - extra));
      r.perToken += g.count * extra;
    } else r.perToken += g.count * attentionTokenBytes(g, o.tp, o.kvElem);
  }
  byKey.set(key, r);
  return r;
}

/**
 * The TP degree one GPU's cache (and a layer's intermediates) splits over: none under a row split
 * (FrameworkProfile.tpRowSplit: the cache stays whole on the main GPU), else the KV heads over `tp`. Memory stores
 * and decode time reads the same layout through it.
 */
export const cacheTpOf = (fw: FrameworkProfile, tp: number): number => (fw.tpRowSplit ? 1 : tp);

/**
 * Bytes one decode step moves through one sequence's cache on one GPU at context `ctx`, from the per-layer
 * figures the memory model stores (attentionTokenBytes, recurrentLayerBytes in the engine's state dtypes):
 * a full-attention layer reads every token's cell (the MLA latent, or the KV heads this TP rank holds), a
 * sliding-window layer the tokens inside its window, a sparse-attention layer its indexer's keys for every token and
 * the KV of the attendTopK tokens it picks, and a recurrent layer reads and writes its state once.
 * Empty slots of hybrid groups and Mamba page padding hold memory no kernel reads: not counted.
 */
export function decodeCacheBytes(
  arch: Arch,
  fw: FrameworkProfile,
  o: { c: number; tp: number; kvElem: number },
  ctx: number,
): number {
  const r = cacheReads(arch, fw.cacheLayout, o);
  let bytes = r.perToken * ctx + r.fixed;
  for (let i = 0; i < r.windows.length; i += 2)
    bytes += Math.min(ctx, r.windows[i]!) * r.windows[i + 1]!;
  return bytes;
}

/** One vLLM startup log of calibration/kv-cache.json beside the estimate (`validate`). */
export interface KvCacheRow {
  id: string;
  model: string;
  tp: number;
  /** The log's pool over its tokens, and the estimate's KV bytes per token per GPU. */
  measuredBytesPerToken: number;
  estimatedBytesPerToken: number;
  error: number;
}
