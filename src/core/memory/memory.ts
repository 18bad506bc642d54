/**
 * Per-GPU peak memory of one training or inference configuration, by mechanism: what each component
 * allocates, when it is alive, and which phase (load, forward, backward, optimizer step, prefill,
 * decode) sets the peak. Pure: data in, data out.
 */
import type { Arch, Linear, LinearRole, RecurrentState } from '../model/arch.js';
import { linearWeights, paramCounts } from '../model/params.js';
import { isGguf, meanContextOf, type EstimateOptions } from '../../schema/estimate.js';
import { sglangDefaults } from '../engines/sglang/memory.js';
import { FRAMEWORKS, type FrameworkProfile } from './frameworks.js';
import { isTrained, loraParams, trainableSet } from '../model/trainable.js';
import { largestTensor, optimizerStateBytes, stepTemporaryBytes } from './optimizer-states.js';
import {
  backwardWorkingBytes,
  layerBytes,
  selectiveLayerBytes,
  type ActCtx,
} from './activations.js';
import {
  CSR_INDEX_BYTES,
  FLOAT_BYTES,
  SEMI_STRUCTURED_META_BYTES_PER_ELEMENT,
  isFloatDtype,
  isFourBitFloat,
  quantConstantBytes,
  valueBytes,
} from '../model/dtypes.js';
import { MiB } from '../units.js';
import {
  cacheFigures,
  cacheLayoutOf,
  cacheShapeOf,
  kvElementBytes,
  recurrentLayerBytes,
  stateDtypeBytes,
  type CacheFigures,
} from './kv-layout.js';
import { policyOptions, withObjective, type PolicyMemory } from './objective.js';
import { ZERO_PARTS } from './parts.js';
import { towerBytes, towerMode, type TowerBytes } from './vision.js';
import { towerRun } from '../model/vision.js';
import { withPagedResidency, type PagedStates } from './paged.js';
import { ligerLossBytes, ligerChunkRows, ligerPatches, ligerProfile } from '../engines/hf/liger.js';

/** Bytes per component; sums to deviceBytes. */
export interface Breakdown {
  weights: number;
  quantConstants: number;
  adapters: number;
  masterWeights: number;
  gradients: number;
  optimizer: number;
  activations: number;
  logits: number;
  kvCache: number;
  /** Gathered ZeRO-3 layers, autocast weight copies, gradient buckets, step temporaries. */
  buffers: number;
  /** Reserved-but-unallocated cache, CUDA context, paged (unified-memory) optimizer states. */
  overhead: number;
  /** Preference / RL only (objective.ts): the frozen reference copy, vLLM's weights and its KV pool. */
  referenceModel?: number;
  rolloutWeights?: number;
  rolloutKvCache?: number;
  /**
   * Multimodal models with `images`: the vision tower's own activations over its patches (memory/vision.ts),
   * apart from the language model's `activations`. Absent without images.
   */
  visionActivations?: number;
}

export type Phase =
  | 'load'
  | 'forward'
  | 'backward'
  | 'backward-layer'
  | 'backward-end'
  | 'optimizer-step'
  | 'prefill'
  | 'decode'
  | 'rollout'
  | 'vision-encoder'
  | 'vision-backward';

export interface PhaseTotal {
  phase: Phase;
  allocatedBytes: number;
  /** What is allocated in this phase, by component, unrounded (no overhead: that is a device-level notion). */
  parts: Omit<Breakdown, 'overhead'>;
}

export interface MemoryEstimate {
  perGpu: {
    allocatedBytes: number;
    reservedBytes: number;
    deviceBytes: number;
    breakdown: Breakdown;
  };
  peakPhase: Phase;
  phases: PhaseTotal[];
  /** Host RAM per GPU process for offloaded states, parameters or checkpoints. */
  hostBytesPerGpu: number;
  /**
   * Paged KV-cache engines (vLLM) with a GPU: the pool left for KV blocks under gpu_memory_utilization,
   * what one token of one sequence takes in it, and the tokens that fit.
   */
  kvPool?: { poolBytes: number; bytesPerToken: number; tokens: number };
  /**
   * Inference: one sequence's cache per GPU as the engine lays it out (kv-layout.ts): KV bytes per token of
   * context (full-attention layers), the bytes sliding-window layers hold once the context passes their
   * window, and the fixed recurrent state of linear-attention / SSM layers.
   */
  cache?: CacheFigures;
  /** Paged optimizer states: on the device while they fit, the rest in host RAM (paged.ts). */
  paged?: PagedStates;
  params: { total: number; trainable: number };
  /** Data-parallel replicas gpus / (tp·pp·cp) (docs/DESIGN.md); ZeRO/FSDP shard over dp·cp. */
  parallel: { dp: number; tp: number; pp: number; cp: number };
  /** Which pipeline stage is the worst rank. */
  worstStage: 'only' | 'first' | 'last';
  /** Every stage's phase allocations and extras, for memorySurface (the worst stage is `worstStage`). */
  stages: StageSummary[];
  overhead: {
    allocatorSlack: number;
    /** Largest one-off block kept reserved on top of the allocated peak (part of allocatorSlack). */
    transient: number;
    cudaContext: number;
    /** Paged optimizer states' working set (what the fit counts); `paged` says how many more stay resident. */
    pagedOptimizer: number;
  };
}

/** One pipeline stage's phase allocations (same order as `phases`) and the extras on top of them. */
export interface StageSummary {
  stage: 'only' | 'first' | 'last';
  phaseAllocated: number[];
  transient: number;
  paged: number;
  host: number;
  weights: number;
  kv: number;
}

type Parts = Omit<Breakdown, 'overhead'>;
const sumParts = (p: Parts): number =>
  p.weights +
  p.quantConstants +
  p.adapters +
  p.masterWeights +
  p.gradients +
  p.optimizer +
  p.activations +
  p.logits +
  p.kvCache +
  p.buffers +
  (p.visionActivations ?? 0);

const UNTIED = new WeakMap<Arch, Arch>();
/** The architecture with a separate lm_head, as stacks that do not tie embeddings load it. */
function untied(arch: Arch): Arch {
  if (!arch.tiedEmbeddings || arch.embedParams === 0) return arch;
  let u = UNTIED.get(arch);
  if (!u) {
    u = { ...arch, tiedEmbeddings: false, lmHeadParams: arch.vocab * arch.hidden };
    UNTIED.set(arch, u);
  }
  return u;
}

/** Facts about an architecture that every estimate reads; computed once per Arch object. */
interface ArchFacts {
  P: ReturnType<typeof paramCounts>;
  /** Linear storage per (weights, compute, sparsity, format, double quant). */
  storage: Map<string, { values: number; constants: number; bias: number }>;
  largestTensor: number;
  largestLinear: number;
  totalLayers: number;
}
const FACTS = new WeakMap<Arch, ArchFacts>();
function factsOf(arch: Arch): ArchFacts {
  let f = FACTS.get(arch);
  if (!f) {
    f = {
      P: paramCounts(arch),
      storage: new Map(),
      largestTensor: largestTensor(arch),
      largestLinear: largestLinear(arch),
      totalLayers: arch.groups.reduce((a, g) => a + g.count, 0),
    };
    FACTS.set(arch, f);
  }
  return f;
}

