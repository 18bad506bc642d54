/**
 * Decode and serving time of an MoE engine with DP attention (vLLM --data-parallel-size with
 * --enable-expert-parallel, SGLang --enable-dp-attention): each data-parallel rank runs attention, the dense
 * layers and its own KV for its share of the batch, while every MoE layer runs the routed experts of all the
 * ranks' tokens over the whole group and gathers / scatters those tokens between the ranks.
 */
import {
  meanContextOf,
  moeGroupOf,
  outputTokensOf,
  promptTokensOf,
  type EstimateOptions,
} from '../../schema/estimate.js';
import type { TimeOptions } from '../../schema/time.js';
import { splitsExperts } from '../memory/expert-parallel.js';
import { decodeStep, type DecodeTime } from './decode.js';
import { servingTime } from './serving-request.js';
import type { GpuRates } from './hardware.js';
import { DECODE_PHASES, type ModelFacts } from './model-facts.js';
import { collectiveLatency } from './nccl-ring.js';
import { FRAMEWORKS } from '../memory/frameworks.js';
import { releaseNamedBefore } from '../compare-releases.js';

const W = DECODE_PHASES.indexOf('decode-weights');
const KV = DECODE_PHASES.indexOf('decode-kv');
const EP = DECODE_PHASES.indexOf('expert-parallel');

/** Whether the engine runs the MoE layers over DP-attention ranks (the time model of this module). */
export const dpAttentionTimed = (m: ModelFacts, o: EstimateOptions): boolean =>
  m.experts > 1 && o.dpAttention === true && splitsExperts(o);

/** The model without its routed experts (attention, dense MLPs, shared experts, embeddings, routers). */
export function denseFacts(m: ModelFacts): ModelFacts {
  const all = m.expertWeightsPerLayer * m.experts * m.moeLayers;
  const active = m.expertWeightsPerLayer * m.topK * m.moeLayers;
  return {
    ...m,
    linearTotal: m.linearTotal - all,
    linearActive: m.linearActive - active,
    total: m.total - all,
    active: m.active - active,
    expertWeightsPerLayer: 0,
    experts: 1,
    topK: 1,
  };
}

/**
 * The rank's options for its dense part: MXFP4 MoE checkpoints keep everything but the experts in BF16
 * (quantization_config.modules_to_not_convert: https://huggingface.co/openai/gpt-oss-120b/blob/main/config.json).
 */
export const rankOptions = (o: EstimateOptions): EstimateOptions => ({
  ...o,
  ...(o.weights === 'mxfp4' ? { weights: 'bf16' as const } : {}),
  ep: undefined,
  dpAttention: undefined,
});

/** The group's options: every rank's tokens through the MoE layers, the experts over all the group's GPUs. */
const groupOptions = (o: EstimateOptions, tokens: number): EstimateOptions => ({
  ...o,
  tp: moeGroupOf(o),
  batch: tokens,
  ep: undefined,
  dpAttention: undefined,
});

/** The memory-or-compute core of a decode step (weights + KV phases; the host and TP terms left out). */
const coreOf = (d: DecodeTime): number => d.phases[W]! + d.phases[KV]!;

/**
 * Seconds of the routed experts per step on one GPU of the group: the same kernel model with and without them
 * (decode.ts decodeStep), for every rank's tokens, the experts spread over the group's GPUs.
 */
export function expertSeconds(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
  tokens: number,
  ctx: number,
): { decode: number; prefillPerPrompt: number } {
  const g = groupOptions(o, tokens);
  const full = decodeStep(m, g, t, r, true, ctx);
  const dense = decodeStep(denseFacts(m), g, t, r, true, ctx);
  // One prompt's prefill through the experts, over the group's GPUs (the prefill of decodeStep at batch 1).
  const p = promptTokensOf(o);
  const one = { ...g, batch: 1 };
  const prefill =
    decodeStep(m, one, t, r, true, p).prefillSeconds -
    decodeStep(denseFacts(m), one, t, r, true, p).prefillSeconds;
  return {
    decode: Math.max(0, coreOf(full) - coreOf(dense)),
    prefillPerPrompt: Math.max(0, prefill),
  };
}

