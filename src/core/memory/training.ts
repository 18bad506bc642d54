/** What a training stage holds (weights, adapters, gradients, optimizer states, activations, loss) per phase. */
import { stepTemporaryBytes } from './optimizer-states.js';
import {
  backwardWorkingBytes,
  layerBytes,
  mlpTileBytes,
  mlpTileTokens,
  selectiveLayerBytes,
} from './activations.js';
import { isFloatDtype, valueBytes } from '../model/dtypes.js';
import { towerBytes, towerMode, type TowerBytes } from './vision.js';
import { towerRun } from '../model/vision.js';
import { ligerLossBytes } from '../kernels/liger.js';
import { UPCAST_BACKWARD_PER_VOCAB } from './setup.js';
import type { Parts, Setup } from './setup.js';
import type { Phase } from './types.js';

export type Stage = 'only' | 'first' | 'last';

/** What one pipeline stage holds apart from activations: parameters, states, gradients, buffers. */
export interface Holdings {
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
  /** Unsharded gradients accumulated over the pipeline's micro-batches until the step (pipelineStageUnsharded). */
  stageGrads: number;
  layerGrad: number;
  gradBucket: number;
  ddpBuckets: number;
  autocastCopies: number;
}

/**
 * One GPU's layer linears over the stage's layers: values with biases, and quantization constants. Expert parallelism
 * / DP attention: the routed experts at their own share, the rest over TP (setup.ts experts); MXFP4 experts at the
 * shape the engine pads them to for its kernel (mxfp4-pad-bytes.ts).
 */
function linearsHeld(s: Setup): { weights: number; constants: number } {
  const { tp, lf } = s;
  const x = s.experts;
  const pad = s.mxfp4Pad ?? { weights: 0, constants: 0 };
  const weights = x
    ? ((s.linValues + s.linBias - x.values - x.bias) * lf) / tp + (x.values + x.bias) * lf * x.share
    : ((s.linValues + s.linBias) * lf) / tp;
  const constants = x
    ? ((s.linConstants - x.constants) * lf) / tp + x.constants * lf * x.share
    : (s.linConstants * lf) / tp;
  return { weights: weights + pad.weights * lf, constants: constants + pad.constants * lf };
}