/** Bytes of every layer linear in its storage format: values, quantization constants, biases. */
function storageOf(arch: Arch, facts: ArchFacts, o: EstimateOptions) {
  const key = `${o.weights}|${o.compute}|${o.sparsity}|${o.sparseFormat}|${o.doubleQuant}`;
  let sum = facts.storage.get(key);
  if (!sum) {
    sum = { values: 0, constants: 0, bias: 0 };
    for (const g of arch.groups)
      for (const l of g.linears) {
        const st = linearStorage(l, g.count, o);
        sum.values += st.values;
        sum.constants += st.constants;
        sum.bias += st.bias;
      }
    facts.storage.set(key, sum);
  }
  return sum;
}

/** Bytes of the linear weights in storage format, and of their quantization constants. */
function linearStorage(
  l: Linear,
  count: number,
  o: EstimateOptions,
): { values: number; constants: number; bias: number } {
  const n = linearWeights(l) * count;
  const rows = l.outFeatures * l.copies * count;
  let values = n * valueBytes(o.weights);
  if (o.sparsity > 0) {
    if (o.sparseFormat === '2:4') {
      values = (n / 2) * valueBytes(o.weights) + n * SEMI_STRUCTURED_META_BYTES_PER_ELEMENT;
    } else {
      const nnz = n * (1 - o.sparsity);
      values =
        nnz * (valueBytes(o.weights) + CSR_INDEX_BYTES) +
        (rows + l.copies * count) * CSR_INDEX_BYTES;
    }
  }
  const constants = quantConstantBytes(o.weights, rows, l.inFeatures, o.doubleQuant);
  const biasBytes = isFloatDtype(o.weights) ? valueBytes(o.weights) : FLOAT_BYTES[o.compute];
  return { values, constants, bias: (l.bias ? l.outFeatures * l.copies * count : 0) * biasBytes };
}

/** Context needed beyond the options: the GPU's capacity (vLLM sizes its pool from it). */
export interface EstimateContext {
  gpuCapacityBytes?: number;
  /**
   * Skip rounding the breakdown and listing the phases (`phases` is empty): for callers that read only
   * totals and stage summaries, e.g. memorySurface, which makes thousands of estimates per search.
   */
  lean?: boolean;
}

/**
 * What nvidia-smi shows: the allocated peak, the caching allocator's slack (a share of it plus the largest
 * one-off block), the CUDA context, and paged optimizer states living in unified memory.
 */
export function deviceBytesOf(
  fw: FrameworkProfile,
  allocated: number,
  transient: number,
  paged: number,
): number {
  return allocated * (1 + fw.allocatorSlack) + transient + fw.cudaContextMiB * MiB + paged;
}

// log_softmax backward: its saved fp32 output, the fp32 gradient from nll_loss and the fp32 input gradient.
const UPCAST_BACKWARD_PER_VOCAB = 12;

// vLLM EngineArgs gpu_memory_utilization default ("defaults to 0.9",
// https://docs.vllm.ai/en/latest/configuration/engine_args.html).
export const VLLM_GPU_UTILIZATION = 0.9;
// vLLM V1 always chunks prefill: one scheduler step runs at most max_num_batched_tokens (8192 assumed, the
// engine's default outside small-GPU online serving), so its profiled activation peak is one such chunk
// (https://docs.vllm.ai/en/latest/configuration/optimization.html, "Chunked Prefill").
export const VLLM_MAX_BATCHED_TOKENS = 8192;
// vLLM v1 profile_run ends with _dummy_sampler_run over one row per sequence slot, top_p 0.9 and top_k
// vocab-1 (vllm/v1/worker/gpu_model_runner.py), so apply_top_k_top_p sorts the whole vocabulary: fp32 logits
// (4 B), sort values (4) and int64 indices (8), the two masks (1 + 1), softmax of the sorted logits (4),
// the scattered result (4) and the 16-bit logits it came from (2): 28 B per sequence and vocabulary entry,
// up to 36 B while the sampling softmax and its exponential noise (4 + 4) overlap them; 32 B assumed. vLLM
// start-up logs on H100 (max_num_seqs 1024) show 31-36 B (calibration/informative.json vllm-llmd-01..04,
// activation peak less the forward).
const VLLM_SAMPLER_BYTES_PER_LOGIT = 32;

/** Per-configuration facts every stage and phase reads: resolved once per estimate. */
interface Setup {
  o: EstimateOptions;
  ctx: EstimateContext;
  fw: FrameworkProfile;
  arch: Arch;
  facts: ReturnType<typeof factsOf>;
  t: ReturnType<typeof trainableSet>;
  tp: number;
  pp: number;
  dp: number;
  /** Compute dtype bytes. */
  c: number;
  training: boolean;
  quantized: boolean;
  /** Bytes per non-linear parameter (embeddings, lm_head, norms). */
  floatBytes: number;
  /** lm_head is k-bit too (bnbQuantizesAll): its values and quantization constants, bytes. */
  head: { values: number; constants: number } | null;
  /** Bytes a k-bit matmul holds while it dequantizes its weight (the largest one), per GPU. */
  dequant: number;
  linValues: number;
  linConstants: number;
  linBias: number;
  /** Fraction of the layers on the busiest pipeline stage. */
  lf: number;
  adapters: number;
  nTrain: number;
  trainBytes: number;
  masterPerParam: number;
  fp32GradPerParam: number;
  states: number;
  paged: boolean;
  largest: number;
  shardStates: number;
  shardGrads: number;
  shardParams: number;
  offloadOpt: boolean;
  offloadParams: boolean;
  actCtx: ActCtx;
  /** Width of the residual stream (what checkpointing keeps per layer): fp32 under autocast. */
  streamBytes: number;
  /** Tokens per rank in one micro-batch. */
  tokens: number;
  vocabShards: number;
  /** Vocabulary entries of the loss (0 for encoders fine-tuned with a task head). */
  V: number;
  /** The loss is a fused linear + cross-entropy kernel (Liger's): ligerLossBytes instead of logits. */
  fusedLinearLoss: boolean;
}

