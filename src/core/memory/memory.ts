/**
 * Per-GPU peak memory of one training or inference configuration, by mechanism: what each component
 * allocates, when it is alive, and which phase (load, forward, backward, optimizer step, prefill,
 * decode) sets the peak. Pure: data in, data out.
 */
import type { Arch } from '../model/arch.js';
import { isPreferenceOrRl, type EstimateOptions, type WeightDtype } from '../../schema/estimate.js';
import { FRAMEWORKS } from './frameworks.js';
import { shardedQuantLoadOf } from './sharded-load.js';
import type { FrameworkProfile } from './framework-profile.js';
import { MiB } from '../units.js';
import { policyOptions, preparedContext, withObjective, type PolicyMemory } from './objective.js';
import { ZERO_PARTS } from './parts.js';
import { withPagedResidency, type PagedStates } from './paged.js';
import {
  cacheOf,
  inferencePhases,
  largestTransient,
  poolStartShort,
  towerFileBytes,
} from './inference.js';
import type { KvPool } from './inference.js';
import { deviceBytesOf, setupOf, sumParts } from './setup.js';
import type { Parts, Setup } from './setup.js';
import {
  activationsOf,
  fp32GradStepTensor,
  holdingsOf,
  towerOf,
  trainingPhases,
  withTower,
} from './training.js';
import type { PhaseParts, Stage } from './training.js';
import type { Breakdown, EstimateContext, MemoryEstimate, StageSummary } from './types.js';
export type {
  Breakdown,
  EstimateContext,
  MemoryEstimate,
  Phase,
  PhaseTotal,
  StageSummary,
} from './types.js';
export { deviceBytesOf } from './setup.js';
export { recurrentStateBytes } from './inference.js';

type StageResult = {
  phases: PhaseParts[];
  host: number;
  /** The paged states' working set on the device (the fit figure), and all of them. */
  pagedBytes: number;
  pagedAll: number;
  transient: number;
  /** `transient`'s parts (StageSummary.batchTransient, stepTransient). */
  batchTransient: number;
  stepTransient: number;
  kvPool?: KvPool;
  /** What a paged-pool server's budget must hold to start (inference.ts poolStartBudget; 0: not one). */
  poolStart: number;
};

/** Whether an engine's ranks load these base weights whole onto each GPU (FrameworkProfile.loadsWholeBeforeSharding). */
const loadsWhole = (
  rule: FrameworkProfile['loadsWholeBeforeSharding'],
  weights: WeightDtype,
): boolean => rule === true || (Array.isArray(rule) && rule.includes(weights));

/**
 * FrameworkProfile.shardedQuantLoad: base weights the launch loads layer by layer where loadsWholeBeforeSharding
 * would hold them whole, each tensor quantized on the GPU (`workers` at once), then kept on rank 0's host
 * (EngineProfile.hostLoading), meta elsewhere (sharded-load.ts). Not for a run that loaded whole
 * (EstimateContext.quantizerLoadsWhole).
 */
const shardedLoadOf = (s: Setup): FrameworkProfile['shardedQuantLoad'] =>
  s.ctx.quantizerLoadsWhole === true ? undefined : shardedQuantLoadOf(s.fw, s.o, s.arch, s.dp);

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
  // Load: weights materialize tensor by tensor; quantize-on-load holds one 16-bit tensor transiently. An engine
  // that shards after loading (loadsWholeBeforeSharding) holds the whole model and adapters on each GPU first,
  // unless its launch loads layer by layer (shardedQuantLoad: `workers` quantize-on-load transients at once).
  // The vision tower runs on the stage holding the embeddings (memory/vision.ts).
  const tower = stage === 'last' ? null : towerOf(s);
  const sharded = shardedLoadOf(s);
  const whole =
    !sharded && loadsWhole(s.fw.loadsWholeBeforeSharding, s.o.weights) && s.o.zero >= 3 && s.dp > 1;
  const load: PhaseParts = {
    phase: 'load',
    parts: {
      ...ZERO_PARTS,
      weights: (whole ? h.weightsFull : h.weights) + towerFileBytes(s, tower),
      quantConstants: whole ? h.constantsFull : h.quantConstants,
      adapters: whole ? h.adapterBytes * s.dp : h.adapterBytes,
      buffers: s.dequant * (sharded?.workers ?? 1),
    },
  };
  const rest = s.training
    ? {
        phases: tower
          ? withTower(trainingPhases(s, h, a, base), tower, h.inflight)
          : trainingPhases(s, h, a, base),
        kvPool: undefined,
        host: 0,
        poolStart: 0,
      }
    : inferencePhases(s, h, base, tower);
  // llama.cpp loads only its GPU layers onto the GPU (the rest stays in host RAM: layerSplit).
  if (s.fw.layerOffload && rest.phases[0]) {
    load.parts.weights = rest.phases[0].parts.weights;
    load.parts.quantConstants = rest.phases[0].parts.quantConstants;
  }
  const phases = [load, ...rest.phases];
  const host =
    (s.offloadOpt
      ? (h.stateBytesFull + h.trainShare * (s.masterPerParam + s.fp32GradPerParam)) / s.shardStates
      : 0) +
    (s.offloadParams ? (h.weightsFull + h.constantsFull) / s.shardParams : 0) +
    (s.offloadParams && s.fw.offloadGradBufferWeights?.includes(s.o.weights) === true
      ? h.weightsFull / s.shardParams
      : s.hostGrads || s.hostGradShards
        ? (h.trainShare * s.trainBytes) / s.shardGrads
        : 0) +
    (s.hostStepCopies ? 2 * h.trainShare * s.trainBytes : 0) +
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
  const batchTransient = largestTransient(s, h.hasHead);
  // The fp32 gradient piece a DeepSpeed step builds is one such one-off tensor (training.ts fp32GradStepTensor).
  const stepTransient = s.training ? fp32GradStepTensor(s, h) : 0;
  return {
    phases,
    host: host + (pagedAll - pagedBytes),
    pagedBytes,
    pagedAll,
    transient: Math.max(batchTransient, stepTransient),
    batchTransient,
    stepTransient,
    poolStart: rest.poolStart,
    ...(rest.kvPool ? { kvPool: rest.kvPool } : {}),
  };
}