// Per-stage accounting (pipeline parallel: first stage holds the embedding and pp micro-batches in flight
// under 1F1B; the last holds lm_head and the loss — Megatron theoretical_memory_usage.py).
export function holdingsOf(s: Setup, stage: Stage): Holdings {
  const { o, fw, arch, facts, t, tp, dp, c, lf, training } = s;
  const P = facts.P;
  const hasEmbed = stage !== 'last';
  const hasHead = stage !== 'first';
  const embedShare = (hasEmbed ? arch.embedParams : 0) + (hasHead ? arch.lmHeadParams : 0);
  const stageParams = P.linear * lf + P.linearBias * lf + P.other * lf + embedShare;
  const kbitHead = hasHead ? s.head : null;
  const floatShare = embedShare - (kbitHead ? arch.lmHeadParams : 0);

  // Weights held on this GPU.
  const held = linearsHeld(s);
  const weightsFull =
    held.weights +
    (floatShare / tp) * s.embedBytes +
    P.other * lf * s.floatBytes +
    (kbitHead ? kbitHead.values / tp : 0);
  const constantsFull = held.constants + (kbitHead ? kbitHead.constants / tp : 0);

  const trainShare = t.full ? stageParams / tp : (s.adapters * lf) / tp;
  const stateBytesFull = (s.states * (t.full ? stageParams / P.total : lf)) / tp;

  // Buffers: ZeRO-3 gathers whole layers for compute; ZeRO-2/3 reduce-scatter one layer's grads at a time.
  // Gathered copies are in the compute dtype (FSDP param_dtype) or the storage dtype when that is
  // smaller (k-bit FSDP-QLoRA all-gathers packed weights); never more layers than the stage has.
  const storagePerParam =
    (s.linValues + s.linBias + s.linConstants) / Math.max(1, P.linear + P.linearBias);
  // Training expert parallelism gathers a layer's routed experts whole over EP, not split over TP (setup.ts trainingEpOf).
  const layerOnGpu = s.trainingEp ? s.trainingEp.layer : P.largestLayer / tp;
  const layerParamsUnsharded = layerOnGpu * Math.min(c, storagePerParam);
  const sharded3 = o.zero >= 3 && (dp > 1 || s.offloadParams);
  const rootUnit = sharded3 && fw.fsdpRootUnit ? (embedShare / tp) * Math.min(c, s.embedBytes) : 0;
  const layersOnStage = Math.ceil(facts.totalLayers / s.pp);
  // While one layer runs backward its gradients exist unsharded, whatever the ZeRO stage: in the
  // gradient buffers (ZeRO 0/1) or in the reduce-scatter bucket (ZeRO-2/3).
  const layerGrad = training && t.full ? layerOnGpu * s.trainBytes : 0;
  // An engine that keeps a pipeline stage gathered all step holds every layer of it, not the prefetched ones.
  const stageHeld = sharded3 && s.pp > 1 ? fw.pipelineStageUnsharded : undefined;
  const gatheredLayers = stageHeld ? layersOnStage : Math.min(fw.gatheredLayers, layersOnStage);
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
    // Sharded gradients in host RAM where the engine offloads them (hostGrads); the fp32 partition only in the step
    // where the engine builds it there (fp32GradsInStep: fp32GradStepBytes).
    gradsAll:
      (s.hostGrads ? 0 : (trainShare * s.trainBytes) / s.shardGrads) +
      (s.offloadOpt || fw.fp32GradsInStep ? 0 : (trainShare * s.fp32GradPerParam) / s.shardStates),
    largestGrad: t.full ? Math.min(s.largest, trainShare) * s.trainBytes : 0,
    gathered: sharded3 ? gatheredLayers * layerParamsUnsharded + rootUnit : 0,
    stageGrads: stageHeld && training ? trainShare * stageHeld.accumulatedGradBytes : 0,
    layerGrad,
    gradBucket: o.zero >= 2 ? layerGrad : 0,
    // ZeRO-2/3 reduce-scatter one layer's gradients at a time; plain DDP keeps flat bucket buffers as large
    // as all gradients (torch DistributedDataParallel, gradient_as_bucket_view=False by default).
    // An engine that builds DDP with gradient_as_bucket_view for full fine-tunes keeps one copy (ddpFullGradViews).
    ddpBuckets:
      training &&
      o.zero === 0 &&
      dp > 1 &&
      !fw.deepspeedOptimizer &&
      !(t.full && fw.ddpFullGradViews)
        ? trainShare * s.trainBytes
        : 0,
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

export function activationsOf(s: Setup, h: Holdings): Activations {
  const { o, arch, t, lf, tokens, streamBytes, training, actCtx } = s;
  let saved = 0;
  let working = 0;
  let bwd = 0;
  for (const g of arch.groups) {
    // The vision tower runs over patches, not tokens: its activations are memory/vision.ts (towerOf).
    if (g.name === 'vision') continue;
    const n = g.count * lf;
    const full = layerBytes(g, actCtx);
    const tile = mlpTileBytes(g, actCtx, mlpTileTokens(g.hidden, o.batch, o.seq));
    bwd = Math.max(bwd, backwardWorkingBytes(g, actCtx) * tokens + tile);
    if (!training) continue;
    switch (o.checkpointing) {
      case 'none':
        saved += n * full * tokens;
        break;
      case 'selective':
        // Op-level checkpointing keeps a subset of what the layer saves without it (torchtitan
        // activation_checkpoint.py _save_list picks which saved tensors stay): never more than `full`,
        // which matters where the matmul count above overstates a layer (a Mamba mixer has no q/k/v).
        saved += n * Math.min(full, selectiveLayerBytes(g, actCtx)) * tokens;
        break;
      case 'full':
        // Only each layer's input is kept; backward recomputes one layer at a time (HF gradient_checkpointing).
        saved += (n * streamBytes * g.hidden * tokens) / actCtx.sp; // sharded by SP (Korthikanti §4.2.3)
        working = Math.max(working, full * tokens);
        break;
      case 'offload':
        // Layer inputs live in host memory; two are on the GPU: the buffer the recomputed layer's input is
        // copied back into, and the last layer's input, never offloaded (unsloth_zoo gradient_checkpointing.py
        // at ce232d6c: GPU_BUFFERS, "Don't offload the last layer", LAST_GC_INDEX; meta-pytorch/torchtune#1443).
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
  // Expert parallelism: an all-to-all's send and receive buffers, T x K rows of the hidden size each (torchtitan
  // token_dispatcher.py AllToAllTokenDispatcher; with SP each TP rank dispatches its own T / tp), alive in backward.
  const ep = s.trainingEp;
  const a2a = ep ? 2 * (tokens / actCtx.sp) * ep.topK * arch.hidden * s.c : 0;
  // SelectiveAC saves all_to_all_single's outputs (MUST_SAVE: torchtitan distributed/activation_checkpoint.py
  // comm_ops at b5bcd76c): the dispatched and the combined rows of every MoE layer on the stage.
  const a2aSaved = ep && o.checkpointing === 'selective' ? ep.moeLayers * lf * a2a * h.inflight : 0;
  return {
    saved: saved + loss.saved + (ckpt ? 0 : pw.perLayer * pw.layers * h.inflight) + a2aSaved,
    working: working + (ckpt ? pw.perLayer : 0),
    bwd: bwd + pw.largest + a2a,
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
      (l.copies * l.inFeatures * l.outFeatures * (s.expertBytes ?? c)) / tp;
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
    // only, and the loss bytes of its chunking (kernels/liger.ts). A frozen output layer gets no
    // grad_weight; LoRA on lm_head is not seen by the kernel (it reads lm_head.weight).
    const loss = ligerLossBytes(tokens, s.V, arch.hidden, c, fullTrain ? s.trainBytes : 0);
    return {
      saved: c * arch.hidden * tokens,
      logits: { logitsFwd: loss.forward, logitsBwd: loss.backward },
    };
  }
  const eagerNorm = fw.eagerFp32RmsNorm && !s.actCtx.fused && c < 4 ? 4 * arch.hidden * tokens : 0;
  const finalNorm = c * arch.hidden * tokens * (fullTrain || lmHeadTrained ? 2 : 1) + eagerNorm;
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
  const rows = chunkedHeadRows(s);
  if (rows !== null) return { saved: finalNorm, logits: chunkedHeadLogits(s, rows) };
  if (fw.loss.ppoSlicedLogprobs && s.ctx.logprobShare !== undefined)
    return { saved: finalNorm, logits: slicedLogprobHoldings(s, s.ctx.logprobShare) };
  // A compiled upcast loss (engine profile loss.compiledWithModel) keeps the 16-bit logits in forward and them
  // with their 16-bit gradient in backward: Inductor's min-cut partitioner recomputes the upcast and
  // log-softmax from the saved logits and per-token reductions (torch/_functorch/partitioners.py
  // min_cut_rematerialization_partition), and lowers nll_loss's scatter into zeros to a pointwise select
  // fused with the softmax gradient (torch/_inductor/config.py optimize_scatter_upon_const_tensor, on by
  // default; fx_passes/joint_graph.py scatter_upon_const_tensor).
  const compiledLoss = compiledUpcastLoss(s);
  const fwdPerV = o.chunkedLoss
    ? fw.loss.chunkedForward
    : compiledLoss
      ? c
      : fw.loss.upcast
        ? c + (c < 4 ? 4 : 0) + 4 + (s.ctx.shiftedLogitsCopy ? 4 : 0)
        : c;
  const bwdPerV = o.chunkedLoss
    ? fw.loss.chunkedBackward
    : compiledLoss
      ? 2 * c
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

/**
 * PPO log-probs from full-sequence logits sliced to the completion (profile loss.ppoSlicedLogprobs): forward
 * holds the 16-bit logits and their fp32 copy while the output layer upcasts, then the fp32 logits with the
 * completion's scaled copy and log_softmax output; backward holds log_softmax's saved output with its
 * incoming and input gradients over the completion, then the full-sequence fp32 gradient the slice's backward
 * fills (zeros over the prompt) beside the 16-bit gradient the upcast's backward returns. Nothing vocabulary
 * sized over the whole sequence is saved for backward: slicing, dividing by a scalar and upcasting save none.
 */
function slicedLogprobHoldings(
  s: Setup,
  completionShare: number,
): { logitsFwd: number; logitsBwd: number } {
  const { c, tokens } = s;
  const share = Math.min(1, completionShare);
  const upcast = c < 4 ? c : 0; // .float() on fp32 logits returns them: no copy, no gradient cast
  const fwdPerV = Math.max(4 + upcast, 4 + 8 * share);
  const bwdPerV = Math.max(12 * share, 4 + 4 * share, 4 + upcast);
  return {
    logitsFwd: (tokens * s.V * fwdPerV) / s.vocabShards,
    logitsBwd: (tokens * s.V * bwdPerV) / s.vocabShards,
  };
}

/**
 * The chunked output layer (profile loss.chunkedHead) runs each chunk's logits, loss and backward inside
 * the loss call, after the forward: one chunk's logits with the loss's backward tensors over them (its
 * compiled or upcast loss), the fp32 gradient buffer of the hidden states, one chunk's hidden gradient
 * and, past one sequence per micro-batch, the contiguous copies of the chunks (a split along the
 * sequence is strided). Backward starts from the 16-bit hidden gradient the loss call hands it.
 */
function chunkedHeadLogits(s: Setup, rows: number): { logitsFwd: number; logitsBwd: number } {
  const { o, fw, arch, c, tokens } = s;
  const perV = compiledUpcastLoss(s)
    ? 2 * c
    : fw.loss.upcast
      ? c + UPCAST_BACKWARD_PER_VOCAB
      : 2 * c;
  const hiddenBytes = c * arch.hidden * tokens;
  const gradBuffer = (fw.loss.chunkedHead?.gradBytes ?? c) * arch.hidden * tokens;
  return {
    logitsFwd:
      (rows * s.V * perV) / s.vocabShards +
      gradBuffer +
      c * arch.hidden * rows +
      (o.batch > 1 ? hiddenBytes : 0),
    logitsBwd: hiddenBytes,
  };
}

export type PhaseParts = { phase: Phase; parts: Parts };

/** The vision tower of `o.images` images per sample, with what it keeps under this configuration, or null. */
export function towerOf(s: Setup): TowerBytes | null {
  const { o, arch } = s;
  if (!o.images) return null;
  // A tower in its own file runs beside the text model (s.arch has none): its compute buffer is one graph of
  // imagesAtOnce images, whatever the batch (vision-file.ts), and nothing is kept for backward (inference).
  const vf = s.visionFile;
  if (vf) {
    const one = towerRun(vf.model, Math.min(o.images, vf.file.imagesAtOnce), o.imagePixels);
    return one ? towerBytes(one, { ...o, batch: 1 }, s.actCtx, 'frozen', s.streamBytes) : null;
  }
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
export function withTower(phases: PhaseParts[], tb: TowerBytes, inflight: number): PhaseParts[] {
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
export function trainingPhases(s: Setup, h: Holdings, a: Activations, base: Parts): PhaseParts[] {
  const { o, fw, arch, t, tp, facts, dequant } = s;
  const lmHeadGrad =
    h.hasHead && t.full && !s.hostGrads
      ? (((arch.lmHeadParams || arch.embedParams) / tp) * s.trainBytes) / s.shardGrads
      : 0;
  // Gradients that stay allocated through forward and backward (accumulation across micro-batches).
  const allGradsLive = fw.gradsPersist && !o.optimizerInBackward;
  const liveGrads = (allGradsLive ? h.gradsAll : lmHeadGrad) + h.stageGrads;
  const held = h.ddpBuckets + h.gathered + h.autocastCopies + dequant;
  const phases: PhaseParts[] = [
    {
      phase: 'forward',
      parts: {
        ...base,
        activations: a.saved,
        logits: a.logitsFwd,
        gradients: (allGradsLive ? h.gradsAll : 0) + h.stageGrads,
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
        gradients:
          (o.optimizerInBackward ? h.largestGrad + (t.full ? 0 : h.gradsAll) : h.gradsAll) +
          h.stageGrads,
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
      stepTemporaryBytes(
        o,
        fw,
        h.trainShare,
        Math.min(s.largest, h.trainShare) || h.trainShare,
        s.stateValueBytes,
      ) / s.shardStates;
    phases.push({
      phase: 'optimizer-step',
      parts: {
        ...base,
        gradients: h.gradsAll + fp32GradStepBytes(s, h),
        buffers: h.ddpBuckets + temp,
      },
    });
  }
  return phases;
}

/**
 * Elements of the fp32 gradient piece a step builds at once where the engine makes it in the step
 * (fp32GradsInStep): under ZeRO-3 one sub-group (up to its closing parameter's partition), below it the whole
 * partition; 0 where the engine holds no such piece on the GPU.
 */
function fp32GradStepElements(s: Setup, h: Holdings): number {
  const g = s.fw.fp32GradsInStep;
  if (!g || s.fp32GradPerParam === 0 || s.offloadOpt) return 0;
  const partition = h.trainShare / s.shardStates;
  return s.o.zero < 3
    ? partition
    : Math.min(partition, g.subGroupElements + s.largest / s.shardStates);
}

/** The fp32 gradient piece itself: the step's largest one-off tensor (memory.ts transient). */
export function fp32GradStepTensor(s: Setup, h: Holdings): number {
  return fp32GradStepElements(s, h) * s.fp32GradPerParam;
}

/**
 * What the piece holds at its cast: under ZeRO-3 with the flattened 16-bit copy it is cast from, below it from the
 * pre-flattened partition (no copy).
 */
function fp32GradStepBytes(s: Setup, h: Holdings): number {
  const n = fp32GradStepElements(s, h);
  return n * (s.fp32GradPerParam + (s.o.zero >= 3 ? s.trainBytes : 0));
}

/** Temporaries of the optimizer step fused into backward: one parameter's, the largest (per rank). */
function inBackwardStep(s: Setup, h: Holdings): number {
  const one = Math.min(s.largest, h.trainShare) || h.trainShare;
  return stepTemporaryBytes(s.o, s.fw, one, one, s.stateValueBytes) / s.shardStates;
}

/**
 * Tokens in one chunk of an engine's fused loss (null when its loss is not fused): as many as keep the
 * chunk's fp32 logits within the engine's cap, all of them when they fit (unsloth_zoo get_chunk_size).
 */
/** The engine compiles its upcast loss (with the model, or alone: ctx.lossCompiledAlone): no fp32 logits tensor exists. */
export function compiledUpcastLoss(s: Setup): boolean {
  const { o, fw } = s;
  return (
    fw.loss.upcast &&
    fw.loss.compiledWithModel === true &&
    (o.compile || s.ctx.lossCompiledAlone === true) &&
    s.vocabShards === 1 &&
    s.ctx.eagerLoss !== true
  );
}

/** Tokens in one chunk of a chunked output layer under --chunked-loss (profile loss.chunkedHead), or null. */
export function chunkedHeadRows(s: Setup): number | null {
  const head = s.fw.loss.chunkedHead;
  if (!head || !s.o.chunkedLoss || !s.training || s.V === 0) return null;
  return Math.ceil(s.tokens / head.chunks);
}

export function fusedLossChunk(s: Setup): number | null {
  const rows = fusedLossRows(s);
  return rows === null ? null : Math.min(s.tokens, rows);
}

/** The rows one chunk of a fused loss holds at most (the profile's fp32 cap over the vocabulary), or null. */
export function fusedLossRows(s: Setup): number | null {
  const cap = s.fw.loss.fusedChunkFp32Bytes;
  if (cap === undefined || !s.training || s.V === 0) return null;
  return Math.max(1, Math.floor(cap / (4 * s.V)));
}
