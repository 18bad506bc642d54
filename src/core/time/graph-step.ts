/**
 * A serving engine's step outside its CUDA graphs: the host's eager launches of a forward (a prefill the engine never
 * captures, a decode batch above the largest it captures), and the batch a captured decode step runs.
 */
import { releaseAtLeast } from '../compare-releases.js';
import { FRAMEWORKS } from '../memory/frameworks.js';
import { meanContextOf, moeGroupOf, type EstimateOptions } from '../../schema/estimate.js';
import type { TimeOptions } from '../../schema/time.js';
import { isBlockScaledFp8, runsBlockFp8Path } from './block-fp8.js';
import {
  EAGER_DECODE_OP_SECONDS,
  eagerLayerOps,
  fusedNormKernels,
  qkNormKernelCount,
} from './decode-host.js';
import { rocmGfx, type GpuRates } from './hardware.js';
import type { ModelFacts } from './model-facts.js';
import { piecewiseAttentionSeconds } from './piecewise.js';
import { OPS_PER_LAYER_COMPILED } from './train-work.js';

/**
 * The host's launches of one prefill forward of `tokens` tokens where the engine runs it without CUDA graphs
 * (FrameworkProfile.eagerPrefill), on a GPU of compute capability `cc`, issued from Python at the engine's price a call
 * (FrameworkProfile.eagerPrefillCallSeconds) or, where it gives none, an eager op's:
 * where the engine's calls for the model's layers were counted (FrameworkProfile.eagerPrefillLayerKernels, for the
 * layout: DP attention or not, the attention's TP, the expert-parallel degree), each dense and MoE layer's, with the
 * layer's two all-reduces: over TP less the norms the engine fuses into them at that many tokens
 * (decode-host.ts fusedNormKernels); under DP attention the gather's and the MLP's over every rank, each apart. Elsewhere
 * each of the layers' kernels (the count a graph-captured decode layer launches, OPS_PER_LAYER_COMPILED, and the ops
 * the engine's eager layer of the model's type issues beyond it, decode-host.ts eagerLayerOps), its two all-reduces, an
 * MoE layer's routing kernels, the kernels preparing q: per-head q/k norms or a strided q's copy. `engine`: the whole
 * engine's options where `o` is one DP-attention rank's (time/expert-parallel.ts rankOptions).
 * 0 where the engine captures its prefills (vLLM V1's piecewise graphs). `gfx`: an AMD card's gfx target.
 */
export function eagerPrefillHostSeconds(
  m: ModelFacts,
  o: EstimateOptions,
  cc = 0,
  tokens = 0,
  t?: TimeOptions,
  engine: EstimateOptions = o,
  gfx?: string,
): number {
  const fw = FRAMEWORKS[o.framework];
  if (fw.eagerPrefill !== true) return 0;
  const dp = engine.dpAttention === true;
  const parallel = { dpAttention: dp, attentionTp: o.tp, ep: engine.ep ?? 1 };
  // An AMD card runs a block-scaled FP8 checkpoint's linears in FP8 through the engine's ROCm kernels.
  const rocmBlockFp8 = gfx !== undefined && o.weights === 'fp8' && isBlockScaledFp8(m.arch);
  const blockFp8 = runsBlockFp8Path(m.arch, o, cc) || rocmBlockFp8;
  const counted = fw.eagerPrefillLayerKernels?.(m.modelType, cc, blockFp8, parallel, gfx);
  const call = fw.eagerPrefillCallSeconds ?? EAGER_DECODE_OP_SECONDS;
  // The engine's own price a call is a whole eager forward's host time over its calls: the layers' Python is in it.
  const python = fw.eagerPrefillCallSeconds === undefined;
  if (counted === undefined) return eagerForwardHostSeconds(m, o, 2, call, python);
  const tpReduces = o.tp > 1 ? 2 * m.layers - fusedNormKernels(m, o, cc, t, tokens) : 0;
  const allReduces = dp ? 2 * m.layers : tpReduces;
  const layers = (m.layers - m.moeLayers) * counted.dense + m.moeLayers * counted.moe;
  return (layers + allReduces) * call;
}

/**
 * The extend forwards a prefill of `tokens` prompt tokens runs in on an engine that launches its prefills eagerly:
 * its scheduler fills one forward with at most its chunked-prefill size on this card (FrameworkProfile.server's
 * chunkTokens), which under DP attention the engine divides among the attention ranks
 * (FrameworkProfile.dpAttentionChunkSplit), so a longer prompt runs several, each launching its kernels again.
 * `engine`: the whole engine's options where `o` is one DP-attention rank's. 1 where prefills are captured.
 */