type Worst = { stage: Stage; r: StageResult; peak: PhaseParts; device: number };

/** Evaluate every pipeline stage; the worst is the one nvidia-smi would show highest. */
export function worstStage(s: Setup): { best: Worst; summaries: StageSummary[] } {
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
      batchTransient: r.batchTransient,
      stepTransient: r.stepTransient,
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
  // MXFP4 experts the engine upcasts at load (EstimateContext.mxfp4Upcast): held as a BF16 model.
  if (ctx.mxfp4Upcast === true && o.weights === 'mxfp4') o = { ...o, weights: 'bf16' };
  // Preference / RL objectives: the policy's SFT step plus the reference and rollout engine (objective.ts).
  // Paged states fill what the card has free once everything else (the objective's extras too) is placed.
  const m = isPreferenceOrRl(o)
    ? withObjective(model, o, preparedContext(o, ctx), FRAMEWORKS[o.framework], policy)
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
 * method, optimizer, weights, batch, gpus, zero, offload) and the context. The rollout's generation (method
 * 'inference') sets all seven, so its options are the scope's less the policy's own method, optimizer, weights,
 * zero and offload (its heads compare zero and offload: vLLM's own copy is neither sharded nor offloaded) and
 * less what an inference estimate does not read (generationKey): its heads are kept by that shorter key, shared
 * by scopes that differ only in those (full and LoRA, the optimizers, ZeRO stages, Liger twins).
 */
export function policyMemo(model: Arch): (o: EstimateOptions) => PolicyMemory {
  const scopes = new Map<string, ScopeHead[]>();
  const generations = new Map<string, ScopeHead[]>();
  return (o) => {
    const po = policyOptions(o);
    const key = JSON.stringify({ ...po, batch: 0, gpus: 0 });
    let memo = scopes.get(key);
    if (memo === undefined) scopes.set(key, (memo = []));
    const own = memo;
    let gen: ScopeHead[] | null = null;
    const genHeads = (): ScopeHead[] => {
      const k = generationKey(po);
      let g = generations.get(k);
      if (g === undefined) generations.set(k, (g = []));
      return g;
    };
    return (m, p, ctx) => {
      if (m !== model) return policyMemory(m, p, ctx);
      const heads = p.method === 'inference' ? (gen ??= genHeads()) : own;
      // A scope holds a few heads (the policy's own step, the rollout's generation), each many points: the
      // head is found by comparing its fields, the point by a number (no key string per call).
      const lean = ctx.lean === true;
      const cap = ctx.gpuCapacityBytes;
      let head: ScopeHead | undefined;
      for (let i = 0; i < heads.length; i++) {
        const h = heads[i]!;
        if (
          h.lean === lean &&
          h.cap === cap &&
          h.method === p.method &&
          h.optimizer === p.optimizer &&
          h.weights === p.weights &&
          h.zero === p.zero &&
          h.offload === p.offload
        ) {
          head = h;
          break;
        }
      }
      if (!head) {
        head = {
          lean,
          cap,
          method: p.method,
          optimizer: p.optimizer,
          weights: p.weights,
          zero: p.zero,
          offload: p.offload,
          points: new Map(),
        };
        heads.push(head);
      }
      const k =
        isPointInt(p.batch, POINT_BATCHES) && isPointInt(p.gpus, POINT_GPUS)
          ? p.batch * POINT_GPUS + p.gpus
          : `${p.batch}|${p.gpus}`;
      let e = head.points.get(k);
      if (e === undefined) head.points.set(k, (e = policyMemory(m, p, ctx)));
      return e;
    };
  };
}

/**
 * policyMemo's key for the heads of a rollout's generation (method 'inference') made from scope options `po`: `po`
 * less the seven fields rolloutBytes sets (method, optimizer, weights, batch and GPUs; zero and offload, which the
 * heads compare), less the fields an inference estimate never reads. Read in the code, for method 'inference':
 * - `liger` is read by setupOf only, which swaps in Liger's profile (kernels/liger.ts withLiger:
 *   eagerFp32RmsNorm, fusedSwiglu, loss.upcast) and sets Setup.fusedLinearLoss. Those are read by the saved and
 *   backward activations and the loss (activations.ts normBytes, mlpBytes; training.ts lossHoldings,
 *   compiledUpcastLoss), which evalStage reads for training stages only (trainingPhases; lossHoldings is asked
 *   for no head without training), and by largestTransient's training branch: no inference figure moves.
 * - `checkpointing` is read by activationsOf, whose training-only parts are skipped, but for its host
 *   checkpoints ('offload' only: evalStage's host bytes), and by the vision tower (towerMode: 'frozen' for
 *   inference before it looks). So only whether it is 'offload' joins the key.
 * - `attention` is read as whether it is 'eager' (inference.ts kvAndPrefill and largestTransient: eager attention's
 *   scores; vision.ts forwardBytes), but for the saved activations (activations.ts attentionBytes, training only as
 *   above): flash and SDPA generations are alike (as inference.ts attentionAlike has it for serving).
 * A generation of the trainers' Liger twins, of their checkpointing choices but offload and of their flash and SDPA
 * variants is made once.
 */
function generationKey(po: EstimateOptions): string {
  return JSON.stringify({
    ...po,
    method: 0,
    optimizer: 0,
    weights: 0,
    batch: 0,
    gpus: 0,
    zero: 0,
    offload: 0,
    liger: 0,
    checkpointing: po.checkpointing === 'offload',
    attention: po.attention === 'eager',
  });
}

/** policyMemo's estimates of one scope by the fields withObjective sets and the context, then by point. */
interface ScopeHead {
  lean: boolean;
  cap: number | undefined;
  method: EstimateOptions['method'];
  optimizer: EstimateOptions['optimizer'];
  weights: EstimateOptions['weights'];
  zero: EstimateOptions['zero'];
  offload: EstimateOptions['offload'];
  /** By batch x POINT_GPUS + gpus (whole numbers below their bounds: exact in a double), else `${batch}|${gpus}`. */
  points: Map<number | string, MemoryEstimate>;
}

// Key bounds, not model constants: batch x 2^26 + gpus stays below 2^53, the largest exact integer of a double
// (Number.MAX_SAFE_INTEGER, ECMA-262 §21.1.2.6).
const POINT_BATCHES = 2 ** 26;
const POINT_GPUS = 2 ** 26;
/** A whole number from 0 to below `bound`. */
const isPointInt = (x: number, bound: number) => Number.isInteger(x) && x >= 0 && x < bound;

function policyMemory(model: Arch, o: EstimateOptions, ctx: EstimateContext): MemoryEstimate {
  const s = setupOf(model, o, ctx);
  const { best, summaries } = worstStage(s);
  const { stage, r, peak } = best;
  const { fw, tp, pp } = s;
  const allocated = sumParts(peak.parts);
  const slack = allocated * fw.allocatorSlack + r.transient;
  const context = fw.cudaContextMiB * MiB;
  const reserved = allocated + slack;
  const profiled = deviceBytesOf(fw, allocated, r.transient, r.pagedBytes);
  // A pool short of what the engine starts with: the GPU memory it would start on (its KV counted).
  const cap = s.ctx.gpuCapacityBytes;
  const short = cap === undefined ? 0 : poolStartShort(fw, r.poolStart, cap, tp, pp);
  const device = Math.max(profiled, short);
  const breakdown = withOverhead(
    peak.parts,
    slack + context + r.pagedBytes,
    peak.parts.kvCache + device - profiled,
  );
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
    ...(r.poolStart > 0 ? { poolStartBudget: Math.round(r.poolStart) } : {}),
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
 * `kvCache`: the KV cache to write in place of p.kvCache (policyMemory's pool short of its start), so that no
 * copy of the parts is made for it.
 */
function withOverhead(p: Parts, overhead: number, kvCache = p.kvCache): Breakdown {
  const b: Breakdown = {
    weights: p.weights,
    quantConstants: p.quantConstants,
    adapters: p.adapters,
    masterWeights: p.masterWeights,
    gradients: p.gradients,
    optimizer: p.optimizer,
    activations: p.activations,
    logits: p.logits,
    kvCache,
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