/** The link and the latency of one of the group's collectives (train-work.ts, nccl-tests). */
function gatherLink(o: EstimateOptions, r: GpuRates): { link: number; latency: number } {
  const link = moeGroupOf(o) > r.gpusPerNode ? r.interNode : r.intraMany;
  return { link, latency: collectiveLatency(link, r) };
}

/**
 * The engine's gathers (FrameworkProfile.dpGather): the layers that gather (every decoder layer where the dense MLPs
 * run over the gathered tokens too, else the MoE layers), and whether a decode step's gather is an all-reduce of the
 * summed tokens (a release before the profile's bound) and a prompt's tokens ride an extend step's all-reduces.
 */
function gatherPlan(
  m: ModelFacts,
  o: EstimateOptions,
  t?: TimeOptions,
): { layers: number; decodeAllReduce: boolean; extendAllReduce: boolean } {
  const g = FRAMEWORKS[o.framework].dpGather;
  const v = t?.engineVersion;
  const bound = g?.decodeAllReduceBefore;
  return {
    layers: g?.everyLayer === true ? m.layers : m.moeLayers,
    decodeAllReduce: bound !== undefined && v !== undefined && releaseNamedBefore(v, bound),
    extendAllReduce: g?.extendAllReduce === true,
  };
}

/**
 * Per gathering layer the ranks' tokens are gathered to the experts and their outputs scattered back: vLLM's default
 * all2all_backend "allgather_reducescatter" (vllm/config/parallel.py at 00193b82b0e2d4faea5d3b4ea4f6c4c2bd9d057a),
 * the all-gather / reduce-scatter SGLang's DP attention runs around its MoE layers
 * (https://docs.sglang.io/docs/advanced_features/dp_dpa_smg_guide.md). Each moves the other ranks' tokens x
 * hidden in 16 bits at the link's rate, and pays one collective's latency (train-work.ts, nccl-tests). Where the
 * release gathers with an all-reduce of the summed tokens instead (FrameworkProfile.dpGather) each moves twice those
 * bytes: a ring all-reduce is a reduce-scatter and an all-gather, 2 (n - 1) / n of the buffer a GPU
 * (https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md, "Bus bandwidth").
 */
export function gatherSeconds(
  m: ModelFacts,
  o: EstimateOptions,
  r: GpuRates,
  tokens: number,
  t?: TimeOptions,
): number {
  const ranks = moeGroupOf(o) / o.tp;
  if (ranks <= 1) return 0;
  const { link, latency } = gatherLink(o, r);
  const plan = gatherPlan(m, o, t);
  const bytes = (tokens * m.hidden * 2 * (ranks - 1)) / ranks;
  return 2 * plan.layers * (((plan.decodeAllReduce ? 2 : 1) * bytes) / link + latency);
}

/**
 * One prompt's tokens through an extend step's gathers, where the engine all-reduces a zero-filled buffer of every
 * rank's tokens before each gathered MLP and the MLP's output after (FrameworkProfile.dpGather.extendAllReduce): the
 * prompt's tokens x hidden in 16 bits, 2 (n - 1) / n of them a GPU in each of the two all-reduces a gathering layer.
 * The collectives' latency is the step's, already paid with its decode tokens (gatherSeconds); 0 where not so.
 */
export function extendGatherSeconds(
  m: ModelFacts,
  o: EstimateOptions,
  r: GpuRates,
  t?: TimeOptions,
): number {
  const ranks = moeGroupOf(o) / o.tp;
  const plan = gatherPlan(m, o, t);
  if (ranks <= 1 || !plan.extendAllReduce) return 0;
  const bytes = (2 * promptTokensOf(o) * m.hidden * 2 * (ranks - 1)) / ranks;
  return (2 * plan.layers * bytes) / gatherLink(o, r).link;
}