// Long on purpose: one object literal of per-configuration facts, each field with its source.
function setupOf(model: Arch, o: EstimateOptions, ctx: EstimateContext): Setup {
  // --liger swaps in Liger's kernels where use_liger_kernel patches the model type (else it is a no-op).
  const liger = o.liger && ligerPatches(model.modelType);
  const fw = liger
    ? ligerProfile(FRAMEWORKS[o.framework], model.modelType)
    : FRAMEWORKS[o.framework];
  const arch = fw.untiesEmbeddings ? untied(model) : model;
  const facts = factsOf(arch);
  const P = facts.P;
  const t = trainableSet(o);
  const tp = o.tp;
  const pp = o.pp;
  const dp = Math.max(1, Math.floor(o.gpus / (tp * pp)));
  const c = FLOAT_BYTES[o.compute];
  const training = o.method !== 'inference';
  const quantized = !isFloatDtype(o.weights);
  // Non-linear parameters (embeddings, lm_head, norms) stay in the float dtype; under bitsandbytes they
  // take the compute dtype, and PEFT's prepare_model_for_kbit_training upcasts them to fp32 for training.
  // GGUF stores the embeddings and the output layer quantized too (GGUF_BPW averages the whole file).
  const floatBytes =
    isFloatDtype(o.weights) || isGguf(o.weights)
      ? valueBytes(o.weights)
      : training && fw.kbitUpcastsToFp32
        ? 4
        : FLOAT_BYTES[o.compute];
  const { values: linValues, constants: linConstants, bias: linBias } = storageOf(arch, facts, o);
  const head =
    quantized && fw.bnbQuantizesAll && arch.lmHeadParams > 0
      ? {
          values: arch.lmHeadParams * valueBytes(o.weights),
          constants: quantConstantBytes(o.weights, arch.vocab, arch.hidden, o.doubleQuant),
        }
      : null;
  // k-bit matmuls dequantize one weight at a time (bitsandbytes MatMul4Bit: dequantize_4bit(B).to(A.dtype)),
  // into the dtype it was quantized from; from an fp16 copy that is fp16, then cast: both alive at once.
  const largestQuantized = Math.max(facts.largestLinear, head ? arch.lmHeadParams : 0);
  // LLM.int8's backward casts its int8 weight straight to the input's dtype (MatMul8bitLt.backward).
  const fromFp16 = fw.bnbQuantizesAll && isFourBitFloat(o.weights) && o.compute !== 'fp16';
  const dequantBytes = fromFp16 ? 2 + FLOAT_BYTES[o.compute] : FLOAT_BYTES[o.compute];
  const dequant = quantized ? (largestQuantized * dequantBytes) / o.tp : 0;
  const adapters = loraParams(arch, t, o.loraRank, fw.embedTargetsTrainFully);
  const trainBytes = t.full
    ? valueBytes(o.weights)
    : fw.fp32Adapters
      ? 4
      : floatBytes === 4
        ? 4
        : FLOAT_BYTES[o.compute];
  const needsMaster = trainBytes < 4 && (o.masterWeights || fw.deepspeedOptimizer);
  const nTrain = t.full ? P.total : adapters;
  // torch.compile fuses norms and SwiGLU (Inductor), dropping the eager intermediates they save; torchtune
  // compiles whenever it chunks the loss (torchtune memory_optimizations: compile + CEWithChunkedOutputLoss).
  const fused = o.compile || (o.chunkedLoss && fw.chunkedLossCompiles);
  // A frozen nn.Linear does not save its input: autograd saves mm's self only when the weight needs a
  // gradient (tools/autograd/gen_variable_type.py guard_for); bitsandbytes k-bit matmuls save it anyway.
  const saves = (role: LinearRole): boolean =>
    isTrained(t, role) || (quantized && training && fw.bnbSavesInput);
  // torch.autocast (HF Trainer fp16/bf16 over an fp32 model); FSDP mixed precision casts parameters instead.
  const amp = training && o.weights === 'fp32' && c < 4 && !(o.zero >= 3 && dp > 1);
  const sp = o.sequenceParallel && tp > 1 ? tp : 1;
  return {
    o,
    ctx,
    fw,
    arch,
    facts,
    t,
    tp,
    pp,
    dp,
    c,
    training,
    quantized,
    floatBytes,
    head,
    dequant,
    linValues,
    linConstants,
    linBias,
    lf: Math.ceil(facts.totalLayers / pp) / facts.totalLayers,
    adapters,
    nTrain,
    trainBytes,
    masterPerParam: needsMaster ? 4 : 0,
    // DeepSpeed keeps an fp32 copy of the gradient partition for the update (memory.rst: 16 B/param sharded).
    fp32GradPerParam: needsMaster && fw.deepspeedOptimizer ? 4 : 0,
    states: optimizerStateBytes(o, nTrain, arch, t.full),
    paged: o.optimizer === 'paged-adamw' || o.optimizer === 'paged-adamw-8bit',
    largest: t.full ? facts.largestTensor : 0,
    shardStates: o.zero >= 1 ? dp : 1,
    shardGrads: o.zero >= 2 ? dp : 1,
    shardParams: o.zero >= 3 ? dp : 1,
    offloadOpt: o.offload !== 'none',
    offloadParams: o.offload === 'optimizer+params',
    actCtx: { c, t, fw, o, seq: o.seq, tp, sp, saves, fused, amp },
    streamBytes: amp ? 4 : c,
    // Context parallelism: each rank of the cp group runs seq/cp of every sequence (ring attention keeps no
    // s² terms), so every per-token activation is per rank of the group (torchtitan context_parallel docs).
    tokens: (o.batch * o.seq) / (training ? o.cp : 1),
    // Logits and loss: vocabulary-sharded over TP with loss parallel (torchtitan loss_parallel), else
    // gathered whole on every TP rank.
    vocabShards: o.lossParallel ? tp : 1,
    // Final norm + loss (last stage only). Encoders are fine-tuned with a task head: no vocabulary logits.
    V: arch.kind === 'causal-lm' || arch.kind === 'encoder-decoder' ? arch.vocab : 0,
    fusedLinearLoss: liger || (o.chunkedLoss && fw.loss.fusedLinear === true),
  };
}

type Stage = 'only' | 'first' | 'last';

/** What one pipeline stage holds apart from activations: parameters, states, gradients, buffers. */
interface Holdings {
  hasHead: boolean;
  inflight: number;
  weightsFull: number;
  constantsFull: number;
  weights: number;
  quantConstants: number;
  trainShare: number;
  adapterBytes: number;
  stateBytesFull: number;
  optimizer: number;
  master: number;
  gradsAll: number;
  largestGrad: number;
  gathered: number;
  layerGrad: number;
  gradBucket: number;
  ddpBuckets: number;
  autocastCopies: number;
}