export function prefillForwards(
  o: EstimateOptions,
  r: GpuRates,
  tokens: number,
  engine: EstimateOptions = o,
): { forwards: number; tokens: number } {
  const fw = FRAMEWORKS[o.framework];
  const chunk = fw.server?.sizing(r.capacityBytes, engine.tp, engine.pp).chunkTokens;
  if (fw.eagerPrefill !== true || chunk === undefined) return { forwards: 1, tokens };
  const split = engine.dpAttention === true && fw.dpAttentionChunkSplit === true;
  const perForward = Math.max(1, Math.floor(chunk / (split ? moeGroupOf(engine) / engine.tp : 1)));
  return {
    forwards: Math.max(1, Math.ceil(tokens / perForward)),
    tokens: Math.min(tokens, perForward),
  };
}

/**
 * The host's launches of a prefill of `tokens` tokens in as many eager forwards as the engine chunks it into
 * (prefillForwards), each eagerPrefillHostSeconds's launches.
 */
export function chunkedPrefillHostSeconds(
  m: ModelFacts,
  o: EstimateOptions,
  r: GpuRates,
  tokens: number,
  t?: TimeOptions,
  engine: EstimateOptions = o,
): number {
  const p = prefillForwards(o, r, tokens, engine);
  return p.forwards * eagerPrefillHostSeconds(m, o, r.cc, p.tokens, t, engine, rocmGfx(r));
}

/**
 * The host's launches of one forward issued eagerly (the count eagerPrefillHostSeconds names), of `rows` tokens a layer
 * (a prefill's several, a decode step's sequences), at `call` a launch, and, where `python` (a call priced as a bare
 * op's), each layer's Python around them as the engine's profile gives it (FrameworkProfile.eagerLayerHostSeconds).
 */
function eagerForwardHostSeconds(
  m: ModelFacts,
  o: EstimateOptions,
  rows: number,
  call = EAGER_DECODE_OP_SECONDS,
  python = true,
  t?: TimeOptions,
): number {
  const fw = FRAMEWORKS[o.framework];
  const allReduces = o.tp > 1 ? 2 : 0;
  const kernels =
    eagerLayerOps(m, fw, OPS_PER_LAYER_COMPILED, rows) +
    m.layers * allReduces +
    m.moeLayers * (fw.moeRoutingKernels ?? 0) +
    qkNormKernelCount(m, fw, 2, true) +
    eagerMlaMoeOps(m, o, t);
  return kernels * call + (python ? m.layers * (fw.eagerLayerHostSeconds ?? 0) : 0);
}

/**
 * Ops an older release's eager MLA attention and routed MoE block issue beyond the default layer's
 * (FrameworkProfile.eagerMlaMoeLayerOps), on the MLA layers and the MoE layers; none without a named release before
 * the profile's bound.
 */
function eagerMlaMoeOps(m: ModelFacts, o: EstimateOptions, t: TimeOptions | undefined): number {
  const p = FRAMEWORKS[o.framework].eagerMlaMoeLayerOps;
  const v = t?.engineVersion;
  if (p === undefined || v === undefined || releaseAtLeast(v, p.before)) return 0;
  return m.mlaLayers * p.mlaAttention + m.moeLayers * p.moe;
}

/**
 * Whether a V0 decode step runs eagerly for the length of its sequences: longer than the run's
 * `--max-seq-len-to-capture` (TimeOptions.maxSeqLenToCapture) or the engine's default (FrameworkProfile.v0GraphMaxSeqLen).
 * The step is the one the estimate times, at the run's mean context (meanContextOf).
 */
function v0AboveCapturedSeqLen(o: EstimateOptions, t: TimeOptions): boolean {
  if (t.v0Scheduler !== true) return false;
  const cap = t.maxSeqLenToCapture ?? FRAMEWORKS[o.framework].v0GraphMaxSeqLen;
  return cap !== undefined && meanContextOf(o) > cap;
}

/**
 * Whether a decode step of B sequences runs outside the engine's CUDA graphs: a V0 step past the sequence length its
 * graphs cover (v0AboveCapturedSeqLen); above the largest batch the measured
 * build replays (TimeOptions.graphMaxBatch) or, by default, the largest the engine captures on this card
 * (FrameworkProfile.graphMaxBatch).
 */