export interface DpAttentionTime {
  /** One rank's decode step (its batch's tokens; every rank steps together). */
  step: DecodeTime;
  /** The step's parts: the rank's own work, the routed experts on one GPU, the gathers and scatters. */
  rankSeconds: number;
  expertSeconds: number;
  gatherSeconds: number;
  /** Tokens per step of the whole engine (the batch of every rank). */
  engineTokensPerStep: number;
  ttft: number;
  tpot: number;
}

/** A DP-attention engine's decode step per rank and its TTFT / TPOT (docs/time-model.md). */
export function dpAttentionTime(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
  ctx = o.seq,
  detail = true,
): DpAttentionTime {
  const tokens = o.batch * (moeGroupOf(o) / o.tp);
  const dense = denseFacts(m);
  const ro = rankOptions(o);
  const rank = decodeStep(dense, ro, t, r, true, ctx, promptTokensOf(o));
  const ex = expertSeconds(m, o, t, r, tokens, ctx);
  const gather = gatherSeconds(m, o, r, tokens, t);
  const stepSeconds = rank.stepSeconds + ex.decode + gather;
  const phases = Float64Array.from(rank.phases);
  phases[W] = phases[W]! + ex.decode;
  phases[EP] = gather;
  const step: DecodeTime = {
    ...rank,
    stepSeconds,
    tokensPerSecond: o.batch / stepSeconds,
    phases: detail ? phases : rank.phases,
    bound: gather > rank.stepSeconds + ex.decode ? 'communication' : rank.bound,
  };
  // A request's prefill: its rank's attention and dense layers, and its tokens through the experts over the group;
  // the engine steps in lockstep around it (lockstepStalls).
  const mean = meanContextOf(o);
  const sv = servingTime(dense, ro, t, r, o);
  // The rank's own decode step (graphs on) at the mean context: servingTime's TTFT holds one after the prefill.
  const rankDecode = decodeStep(dense, ro, t, r, false, mean).stepSeconds;
  const rankPrefill = sv.ttft - rankDecode;
  const meanStep = dpAttentionStep(m, o, t, r, mean);
  const prefill = {
    rank: rankPrefill,
    rankInStep: sv.stall,
    // The prompt's tokens through the routed experts over the group and through the extend step's gathers.
    experts: ex.prefillPerPrompt + extendGatherSeconds(m, o, r, t),
    rankDecode,
  };
  const lock = lockstepStalls(m, o, t, r, prefill, meanStep);
  return {
    step,
    rankSeconds: rank.stepSeconds,
    expertSeconds: ex.decode,
    gatherSeconds: gather,
    engineTokensPerStep: tokens,
    ttft: lock.prefillStep + meanStep,
    tpot: meanStep + lock.stall / outputTokensOf(o),
  };
}

/**
 * The expected number of a request's `steps` decode steps that hold at least one other rank's prefill, with `own`
 * arrivals on its own rank and `others` on the other ranks over its decode. The ranks prefill in parallel within a
 * step, so a step holding k of them counts once. Arrivals are taken as independent over steps, so the count of
 * prefills a step holds is Poisson (docs/assumptions.md, "DP attention's arrivals": the law of rare events over the
 * engine's many sequences, each replaced once per request's decode at a phase of its own; the Palm-Khintchine
 * theorem, https://en.wikipedia.org/wiki/Palm%E2%80%93Khintchine_theorem), and a step holds none with probability
 * exp(-rate). `ownInserted`: the own rank's prefills are steps of their own in which the request does not decode
 * (prefillInDecodeStep off), so the others' arrivals spread over steps + own steps and only those that fall in a decode
 * step count; else the own rank's prompts ride decode steps, and a step that carries one already grows by it.
 */
export function lockstepSteps(
  steps: number,
  own: number,
  others: number,
  ownInserted: boolean,
): number {
  if (steps <= 0 || others <= 0) return 0;
  // E[steps holding >= 1 of the others' prefills] = S (1 - exp(-A / S)) for A Poisson arrivals over S steps.
  if (ownInserted) return steps * -Math.expm1(-others / (steps + Math.max(0, own)));
  return steps * Math.exp(-Math.max(0, own) / steps) * -Math.expm1(-others / steps);
}