// Per-stage accounting (pipeline parallel: first stage holds the embedding and pp micro-batches in flight
// under 1F1B; the last holds lm_head and the loss — Megatron theoretical_memory_usage.py).
function holdingsOf(s: Setup, stage: Stage): Holdings {
  const { o, fw, arch, facts, t, tp, dp, c, lf, training } = s;
  const P = facts.P;
  const hasEmbed = stage !== 'last';
  const hasHead = stage !== 'first';
  const embedShare = (hasEmbed ? arch.embedParams : 0) + (hasHead ? arch.lmHeadParams : 0);
  const stageParams = P.linear * lf + P.linearBias * lf + P.other * lf + embedShare;
  const kbitHead = hasHead ? s.head : null;
  const floatShare = embedShare - (kbitHead ? arch.lmHeadParams : 0);

  // Weights held on this GPU.
  const weightsFull =
    ((s.linValues + s.linBias) * lf) / tp +
    (floatShare / tp + P.other * lf) * s.floatBytes +
    (kbitHead ? kbitHead.values / tp : 0);
  const constantsFull = (s.linConstants * lf) / tp + (kbitHead ? kbitHead.constants / tp : 0);

  const trainShare = t.full ? stageParams / tp : (s.adapters * lf) / tp;
  const stateBytesFull = (s.states * (t.full ? stageParams / P.total : lf)) / tp;

  // Buffers: ZeRO-3 gathers whole layers for compute; ZeRO-2/3 reduce-scatter one layer's grads at a time.
  // Gathered copies are in the compute dtype (FSDP param_dtype) or the storage dtype when that is
  // smaller (k-bit FSDP-QLoRA all-gathers packed weights); never more layers than the stage has.
  const storagePerParam =
    (s.linValues + s.linBias + s.linConstants) / Math.max(1, P.linear + P.linearBias);
  const layerParamsUnsharded = (P.largestLayer / tp) * Math.min(c, storagePerParam);
  const sharded3 = o.zero >= 3 && (dp > 1 || s.offloadParams);
  const rootUnit = sharded3 && fw.fsdpRootUnit ? (embedShare / tp) * Math.min(c, s.floatBytes) : 0;
  const layersOnStage = Math.ceil(facts.totalLayers / s.pp);
  // While one layer runs backward its gradients exist unsharded, whatever the ZeRO stage: in the
  // gradient buffers (ZeRO 0/1) or in the reduce-scatter bucket (ZeRO-2/3).
  const layerGrad = training && t.full ? (P.largestLayer / tp) * s.trainBytes : 0;
  return {
    hasHead,
    inflight: stage === 'first' ? s.pp : 1,
    weightsFull,
    constantsFull,
    weights: s.offloadParams ? 0 : weightsFull / s.shardParams,
    quantConstants: s.offloadParams ? 0 : constantsFull / s.shardParams,
    trainShare,
    adapterBytes: t.full ? 0 : (trainShare * s.trainBytes) / (o.zero >= 3 ? dp : 1),
    stateBytesFull,
    optimizer: s.offloadOpt ? 0 : stateBytesFull / s.shardStates,
    master: s.offloadOpt ? 0 : (trainShare * s.masterPerParam) / s.shardStates,
    gradsAll:
      (trainShare * s.trainBytes) / s.shardGrads +
      (s.offloadOpt ? 0 : (trainShare * s.fp32GradPerParam) / s.shardStates),
    largestGrad: t.full ? Math.min(s.largest, trainShare) * s.trainBytes : 0,
    gathered: sharded3
      ? Math.min(fw.gatheredLayers, layersOnStage) * layerParamsUnsharded + rootUnit
      : 0,
    layerGrad,
    gradBucket: o.zero >= 2 ? layerGrad : 0,
    // ZeRO-2/3 reduce-scatter one layer's gradients at a time; plain DDP keeps flat bucket buffers as large
    // as all gradients (torch DistributedDataParallel, gradient_as_bucket_view=False by default).
    ddpBuckets:
      training && o.zero === 0 && dp > 1 && !fw.deepspeedOptimizer ? trainShare * s.trainBytes : 0,
    // torch.autocast caches a low-precision copy of each fp32 weight for the forward and saves it for
    // backward; sharded FSDP casts in its all-gather instead (MixedPrecisionPolicy param_dtype).
    autocastCopies:
      training && !sharded3 && isFloatDtype(o.weights) && valueBytes(o.weights) > c
        ? ((P.linear * lf) / tp) * c
        : 0,
  };
}

/** Activations of one stage: saved for backward, one recomputed layer, the backward working set. */
interface Activations {
  saved: number;
  working: number;
  bwd: number;
  hostCheckpoints: number;
  /** ParamWrapper's ΔW (and, checkpointed, W + ΔW) of the layer running forward. */
  deltaFwd: number;
  logitsFwd: number;
  logitsBwd: number;
}

function activationsOf(s: Setup, h: Holdings): Activations {
  const { o, arch, t, lf, tokens, streamBytes, training, actCtx } = s;
  let saved = 0;
  let working = 0;
  let bwd = 0;
  for (const g of arch.groups) {
    // The vision tower runs over patches, not tokens: its activations are memory/vision.ts (towerOf).
    if (g.name === 'vision') continue;
    const n = g.count * lf;
    const full = layerBytes(g, actCtx);
    bwd = Math.max(bwd, backwardWorkingBytes(g, actCtx) * tokens);
    if (!training) continue;
    switch (o.checkpointing) {
      case 'none':
        saved += n * full * tokens;
        break;
      case 'selective':
        saved += n * selectiveLayerBytes(g, actCtx) * tokens;
        break;
      case 'full':
        // Only each layer's input is kept; backward recomputes one layer at a time (HF gradient_checkpointing).
        saved += (n * streamBytes * g.hidden * tokens) / actCtx.sp; // sharded by SP (Korthikanti §4.2.3)
        working = Math.max(working, full * tokens);
        break;
      case 'offload':
        // Layer inputs live in host memory; two are on the GPU: the buffer the recomputed layer's input is
        // copied back into, and the last layer's input, never offloaded (unsloth_zoo gradient_checkpointing.py
        // at ce232d6c: GPU_BUFFERS, "Don't offload the last layer", LAST_GC_INDEX; torchtune #1443).
        working = Math.max(working, full * tokens + 2 * streamBytes * g.hidden * tokens);
        break;
    }
  }
  saved *= h.inflight;
  const hostCheckpoints =
    o.checkpointing === 'offload'
      ? arch.groups.reduce((a, g) => a + g.count * lf * streamBytes * g.hidden * tokens, 0) *
        h.inflight
      : 0;

  // Bytes per token per vocabulary entry: chunked losses per framework; the fp32 upcast holds the logits,
  // an fp32 copy (none when already fp32) and log_softmax in forward, three fp32 tensors in backward;
  // without the upcast only the 16-bit logits are vocabulary-sized (Unsloth's in-place CE kernel).
  const loss = lossHoldings(s, h.hasHead && training, t.full, t.lmHead);
  const pw = paramWrapperBytes(s);
  // W + ΔW is saved by the grouped GEMM for its gradients: every layer's without checkpointing, the recomputed
  // layer's with it; its weight gradient exists in backward; ΔW lives beside it while the layer runs forward.
  const ckpt = o.checkpointing === 'full' || o.checkpointing === 'offload';
  return {
    saved: saved + loss.saved + (ckpt ? 0 : pw.perLayer * pw.layers * h.inflight),
    working: working + (ckpt ? pw.perLayer : 0),
    bwd: bwd + pw.largest,
    hostCheckpoints,
    deltaFwd: pw.perLayer * (ckpt ? 2 : 1),
    ...loss.logits,
  };
}

/**
 * PEFT lora.ParamWrapper (LoRA on fused 3-D experts; peft v0.20.0 tuners/lora/layer.py @a5526d27): each forward
 * materialises ΔW = B·A for every expert (get_delta_weight's einsum, cast to the weight dtype) and registers
 * W + ΔW as a parametrization; both are alive while the layer's experts run. Bytes of one layer's adapted
 * experts, the largest adapted parameter (its gradient) and this stage's MoE layers.
 */
