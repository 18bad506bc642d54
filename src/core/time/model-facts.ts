/** Model facts the time model reads (GPU-independent, computed once per model), and the phase names. */
import type { Arch } from '../model/arch.js';
import { valueBytes } from '../model/dtypes.js';
import { ggufLinearBytes } from '../model/native-weights.js';
import { ligerPatches } from '../kernels/liger.js';
import { isGguf, type EstimateOptions } from '../../schema/estimate.js';

// ---------------------------------------------------------------------------------------------
// Model facts (GPU-independent, computed once per model).

export interface ModelFacts {
  layers: number;
  hidden: number;
  /** heads x head dim (query width). */
  attnWidth: number;
  /** kv heads x head dim. */
  kvWidth: number;
  heads: number;
  ffn: number;
  gated: boolean;
  causal: boolean;
  rms: boolean;
  norms: number;
  vocab: number;
  /** Linear weight elements a token passes through (MoE: topK experts). */
  linearActive: number;
  /**
   * All linear weight elements of the language model's layers (MoE: every expert): what a decode step or a forward
   * over text tokens reads. A multimodal checkpoint's vision-tower linears are `towerLinear`.
   */
  linearTotal: number;
  /**
   * The vision tower's block linears: stored, but run only over image patches in the encoder phase (time/vision.ts
   * towerTime), never per text token or decode step; 0 without a tower.
   */
  towerLinear: number;
  /** Routed-expert weights per layer (one expert) and the expert counts; 0 for dense. */
  expertWeightsPerLayer: number;
  experts: number;
  topK: number;
  /** A grouped router's expert groups (LayerGroup.routerGroups; 1 where the config gives none). */
  routerGroups: number;
  /** Layers with routed experts, the routed linears per expert (gate, up, down) and one expert's width. */
  moeLayers: number;
  expertLinears: number;
  expertFfn: number;
  /**
   * Linears outside the routed experts (one copy per layer), summed over the layers: weight elements and in /
   * out features (what FP8 training converts: kernels/float8.ts).
   */
  denseLinear: number;
  denseIn: number;
  denseOut: number;
  /** Linear modules per layer (kernel counts, LLM.int8 overhead). */
  linearsPerLayer: number;
  /** Of those, the linear modules with a bias (bitsandbytes' 4-bit mat-vec adds it in an op of its own). */
  biasedLinearsPerLayer: number;
  /** Output-projection matmul weights (vocab x hidden, tied or not; 0 for encoders). */
  lmHead: number;
  /** Parameters of the model (all) and active per token. */
  total: number;
  active: number;
  /** Liger patches this model type (use_liger_kernel is a no-op otherwise: kernels/liger.ts). */
  liger: boolean;
  /** Layers with softmax attention (all but linear-attention / SSM layers). */
  attnLayers: number;
  /** Of those, the layers that normalize q and k per head before the rotary (LayerGroup.qkNorm). */
  qkNormLayers: number;
  /** Of those, the layers of plain multi-head attention: no per-head q/k norm, no MLA latent (LayerGroup.mlaCacheWidth). */
  plainAttnLayers: number;
  /** Some text layer caches an MLA latent (mlaLayers > 0): the engine's attention backend may differ. */
  mla: boolean;
  /** Text layers whose attention caches an MLA latent (LayerGroup.mlaCacheWidth). */
  mlaLayers: number;
  /**
   * The latent's value columns, kv_lora_rank (the input of the layers' kv_b linear), over its cached width (kv_lora_rank
   * + the rope dims, LayerGroup.mlaCacheWidth): what a kernel reading only the values reads of each cached row. 0: no
   * MLA layer, or none with a kv_b linear.
   */
  mlaValueShare: number;
  /** MoE layers with a shared expert: a down projection outside the routed experts (copies 1). */
  sharedExpertLayers: number;
  /** Text layers whose attention runs its own sparse-attention indexer (LayerGroup.attendTopK: DeepSeek Sparse Attention). */
  indexerLayers: number;
  /** Linear-attention layers: FLOPs per token (all of them). */
  recurrentFlopsPerToken: number;
  /** The architecture whose cache layout decode reads (kv-layout.ts decodeCacheBytes). */
  arch: Arch;
  /** The config's model_type (per-model-class kernels: the engine profile's moeDense). */
  modelType: string;
}