export function aboveGraphs(o: EstimateOptions, t: TimeOptions, r: GpuRates, B: number): boolean {
  if (v0AboveCapturedSeqLen(o, t)) return true;
  if (t.graphMaxBatch !== undefined) return B > t.graphMaxBatch;
  const cap = FRAMEWORKS[o.framework].graphMaxBatch;
  return cap !== undefined && r.capacityBytes !== undefined && B > cap(r.capacityBytes, o.tp, o.pp);
}

/**
 * The tokens a decode step of B sequences routes: a graph-captured step runs its batch padded to the captured size,
 * the padded rows routed too (FrameworkProfile.graphBatch); an eager one, its batch.
 */
export const routedBatch = (o: EstimateOptions, t: TimeOptions, r: GpuRates, B: number): number =>
  aboveGraphs(o, t, r, B) ? B : (FRAMEWORKS[o.framework].graphBatch?.(B, o.ep ?? 1) ?? B);

/**
 * The host's work that bounds a decode step from below: an overlapped scheduler's own step work
 * (FrameworkProfile.asyncStepHostSeconds, with asyncSeqHostSeconds for each running request; none under a serial
 * scheduler, which adds its work in series instead) and,
 * where the step runs outside the engine's CUDA graphs, the launches of its kernels (eagerForwardHostSeconds), which
 * the GPU runs as the host issues them, under any scheduler: the two add where one thread does both
 * (FrameworkProfile.forwardOnStepThread), as the piecewise path's eager calls add to the step work; else the longer.
 */
export function overlappedHostSeconds(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
  loop: number,
): number {
  const serial = t.serialScheduler === true || t.v0Scheduler === true;
  const fw = FRAMEWORKS[o.framework];
  const own = serial
    ? 0
    : loop * ((fw.asyncStepHostSeconds ?? 0) + (fw.asyncSeqHostSeconds ?? 0) * o.batch);
  const eager = aboveGraphs(o, t, r, o.batch) ? aboveGraphsHostSeconds(m, o, t, r) : 0;
  return fw.forwardOnStepThread === true ? own + eager : Math.max(own, eager);
}

/**
 * The host's launches of a decode step above the graphs (aboveGraphs): through the engine's compiled pieces where it
 * compiles the step (FrameworkProfile.compiledAboveGraphs) and the run did not turn graphs and compilation off (a
 * graph_max_batch of 0 is --enforce-eager's, which vLLM runs uncompiled: engines/vllm/eager-ops.ts) nor ran the V0
 * engine; else eagerly (eagerForwardHostSeconds).
 */
function aboveGraphsHostSeconds(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
): number {
  const c = FRAMEWORKS[o.framework].compiledAboveGraphs;
  if (c === undefined || t.graphMaxBatch === 0 || t.v0Scheduler === true)
    return eagerForwardHostSeconds(m, o, o.batch, EAGER_DECODE_OP_SECONDS, true, t);
  return compiledForwardHostSeconds(m, o, t, r, c);
}

/**
 * The host's launches of a decode step of `o.batch` sequences run through the engine's torch.compile'd pieces without
 * graphs: each layer's kernels a graph-captured decode layer runs (OPS_PER_LAYER_COMPILED) less the attention op's own
 * (the engine's piecewiseAttentionCalls.kv), each launched by the compiled code at `c.kernelSeconds`; a call of each of
 * the layers + 1 pieces the attention ops split the forward into, at `c.pieceSeconds`; the all-reduces and an MoE
 * layer's routing kernels, custom ops issued from Python at an eager op's price; and the attention ops between the
 * pieces as the piecewise path issues them (piecewise.ts piecewiseAttentionSeconds), which a build that runs piecewise
 * graphs already pays in its step (decode.ts).
 */
export function compiledForwardHostSeconds(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
  c: { kernelSeconds: number; pieceSeconds: number },
): number {
  const fw = FRAMEWORKS[o.framework];
  const pieceKernels = m.layers * (OPS_PER_LAYER_COMPILED - (fw.piecewiseAttentionCalls?.kv ?? 0));
  const customOps = (o.tp > 1 ? 2 * m.layers : 0) + m.moeLayers * (fw.moeRoutingKernels ?? 0);
  const step = { cc: r.cc, rows: o.batch, tp: o.tp };
  const attention =
    t.piecewiseGraphs === true
      ? 0
      : piecewiseAttentionSeconds(m, fw, { ...t, piecewiseGraphs: true }, step).host;
  return (
    pieceKernels * c.kernelSeconds +
    (m.layers + 1) * c.pieceSeconds +
    customOps * EAGER_DECODE_OP_SECONDS +
    attention
  );
}