function paramWrapperBytes(s: Setup): { perLayer: number; largest: number; layers: number } {
  const { fw, arch, t, tp, c, lf, training } = s;
  if (!training || t.full || fw.expertAdapters !== 'param-wrapper')
    return { perLayer: 0, largest: 0, layers: 0 };
  let perLayer = 0;
  let largest = 0;
  let layers = 0;
  for (const g of arch.groups) {
    if (g.experts <= 1) continue;
    const experts = g.linears.filter((l) => l.copies > 1);
    const size = (l: (typeof experts)[number]) =>
      (l.copies * l.inFeatures * l.outFeatures * c) / tp;
    // gate_up_proj is one parameter: adapting gate or up materialises both.
    const gateUp = experts.filter((l) => l.role === 'gate' || l.role === 'up');
    const down = experts.filter((l) => l.role === 'down');
    const gu = gateUp.some((l) => t.roles.has(l.role))
      ? gateUp.reduce((a, l) => a + size(l), 0)
      : 0;
    const dn = down.some((l) => t.roles.has(l.role)) ? down.reduce((a, l) => a + size(l), 0) : 0;
    if (gu + dn === 0) continue;
    perLayer = Math.max(perLayer, gu + dn);
    largest = Math.max(largest, gu, dn);
    layers += g.count * lf;
  }
  return { perLayer, largest, layers };
}

/**
 * What the output layer and the loss keep: the final norm's output it saves, and the vocabulary-sized
 * tensors alive at the forward and backward peaks, by the engine's loss path (upcast, chunked, fused).
 */
function lossHoldings(
  s: Setup,
  head: boolean,
  fullTrain: boolean,
  lmHeadTrained: boolean,
): { saved: number; logits: { logitsFwd: number; logitsBwd: number } } {
  const { o, fw, arch, c, tokens } = s;
  if (!head) return { saved: 0, logits: { logitsFwd: 0, logitsBwd: 0 } };
  if (s.fusedLinearLoss && s.V > 0) {
    // The fused kernel saves no lm_head input (its gradients are made in forward): the final norm's input
    // only, and the loss bytes of its chunking (engines/hf/liger.ts). A frozen output layer gets no
    // grad_weight; LoRA on lm_head is not seen by the kernel (it reads lm_head.weight).
    const loss = ligerLossBytes(tokens, s.V, arch.hidden, c, fullTrain ? s.trainBytes : 0);
    return {
      saved: c * arch.hidden * tokens,
      logits: { logitsFwd: loss.forward, logitsBwd: loss.backward },
    };
  }
  const finalNorm = c * arch.hidden * tokens * (fullTrain || lmHeadTrained ? 2 : 1);
  const fused = fusedLossChunk(s);
  if (fused !== null) {
    // A fused loss (forward and backward chunk by chunk) holds one chunk's vocabulary-sized tensors, its
    // input (the final norm's output) and the input gradient it writes in forward and hands to backward.
    const hiddenBytes = c * arch.hidden * tokens;
    return {
      saved: finalNorm,
      logits: {
        logitsFwd: (fused * s.V * fw.loss.chunkedForward) / s.vocabShards + 2 * hiddenBytes,
        logitsBwd: hiddenBytes,
      },
    };
  }
  const fwdPerV = o.chunkedLoss
    ? fw.loss.chunkedForward
    : fw.loss.upcast
      ? c + (c < 4 ? 4 : 0) + 4
      : c;
  const bwdPerV = o.chunkedLoss
    ? fw.loss.chunkedBackward
    : fw.loss.upcast
      ? UPCAST_BACKWARD_PER_VOCAB
      : c;
  return {
    saved: finalNorm,
    logits: {
      logitsFwd: (tokens * s.V * fwdPerV) / s.vocabShards,
      logitsBwd: (tokens * s.V * bwdPerV) / s.vocabShards,
    },
  };
}

type PhaseParts = { phase: Phase; parts: Parts };

/** The vision tower of `o.images` images per sample, with what it keeps under this configuration, or null. */
function towerOf(s: Setup): TowerBytes | null {
  const { o, arch } = s;
  if (!o.images) return null;
  const run = towerRun(arch, o.images, o.imagePixels);
  if (!run) return null;
  const mode = towerMode(run.group, o, s.t, arch.vision?.tower?.inputGradHook === true);
  return towerBytes(run, o, s.actCtx, mode, s.streamBytes);
}

/**
 * The tower's phases around the language model's: it runs first (`vision-encoder`: what it has saved so far
 * plus one block's forward, nothing of the language model's activations yet), its saved activations stay
 * through the forward and the language model's backward, and its own backward runs last (`vision-backward`:
 * saved plus one recomputed block and the gradient working set, beside the gradients of backward-end).
 * `inflight`: micro-batches whose activations the stage holds (1F1B).
 */
function withTower(phases: PhaseParts[], tb: TowerBytes, inflight: number): PhaseParts[] {
  const saved = tb.saved * inflight;
  const out: PhaseParts[] = [];
  for (const p of phases) {
    if (p.phase === 'forward' || p.phase === 'prefill')
      out.push({
        phase: 'vision-encoder',
        parts: { ...p.parts, activations: 0, logits: 0, visionActivations: saved + tb.forward },
      });
    if (p.phase === 'backward-end' && tb.mode !== 'frozen')
      out.push({
        phase: 'vision-backward',
        parts: { ...p.parts, visionActivations: saved + tb.backward },
      });
    const keeps = p.phase === 'forward' || p.phase === 'backward' || p.phase === 'backward-layer';
    out.push({ phase: p.phase, parts: { ...p.parts, visionActivations: keeps ? saved : 0 } });
  }
  return out;
}

/** Forward, backward start, backward layer by layer, backward end and the optimizer step. */
function trainingPhases(s: Setup, h: Holdings, a: Activations, base: Parts): PhaseParts[] {
  const { o, fw, arch, t, tp, facts, dequant } = s;
  const lmHeadGrad =
    h.hasHead && t.full
      ? (((arch.lmHeadParams || arch.embedParams) / tp) * s.trainBytes) / s.shardGrads
      : 0;
  // Gradients that stay allocated through forward and backward (accumulation across micro-batches).
  const allGradsLive = fw.gradsPersist && !o.optimizerInBackward;
  const liveGrads = allGradsLive ? h.gradsAll : lmHeadGrad;
  const held = h.ddpBuckets + h.gathered + h.autocastCopies + dequant;
  const phases: PhaseParts[] = [
    {
      phase: 'forward',
      parts: {
        ...base,
        activations: a.saved,
        logits: a.logitsFwd,
        gradients: allGradsLive ? h.gradsAll : 0,
        buffers: held + a.deltaFwd,
      },
    },
    // Backward starts with the loss: all activations saved, the loss gradients alive.
    {
      phase: 'backward',
      parts: {
        ...base,
        activations: a.saved,
        logits: a.logitsBwd,
        gradients: liveGrads,
        buffers: held,
      },
    },
    // Then layer by layer: the saved activations (plus, with checkpointing, one recomputed layer), the
    // gradient working set and the layer's own parameter gradients; the loss tensors are gone.
    {
      phase: 'backward-layer',
      parts: {
        ...base,
        activations: a.saved + a.working,
        gradients: liveGrads + (o.zero < 2 && !allGradsLive ? h.layerGrad : 0),
        buffers: held + h.gradBucket + a.bwd,
      },
    },
    {
      phase: 'backward-end',
      parts: {
        ...base,
        gradients: o.optimizerInBackward ? h.largestGrad + (t.full ? 0 : h.gradsAll) : h.gradsAll,
        // With optimizer-in-backward the in-flight layer gradients are the largestGrad already counted, and
        // the last parameter's step (the embedding's, stepped when its gradient completes) runs here.
        buffers:
          h.ddpBuckets +
          h.gathered +
          (o.optimizerInBackward ? inBackwardStep(s, h) : h.gradBucket) +
          a.bwd / Math.max(1, facts.totalLayers),
      },
    },
  ];
  if (!o.optimizerInBackward && !s.offloadOpt) {
    const temp =
      stepTemporaryBytes(o, fw, h.trainShare, Math.min(s.largest, h.trainShare) || h.trainShare) /
      s.shardStates;
    phases.push({
      phase: 'optimizer-step',
      parts: { ...base, gradients: h.gradsAll, buffers: h.ddpBuckets + temp },
    });
  }
  return phases;
}