/** The text layers' linears outside the routed experts (one copy per layer): weights and in / out features. */
function denseLinears(arch: Arch): { denseLinear: number; denseIn: number; denseOut: number } {
  let denseLinear = 0;
  let denseIn = 0;
  let denseOut = 0;
  for (const g of arch.groups) {
    if (g.name === 'vision') continue;
    for (const l of g.linears) {
      if (l.copies > 1) continue;
      denseLinear += g.count * l.inFeatures * l.outFeatures;
      denseIn += g.count * l.inFeatures;
      denseOut += g.count * l.outFeatures;
    }
  }
  return { denseLinear, denseIn, denseOut };
}

/**
 * The text layers of MLA attention (any of them: `mla`), the MoE layers with a shared expert (a down projection
 * outside the experts), and the layers that run a sparse-attention indexer of their own.
 */
function mlaAndSharedLayers(
  arch: Arch,
): Pick<
  ModelFacts,
  'mla' | 'mlaLayers' | 'mlaValueShare' | 'sharedExpertLayers' | 'indexerLayers'
> {
  let mlaLayers = 0;
  let mlaValueShare = 0;
  let sharedExpertLayers = 0;
  let indexerLayers = 0;
  for (const g of arch.groups) {
    if (g.name === 'vision') continue;
    if (g.mlaCacheWidth !== null) mlaLayers += g.count;
    const kvb = g.linears.find((l) => l.role === 'kv_b');
    if (g.mlaCacheWidth !== null && kvb !== undefined)
      mlaValueShare = kvb.inFeatures / g.mlaCacheWidth;
    if (g.attendTopK !== undefined) indexerLayers += g.count;
    const shared = g.linears.some((l) => l.role === 'down' && l.copies === 1);
    if (g.experts > 1 && shared) sharedExpertLayers += g.count;
  }
  return { mla: mlaLayers > 0, mlaLayers, mlaValueShare, sharedExpertLayers, indexerLayers };
}

/** The vision tower's block linears (weight elements): it runs over image patches only (time/vision.ts). */
function towerLinears(arch: Arch): number {
  let n = 0;
  for (const g of arch.groups) {
    if (g.name !== 'vision') continue;
    for (const l of g.linears) n += g.count * l.inFeatures * l.outFeatures * l.copies;
  }
  return n;
}

/** Text-only architectures by architecture object (textOnlyArch), made once each. */
const TEXT_ONLY = new WeakMap<Arch, Arch>();

/**
 * The layers a request without images runs. A decoder's cross-attention layers over a vision tower's states
 * (Llama 3.2 Vision's MllamaCrossAttentionDecoderLayer) are skipped whole, attention and MLP, when the batch carries
 * no image: vLLM's MllamaForConditionalGeneration.forward sets `skip_cross_attention = max(encoder_seq_lens) == 0`
 * for text-only prefill and decode and MllamaTextModel.forward runs a cross layer only `if not skip_cross_attention`
 * (vllm/model_executor/models/mllama.py at vllm-project/vllm@005ad95003ff57af6f921ac33a3507780ac756d2); SGLang's
 * mllama.py carries the same test, and transformers' MllamaTextModel skips a cross layer while it has no
 * cross_attention_states and an empty cross cache. An encoder-decoder's cross layers (a T5 decoder: no vision tower)
 * always run.
 */
export function textOnlyArch(arch: Arch): Arch {
  let a = TEXT_ONLY.get(arch);
  if (a === undefined) {
    const tower = arch.groups.some((g) => g.name === 'vision');
    const skipped = (g: Arch['groups'][number]) => tower && g.crossAttention && g.name !== 'vision';
    a = arch.groups.some(skipped)
      ? { ...arch, groups: arch.groups.filter((g) => !skipped(g)) }
      : arch;
    TEXT_ONLY.set(arch, a);
  }
  return a;
}

/** The architecture a serving configuration runs: text-only requests skip the image cross layers (textOnlyArch). */
export const servedArch = (arch: Arch, o: EstimateOptions): Arch =>
  o.method === 'inference' && !o.images ? textOnlyArch(arch) : arch;