/**
 * DP attention's lockstep. The ranks step together: each MoE layer gathers every rank's tokens, and each step the
 * ranks all-gather their token counts and forward modes, a rank without work running an idle batch (SGLang
 * prepare_mlp_sync_batch_raw / get_idle_batch, managers/scheduler_dp_attn_mixin.py, sglang==0.5.7 wheel; vLLM: "forward
 * passes must be aligned ... even when there are fewer requests to be processed than DP ranks",
 * https://docs.vllm.ai/en/latest/serving/data_parallel_deployment.html). A step in which one rank prefills so lasts
 * that rank's prefill on every rank. While a request decodes its output each of the engine's other ranks x B - 1
 * sequences is replaced, and its successor prefilled, once (servingTime's count, time/serving-request.ts): B - 1 on
 * its own rank, each a prefill of that rank, and the rest spread over the other ranks, which prefill in parallel, so
 * they cost the distinct steps holding one (lockstepSteps), each the longest of its prompts' rank work: the same
 * prompt length, one prompt's. Every prompt's tokens also run through the experts, spread over the whole group, so
 * that work adds per prompt. `prefill`: one prompt's work on its rank, whole and as it adds to a decode step it rides
 * (servingTime's neighbour stall), and through the group's experts; `rankDecode`, where the caller has it, the rank's
 * decode step at the mean context with its graphs. Where the engine runs a prefill as a batch of its
 * own (FrameworkProfile.prefillInDecodeStep off) the step also runs the MoE layers over the other ranks' decode
 * tokens, and on the prompt's own rank it takes the place of a decode step (the whole step a stall); on the other
 * ranks the request still decodes a token in it, and waits for the longer of the prefill and its own decode, launched
 * eagerly where the engine drops its graphs for a step with a prefill (FrameworkProfile.dpPrefillStepEager). Where
 * the prompt rides a decode step (a token budget per rank) the step grows by one rank's prompt work.
 */
export function lockstepStalls(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
  prefill: { rank: number; rankInStep: number; experts: number; rankDecode?: number },
  step: number,
): { prefillStep: number; stall: number; lockSteps: number } {
  const fw = FRAMEWORKS[o.framework];
  const engine = o.batch * (moeGroupOf(o) / o.tp);
  const own = o.batch - 1;
  const others = engine - o.batch;
  const out = outputTokensOf(o);
  const experts = prefill.experts * (engine - 1);
  if (fw.prefillInDecodeStep === true) {
    const lockSteps = lockstepSteps(out, own, others, false);
    const stall = prefill.rankInStep * (own + lockSteps) + experts;
    return { prefillStep: prefill.rank + prefill.experts, stall, lockSteps };
  }
  const dense = denseFacts(m);
  const ro = rankOptions(o);
  const ctx = meanContextOf(o);
  const graphRank = prefill.rankDecode ?? decodeStep(dense, ro, t, r, false, ctx).stepSeconds;
  // The step's MoE layers (routed experts and gathers) beside the rank's own attention and dense layers.
  const moe = step - graphRank;
  const eager = { ...t, graphMaxBatch: 0 };
  const rank = fw.dpPrefillStepEager
    ? decodeStep(dense, ro, eager, r, false, ctx).stepSeconds
    : graphRank;
  // A step holding a prefill, without its prompts' expert work: the longer of the prompt's rank work and the decode.
  const base = Math.max(prefill.rank, rank) + moe;
  const lockSteps = lockstepSteps(out, own, others, true);
  const stall = base * own + Math.max(0, base - step) * lockSteps + experts;
  return { prefillStep: base + prefill.experts, stall, lockSteps };
}

/** The step seconds alone (the planner's hot path reads only this). */
export function dpAttentionStep(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
  ctx = o.seq,
): number {
  const tokens = o.batch * (moeGroupOf(o) / o.tp);
  const rank = decodeStep(denseFacts(m), rankOptions(o), t, r, false, ctx).stepSeconds;
  return rank + expertSeconds(m, o, t, r, tokens, ctx).decode + gatherSeconds(m, o, r, tokens, t);
}