/** Temporaries of the optimizer step fused into backward: one parameter's, the largest (per rank). */
function inBackwardStep(s: Setup, h: Holdings): number {
  const one = Math.min(s.largest, h.trainShare) || h.trainShare;
  return stepTemporaryBytes(s.o, s.fw, one, one) / s.shardStates;
}

type KvPool = { poolBytes: number; bytesPerToken: number; tokens: number };

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
  const layout = fw ? cacheLayoutOf(fw) : 'plain';
  return recurrentLayerBytes(r, tp, stateDtypeBytes(layout, r, c));
}

// llama.cpp's physical batch (n_ubatch, default 512: https://github.com/ggml-org/llama.cpp/blob/master/common/common.h): the prefill chunk and the rows of the
// output buffer its compute graph reserves (llama-context.cpp output_reserve: n_outputs x n_vocab fp32).
export const LLAMA_CPP_UBATCH = 512;
/** Bytes per KV element (kv-layout.ts kvElementBytes). */
function kvElemBytes(s: Setup): number {
  return kvElementBytes(s.fw, s.o.kvCacheDtype, s.c);
}

/** Tokens one prefill step runs: every prompt at once, one chunk under a serving engine. */
function prefillChunk(s: Setup): number {
  const { fw, tokens, ctx } = s;
  if (fw.layerOffload) return Math.min(tokens, LLAMA_CPP_UBATCH);
  if (fw.kvCache !== 'paged-pool') return tokens;
  const chunk =
    fw.poolBudget === 'static' && ctx.gpuCapacityBytes
      ? sglangDefaults(ctx.gpuCapacityBytes, s.tp, s.pp).chunk
      : VLLM_MAX_BATCHED_TOKENS;
  return Math.min(tokens, chunk);
}

/** KV tokens per sequence the cache holds: the full context, or a paged pool's share at the mean context. */
function pagedTokensPerSeq(s: Setup): number {
  const { o, fw } = s;
  if (fw.kvCache !== 'paged-pool') return o.seq;
  return Math.max(o.batch * meanContextOf(o), o.seq) / o.batch;
}