/** Facts by architecture object: modelFacts is a pure function of it, and no caller writes to the facts. */
const FACTS = new WeakMap<Arch, ModelFacts>();

/**
 * The facts of `arch`, made once per architecture object: the serving fleet's per-source searches, their
 * latencies and the speculative drafts asked for them per plan and per timing (thousands of times a plan).
 */
export function modelFacts(arch: Arch): ModelFacts {
  let m = FACTS.get(arch);
  if (m === undefined) FACTS.set(arch, (m = factsOf(arch)));
  return m;
}

/** The shape facts read from the first layer group (attention widths, the MLP, the norms). */
function firstGroupFacts(arch: Arch) {
  const g0 = arch.groups[0];
  return {
    attnWidth: g0 ? g0.heads * g0.headDim : arch.hidden,
    kvWidth: g0 ? g0.kvHeads * g0.headDim : arch.hidden,
    heads: g0?.heads ?? 1,
    ffn: g0?.ffn ?? 4 * arch.hidden,
    gated: g0?.gated ?? false,
    causal: g0?.causal ?? true,
    rms: g0?.norm === 'rms',
    norms: g0?.normsPerLayer ?? 2,
  };
}

function factsOf(arch: Arch): ModelFacts {
  let layers = 0;
  let linearActive = 0;
  let linearTotal = 0;
  let expertW = 0;
  let experts = 0;
  let topK = 0;
  let routerGroups = 1;
  let linearsPerLayer = 0;
  let biasedLinearsPerLayer = 0;
  let otherTotal = 0;
  let moeLayers = 0;
  let expertLinears = 0;
  let expertFfn = 0;
  let recurrentLayers = 0;
  let recurrentFlops = 0;
  let qkNormLayers = 0;
  let plainAttnLayers = 0;
  for (const g of arch.groups) {
    otherTotal += g.count * g.otherParamsPerLayer;
    if (g.name === 'vision') continue; // over image patches only, not the tokens: towerLinears
    layers += g.count;
    if (g.qkNorm === 'head') qkNormLayers += g.count;
    else if (!g.recurrent && g.mlaCacheWidth === null) plainAttnLayers += g.count;
    const r = g.recurrent;
    if (r) {
      recurrentLayers += g.count;
      // Chunkwise linear attention: intra-chunk QK^T and AV over C tokens, inter-chunk q.S and the k^T v state
      // update, 2 H (C (dk + dv) + 2 dk dv) FLOPs per token (Yang et al. 2024, GLA §3.2: O(LCd + Ld^2)); Mamba2's
      // chunked SSD is the same form with d_state as dk and head_dim as dv (Dao & Gu 2024, arXiv 2405.21060 §6).
      recurrentFlops +=
        g.count * 2 * r.heads * (r.chunk * (r.keyDim + r.valueDim) + 2 * r.keyDim * r.valueDim);
    }
    for (const l of g.linears) {
      const w = l.inFeatures * l.outFeatures;
      linearActive += g.count * w * l.activeCopies;
      linearTotal += g.count * w * l.copies;
      if (l.copies > 1) expertW += g.count * w; // one expert's, over the group's layers (per MoE layer below)
    }
    linearsPerLayer = Math.max(linearsPerLayer, g.linears.length);
    biasedLinearsPerLayer = Math.max(biasedLinearsPerLayer, g.linears.filter((x) => x.bias).length);
    if (g.experts > 1) {
      experts = g.experts;
      topK = g.topK;
      routerGroups = g.routerGroups ?? 1;
      moeLayers += g.count;
      expertLinears = g.linears.filter((l) => l.copies > 1).length;
      expertFfn = g.ffn;
    }
  }
  const lmHead = arch.kind === 'encoder' ? 0 : arch.vocab * arch.hidden;
  const stored = linearTotal + towerLinears(arch); // the tower's are stored, never read per token
  const total = arch.embedParams + arch.lmHeadParams + stored + otherTotal + arch.otherParams;
  return {
    layers,
    hidden: arch.hidden,
    ...firstGroupFacts(arch),
    vocab: arch.vocab,
    linearActive,
    linearTotal,
    towerLinear: stored - linearTotal,
    // Per MoE layer and expert: an architecture split into several layer groups (gpt-oss's sliding and full
    // attention layers) must not count each group's experts once per group.
    expertWeightsPerLayer: moeLayers > 0 ? expertW / moeLayers : 0,
    experts,
    topK,
    routerGroups,
    moeLayers,
    expertLinears,
    expertFfn,
    ...denseLinears(arch),
    linearsPerLayer,
    biasedLinearsPerLayer,
    lmHead,
    total,
    active: total - (stored - linearActive),
    liger: ligerPatches(arch.modelType),
    modelType: arch.modelType,
    attnLayers: layers - recurrentLayers,
    qkNormLayers,
    plainAttnLayers,
    ...mlaAndSharedLayers(arch),
    recurrentFlopsPerToken: recurrentFlops,
    arch,
  };
}