/** One sequence's cache per GPU on the busiest pipeline stage (MemoryEstimate.cache), whole bytes. */
function cacheOf(s: Setup): CacheFigures {
  const shape = cacheShapeOf(s.arch, s.fw, {
    c: s.c,
    tp: s.tp,
    kvElem: kvElemBytes(s),
    ubatch: LLAMA_CPP_UBATCH,
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
  const { o, arch, c, tp, lf } = s;
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
    ubatch: LLAMA_CPP_UBATCH,
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
    let layer =
      prefillTokens *
      (4 * g.hidden +
        c *
          (2 * g.hidden + Math.max(qd + g.kvHeads * 2 * g.headDim + qd, 3 * g.ffn * g.topK) / tp));
    if (o.attention === 'eager') layer += o.batch * (g.heads / tp) * o.seq * kvLen * (4 + c);
    prefill = Math.max(prefill, layer);
  }
  return { kv, prefill, state };
}

/**
 * llama.cpp `-ngl`: the first layers' weights and KV on the GPU, the output layer too once every layer is
 * there (n_gpu_layers > n_layer, llama-model.cpp), token embeddings always on the host; the rest in host RAM.
 */
function layerSplit(s: Setup, h: Holdings): { gpuShare: number; weights: number; host: number } {
  const L = s.facts.totalLayers;
  const ngl = Math.min(s.o.gpuLayers ?? L + 1, L + 1);
  const share = Math.min(ngl, L) / L;
  const embed = s.arch.embedParams * s.floatBytes;
  const head = h.hasHead ? s.arch.lmHeadParams * s.floatBytes : 0;
  const layers = Math.max(0, h.weights - embed - head);
  const weights = Math.min(h.weights, layers * share + (ngl > L ? head : 0));
  return { gpuShare: share, weights, host: Math.max(0, h.weights - weights) };
}

/** Inference: KV cache, prefill activations and logits; a serving engine's paged pool fills the rest. */
function inferencePhases(
  s: Setup,
  h: Holdings,
  base: Parts,
  tower: TowerBytes | null,
): { phases: PhaseParts[]; kvPool?: KvPool; host: number } {
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
  // (max_num_seqs, the plan's batch) with top-k/top-p on the whole vocabulary; vLLM gathers the logits to
  // every TP rank (V1 all_gather), so each rank holds them. llama.cpp reserves fp32 rows for one ubatch.
  const logits = !h.hasHead
    ? 0
    : split
      ? Math.min(tokens, LLAMA_CPP_UBATCH) * s.V * 4
      : fw.kvCache === 'paged-pool'
        ? o.batch * s.V * VLLM_SAMPLER_BYTES_PER_LOGIT
        : (logitRows * s.V * s.c + o.batch * s.V * 4) / tp;
  const kvTransient = fw.kvCache === 'dynamic' ? kv / Math.max(1, s.facts.totalLayers * s.lf) : 0; // torch.cat of one layer
  // bitsandbytes 4-bit dequantizes a whole weight for any input of more than one row (matmul_4bit: the gemv
  // kernel serves one token of one sequence): every prefill, and decode steps of a batch. LLM.int8 inference
  // multiplies in int8 and dequantizes only its outlier columns (MatMul8bitLt.forward).
  const bnbDequant = fw.bnbSavesInput && isFourBitFloat(o.weights) ? s.dequant : 0;
  const onGpu = split ? { ...base, weights: split.weights } : base;
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
  const host = split ? split.host + (cache - kv) : 0;
  const kvPool = poolFill(s, phases, full.kv, full.state);
  return kvPool ? { phases, kvPool, host } : { phases, host };
}

/** SGLang's CUDA-graph buffers: its own estimate, 2 MiB per captured batch size up to cuda_graph_max_bs. */
function cudaGraphBytes(s: Setup): number {
  if (s.fw.poolBudget !== 'static' || !s.ctx.gpuCapacityBytes) return 0;
  return sglangDefaults(s.ctx.gpuCapacityBytes, s.tp, s.pp).graphMaxBs * 2 * MiB;
}

/**
 * A serving engine's paged pool, filled in place: vLLM hands every byte below gpu_memory_utilization that
 * its profiled peak leaves to KV blocks; SGLang gives the pool mem_fraction_static of memory less the weights.
 */
function poolFill(s: Setup, phases: PhaseParts[], kv: number, state: number): KvPool | undefined {
  const { o, fw, ctx } = s;
  if (fw.kvCache !== 'paged-pool' || !ctx.gpuCapacityBytes) return undefined;
  const context = fw.cudaContextMiB * MiB;
  const staticBudget = fw.poolBudget === 'static';
  const fraction = staticBudget
    ? sglangDefaults(ctx.gpuCapacityBytes, s.tp, s.pp).memFractionStatic
    : VLLM_GPU_UTILIZATION;
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
 * Tokens in one chunk of an engine's fused loss (null when its loss is not fused): as many as keep the
 * chunk's fp32 logits within the engine's cap, all of them when they fit (unsloth_zoo get_chunk_size).
 */
function fusedLossChunk(s: Setup): number | null {
  const cap = s.fw.loss.fusedChunkFp32Bytes;
  if (cap === undefined || !s.training || s.V === 0) return null;
  return Math.min(s.tokens, Math.max(1, Math.floor(cap / (4 * s.V))));
}

/**
 * The largest one-off tensor of a step: its cached block stays reserved when smaller requests reuse the
 * pool (PyTorch caching allocator keeps freed blocks; ZeRO §3.2 on fragmentation; torchtune #1185).
 */
function largestTransient(s: Setup, hasHead: boolean): number {
  const { o, fw, arch, c, tp, tokens, V } = s;
  let transient = 0;
  // Inference runs its prompts in chunks under a serving engine (prefillChunk: all tokens otherwise).
  const chunk = s.training ? tokens : prefillChunk(s);
  for (const g of arch.groups) transient = Math.max(transient, (chunk * g.ffn * g.topK * c) / tp);
  if (hasHead && V > 0) {
    const fused = fusedLossChunk(s);
    const lossTensor = s.training
      ? fused !== null
        ? fused * V * 4 // one chunk's fp32 logits, the size the fused loss caps
        : s.fusedLinearLoss
          ? ligerChunkRows(tokens, V, arch.hidden) * V * c // one chunk of logits, re-made per chunk
          : o.chunkedLoss
            ? 0
            : tokens * V * 4
      : (fw.prefillLogits === 'all' ? tokens : o.batch) * V * 4;
    transient = Math.max(transient, lossTensor / tp);
  }
  if (o.attention === 'eager')
    for (const g of arch.groups)
      transient = Math.max(transient, (o.batch * g.heads * o.seq * o.seq * 4) / tp);
  return transient;
}

type StageResult = {
  phases: PhaseParts[];
  host: number;
  /** The paged states' working set on the device (the fit figure), and all of them. */
  pagedBytes: number;
  pagedAll: number;
  transient: number;
  kvPool?: KvPool;
};

/** Every phase of one pipeline stage, with its host bytes, paged states and largest transient. */
function evalStage(s: Setup, stage: Stage): StageResult {
  const h = holdingsOf(s, stage);
  const a = activationsOf(s, h);
  const base: Parts = {
    ...ZERO_PARTS,
    weights: h.weights,
    quantConstants: h.quantConstants,
    adapters: h.adapterBytes,
    masterWeights: h.master,
    optimizer: h.optimizer,
    buffers: h.ddpBuckets,
  };
  // Load: weights materialize tensor by tensor; quantize-on-load holds one 16-bit tensor transiently.
  const load: PhaseParts = {
    phase: 'load',
    parts: {
      ...ZERO_PARTS,
      weights: h.weights,
      quantConstants: h.quantConstants,
      adapters: h.adapterBytes,
      buffers: s.dequant,
    },
  };
  // The vision tower runs on the stage holding the embeddings (memory/vision.ts).
  const tower = stage === 'last' ? null : towerOf(s);
  const rest = s.training
    ? {
        phases: tower
          ? withTower(trainingPhases(s, h, a, base), tower, h.inflight)
          : trainingPhases(s, h, a, base),
        kvPool: undefined,
        host: 0,
      }
    : inferencePhases(s, h, base, tower);
  // llama.cpp loads only its GPU layers onto the GPU (the rest stays in host RAM: layerSplit).
  if (s.fw.layerOffload && rest.phases[0]) load.parts.weights = rest.phases[0].parts.weights;
  const phases = [load, ...rest.phases];
  const host =
    (s.offloadOpt
      ? (h.stateBytesFull + h.trainShare * (s.masterPerParam + s.fp32GradPerParam)) / s.shardStates
      : 0) +
    (s.offloadParams ? (h.weightsFull + h.constantsFull) / s.shardParams : 0) +
    a.hostCheckpoints +
    rest.host;
  // Paged optimizers (paged-adamw, paged-adamw-8bit) keep their states in CUDA unified memory, "which
  // automatically transfers to the CPU when the GPU runs out of memory" and back when the step touches them
  // (bitsandbytes docs, Paged optimizers: https://huggingface.co/docs/bitsandbytes/main/en/explanations/optimizers#paged-optimizers;
  // bitsandbytes/optim/optimizer.py step(): prefetch_state(p) per parameter). The device needs only the
  // working set: the states of the largest parameter stepped at once. That is the fit figure; how many of
  // the rest stay on the device (nvidia-smi) depends on the card (withPagedResidency, paged.ts).
  const pagedAll = s.paged && !s.offloadOpt ? h.optimizer : 0;
  const one = Math.min(s.largest, h.trainShare) || h.trainShare;
  const pagedBytes =
    h.trainShare > 0 ? Math.min(pagedAll, (pagedAll * one) / h.trainShare) : pagedAll;
  if (s.paged) for (const p of phases) p.parts.optimizer = 0; // unified memory: invisible to the torch allocator
  return {
    phases,
    host: host + (pagedAll - pagedBytes),
    pagedBytes,
    pagedAll,
    transient: largestTransient(s, h.hasHead),
    ...(rest.kvPool ? { kvPool: rest.kvPool } : {}),
  };
}

type Worst = { stage: Stage; r: StageResult; peak: PhaseParts; device: number };

/** Evaluate every pipeline stage; the worst is the one nvidia-smi would show highest. */
function worstStage(s: Setup): { best: Worst; summaries: StageSummary[] } {
  const stages: Stage[] = s.pp === 1 ? ['only'] : ['first', 'last'];
  let best: Worst | null = null;
  const summaries: StageSummary[] = [];
  for (const stage of stages) {
    const r = evalStage(s, stage);
    const peak = r.phases.reduce((a, b) => (sumParts(b.parts) > sumParts(a.parts) ? b : a));
    // The worst rank is the one nvidia-smi would show highest: allocated peak plus its own extras.
    const dev = deviceBytesOf(s.fw, sumParts(peak.parts), r.transient, r.pagedBytes);
    if (!best || dev > best.device) best = { stage, r, peak, device: dev };
    summaries.push({
      stage,
      phaseAllocated: r.phases.map((p) => sumParts(p.parts)),
      transient: r.transient,
      paged: r.pagedBytes,
      host: r.host,
      weights: peak.parts.weights + peak.parts.quantConstants,
      // The cache a decode holds, also where a load transient sets the peak (a tiny model's fp8 load).
      kv: r.phases.reduce((m, p) => Math.max(m, p.parts.kvCache), 0),
    });
  }
  return { best: best!, summaries };
}

/**
 * `policy` (optional): how a preference / RL objective's policy and rollout estimates are made; the planner
 * passes policyMemo's so configurations that differ only in the rollout share those estimates.
 */
export function estimateMemory(
  model: Arch,
  o: EstimateOptions,
  ctx: EstimateContext = {},
  policy: PolicyMemory = policyMemory,
): MemoryEstimate {
  // Preference / RL objectives: the policy's SFT step plus the reference and rollout engine (objective.ts).
  // Paged states fill what the card has free once everything else (the objective's extras too) is placed.
  const m =
    o.objective !== undefined && o.objective !== 'sft'
      ? withObjective(model, o, ctx, FRAMEWORKS[o.framework], policy)
      : policyMemory(model, o, ctx);
  return withPagedResidency(m, ctx.gpuCapacityBytes);
}

/**
 * Policy estimates shared by the planner's surfaces (memory/surface.ts): `scope(o)` is the PolicyMemory for
 * withObjective on options that differ from `o` only in micro-batch and GPU count (a surface's points). A GRPO
 * search asks for the same SFT step under every rollout mode, and for the same generation batch under many
 * layouts: each is estimated once. The estimate is a pure function of (model, options, context) and
 * withObjective only reads it, so sharing it changes nothing. Scopes are keyed by the policy's options
 * (JSON.stringify: plain data, an absent field reading as one set to undefined) less micro-batch and GPUs;
 * within one, by the fields withObjective sets on the policy's options (objective.ts rolloutBytes:
 * method, optimizer, weights, batch, gpus) and the context.
 */
export function policyMemo(model: Arch): (o: EstimateOptions) => PolicyMemory {
  const scopes = new Map<string, Map<string, MemoryEstimate>>();
  return (o) => {
    const key = JSON.stringify({ ...policyOptions(o), batch: 0, gpus: 0 });
    let memo = scopes.get(key);
    if (memo === undefined) scopes.set(key, (memo = new Map()));
    const scope = memo;
    return (m, p, ctx) => {
      if (m !== model) return policyMemory(m, p, ctx);
      const k = `${ctx.lean === true}|${ctx.gpuCapacityBytes}|${p.method}|${p.optimizer}|${p.weights}|${p.batch}|${p.gpus}`;
      let e = scope.get(k);
      if (e === undefined) scope.set(k, (e = policyMemory(m, p, ctx)));
      return e;
    };
  };
}

function policyMemory(model: Arch, o: EstimateOptions, ctx: EstimateContext): MemoryEstimate {
  const s = setupOf(model, o, ctx);
  const { best, summaries } = worstStage(s);
  const { stage, r, peak } = best;
  const { fw, tp, pp } = s;
  const allocated = sumParts(peak.parts);
  const slack = allocated * fw.allocatorSlack + r.transient;
  const context = fw.cudaContextMiB * MiB;
  const reserved = allocated + slack;
  const device = deviceBytesOf(fw, allocated, r.transient, r.pagedBytes);
  const breakdown = withOverhead(peak.parts, slack + context + r.pagedBytes);
  if (r.pagedBytes > 0) {
    breakdown.optimizer += r.pagedBytes;
    breakdown.overhead -= r.pagedBytes;
  }
  const kvPool = r.kvPool;
  return {
    perGpu: {
      allocatedBytes: Math.round(allocated),
      reservedBytes: Math.round(reserved),
      deviceBytes: Math.round(device),
      breakdown: ctx.lean ? breakdown : roundBreakdown(breakdown, Math.round(device)),
    },
    peakPhase: peak.phase,
    phases: ctx.lean
      ? []
      : r.phases.map((p) => ({
          phase: p.phase,
          allocatedBytes: Math.round(sumParts(p.parts)),
          parts: roundParts(p.parts),
        })),
    hostBytesPerGpu: Math.round(r.host),
    ...(r.pagedAll > 0 ? { paged: pagedOf(r) } : {}),
    ...(kvPool
      ? {
          kvPool: {
            poolBytes: Math.round(kvPool.poolBytes),
            bytesPerToken: Math.round(kvPool.bytesPerToken),
            tokens: kvPool.tokens,
          },
        }
      : {}),
    ...(s.training ? {} : { cache: cacheOf(s) }),
    params: { total: s.facts.P.total, trainable: s.nTrain },
    parallel: { dp: Math.max(1, Math.floor(o.gpus / (tp * pp * o.cp))), tp, pp, cp: o.cp },
    worstStage: stage,
    stages: summaries,
    overhead: {
      allocatorSlack: Math.round(slack),
      transient: Math.round(r.transient),
      cudaContext: Math.round(context),
      pagedOptimizer: Math.round(r.pagedBytes),
    },
  };
}

/** The paged states before placement: only the working set counted on the device (withPagedResidency). */
function pagedOf(r: StageResult): PagedStates {
  const ws = Math.round(r.pagedBytes);
  const all = Math.round(r.pagedAll);
  return {
    statesBytes: all,
    workingSetBytes: ws,
    deviceBytes: ws,
    hostBytes: all - ws,
    fitDeviceBytes: 0, // set by withPagedResidency
  };
}

/** Largest single linear weight of the layers (elements): what quantize-on-load and dequantize hold. */
function largestLinear(arch: Arch): number {
  let m = 0;
  for (const g of arch.groups)
    for (const l of g.linears) m = Math.max(m, l.inFeatures * l.outFeatures);
  return m;
}

export function roundParts(p: Parts): Parts {
  const out: Parts = {
    weights: Math.round(p.weights),
    quantConstants: Math.round(p.quantConstants),
    adapters: Math.round(p.adapters),
    masterWeights: Math.round(p.masterWeights),
    gradients: Math.round(p.gradients),
    optimizer: Math.round(p.optimizer),
    activations: Math.round(p.activations),
    logits: Math.round(p.logits),
    kvCache: Math.round(p.kvCache),
    buffers: Math.round(p.buffers),
  };
  // Preference / RL phases (objective.ts) name the reference and the rollout engine: keep them.
  if (p.referenceModel !== undefined) {
    out.referenceModel = Math.round(p.referenceModel);
    out.rolloutWeights = Math.round(p.rolloutWeights ?? 0);
    out.rolloutKvCache = Math.round(p.rolloutKvCache ?? 0);
  }
  if (p.visionActivations !== undefined) out.visionActivations = Math.round(p.visionActivations);
  return out;
}

/**
 * A breakdown of `p` plus `overhead`, every field written out: a spread of the parts would give each
 * estimate's breakdown a fresh hidden class (V8), which the planner pays for on every one of its thousands.
 */
function withOverhead(p: Parts, overhead: number): Breakdown {
  const b: Breakdown = {
    weights: p.weights,
    quantConstants: p.quantConstants,
    adapters: p.adapters,
    masterWeights: p.masterWeights,
    gradients: p.gradients,
    optimizer: p.optimizer,
    activations: p.activations,
    logits: p.logits,
    kvCache: p.kvCache,
    buffers: p.buffers,
    overhead,
  };
  if (p.visionActivations !== undefined) b.visionActivations = p.visionActivations;
  return b;
}

/** Integer bytes per key whose sum is exactly `total` (rounding remainder goes to overhead). */
function roundBreakdown(b: Breakdown, total: number): Breakdown {
  const parts = roundParts(b);
  return withOverhead(parts, total - sumParts(parts));
}