// ---------------------------------------------------------------------------------------------
// Phases.

export const TRAIN_PHASES = [
  'forward',
  'backward',
  'recompute',
  'dequantize',
  'optimizer',
  'gradient-reduce',
  'parameter-gather',
  'tensor-parallel',
  // Training expert parallelism's all-to-alls (time/train-expert-parallel.ts): listed only where some run.
  'expert-parallel',
  // Ulysses' all-to-alls (time/train-sequence-parallel.ts) and a ring's exposed K/V and gradient exchanges
  // (time/train-ring-attention.ts): listed only where some run.
  'sequence-parallel',
  'pipeline-bubble',
  'offload',
  'overhead',
] as const;
export const DECODE_PHASES = [
  'prefill',
  'decode-weights',
  'decode-kv',
  'tensor-parallel',
  // The DP-attention engine's token gathers and scatters around each MoE layer (time/expert-parallel.ts):
  // listed only for such an engine.
  'expert-parallel',
  // Layers and experts kept in host RAM (llama.cpp --gpu-layers, --n-cpu-moe): listed only where some are.
  'decode-host',
  'overhead',
] as const;
export type TrainPhase = (typeof TRAIN_PHASES)[number];
export type DecodePhase = (typeof DECODE_PHASES)[number];
export type Bound = 'compute' | 'memory' | 'communication' | 'host';

/** Bytes per stored weight element by dtype: the packed value, plus (4-bit formats) an fp32 absmax per
 * block of 64 (QLoRA §2: 32/64 bits per parameter). */
export function weightBytes(dtype: EstimateOptions['weights']): number {
  const v = valueBytes(dtype);
  // MXFP4: one byte of scale per 32 values; NVFP4: one per 16 (dtypes.ts); GGUF bpw include their scales.
  if (dtype === 'mxfp4') return v + 1 / 32;
  if (dtype === 'nvfp4') return v + 1 / 16;
  return v === 0.5 ? v + 4 / 64 : v;
}

/**
 * Linear weight elements a training forward runs: the language model's, and the vision tower's only where images
 * are given (without pixel_values the multimodal wrapper never calls its tower: transformers v4.56.0
 * models/gemma3/modeling_gemma3.py Gemma3Model.forward, `if pixel_values is not None: get_image_features`).
 */
export function forwardLinears(m: ModelFacts, o: EstimateOptions): number {
  return m.linearTotal + (o.images ? m.towerLinear : 0);
}

/**
 * Bytes per weight element of the linears a token reads: a GGUF file's priced per linear (ggufLinearBytes: the
 * k-quant fallback at row widths off 256, MXFP4 experts kept); weightBytes for any other dtype.
 */
export function linearReadBytes(m: ModelFacts, dtype: EstimateOptions['weights']): number {
  const flat = weightBytes(dtype);
  if (!isGguf(dtype)) return flat;
  let elems = 0;
  let extra = 0; // bytes beyond the file's mix: exactly 0 where every width is a multiple of 256
  for (const g of m.arch.groups) {
    if (g.name === 'vision') continue;
    for (const l of g.linears) {
      const n = g.count * l.inFeatures * l.outFeatures * l.activeCopies;
      elems += n;
      extra += n * (ggufLinearBytes(m.arch, l, dtype) - flat);
    }
  }
  return elems > 0 ? flat + extra / elems : flat;
}
