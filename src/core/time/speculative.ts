/**
 * Speculative decoding's time: each engine step drafts K tokens per sequence (K passes of the draft), then one
 * target pass verifies the K + 1 positions; a sequence keeps on average (1 - a^(K+1)) / (1 - a) tokens per
 * step at per-token acceptance a (Leviathan et al. 2023, "Fast Inference from Transformers via Speculative
 * Decoding", §3.1 eq. 1, https://arxiv.org/abs/2211.17192). The verify pass reads the weights once for K + 1
 * tokens, so speculation pays while decoding is bound by the weight read, and stops paying as the batch grows.
 */
import type { EstimateOptions } from '../../schema/estimate.js';
import type { TimeOptions } from '../../schema/time.js';
import { draftArch } from '../model/speculative.js';
import { decodeStep, decodeStepFigures, gemmRate, stepKernel } from './decode.js';
import { servingTime } from './serving-request.js';
import {
  denseFacts,
  dpAttentionStep,
  dpAttentionTime,
  dpAttentionTimed,
  expertSeconds,
  gatherSeconds,
  rankOptions,
} from './expert-parallel.js';
import { meanContextOf, moeGroupOf } from '../../schema/estimate.js';
import type { GpuRates } from './hardware.js';
import { modelFacts, type ModelFacts } from './model-facts.js';

/** Tokens a sequence keeps per step: (1 - a^(K+1)) / (1 - a), K + 1 at a = 1 (Leviathan et al. eq. 1). */
export function tokensPerStep(acceptance: number, k: number): number {
  if (acceptance >= 1) return k + 1;
  return (1 - Math.pow(acceptance, k + 1)) / (1 - acceptance);
}

/** Whether the options decode speculatively (method, tokens and acceptance all set). */
export const speculates = (o: EstimateOptions): boolean =>
  o.speculative !== undefined && o.specTokens !== undefined && o.specAcceptance !== undefined;

/** Options without speculation (what the target alone runs). */
const plain = (o: EstimateOptions): EstimateOptions => ({
  ...o,
  speculative: undefined,
  specTokens: undefined,
  specAcceptance: undefined,
});

/**
 * The target's verify pass of `batch` sequences x (K + 1) positions at context `ctx`: the weights and each
 * sequence's KV read once (every position attends to the same cache), the GEMMs and attention over all
 * batch x (K + 1) tokens, and the TP all-reduces of that many rows.
 */
function verifySeconds(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
  batch: number,
  ctx: number,
): { verify: number; narrow: number } {
  const k = o.specTokens ?? 0;
  const base = plain(o);
  // decodeStep's figures without its phases (its decode-weights, decode-kv and tensor-parallel phases are these).
  const wide = decodeStepFigures(m, { ...base, batch: batch * (k + 1) }, t, r, ctx);
  const narrow = decodeStepFigures(m, { ...base, batch }, t, r, ctx);
  // The narrow step's core is its memory read or its compute, whichever is longer (decodeStep's max).
  const core = narrow.sc.linear + narrow.sc.attention;
  const verifyCore = Math.max(
    core,
    wide.sc.flops / gemmRate(stepKernel(o, t, r), r, t.quantFormat),
  );
  return {
    verify: narrow.step - core - narrow.tpT + wide.tpT + verifyCore,
    narrow: narrow.step,
  };
}

/**
 * One draft pass of `batch` sequences: the draft's layers and head as a decode step of their own (no engine
 * loop: the drafts run inside the engine's step); n-gram lookup runs on the host beside the GPU (vLLM's
 * NgramProposer, numba on the CPU): none.
 */
function draftSeconds(
  facts: ModelFacts | null,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
  batch: number,
  ctx: number,
): number {
  if (!facts) return 0;
  const loopless = { ...t, decodeOnly: true, serialScheduler: false };
  // An MoE draft (DeepSeek's MTP layer) on DP-attention ranks: its experts over the group, as the target's.
  if (dpAttentionTimed(facts, o))
    return dpAttentionStep(facts, { ...plain(o), batch }, loopless, r, ctx);
  const own = o.dpAttention ? rankOptions(o) : o;
  return decodeStep(facts, { ...plain(own), batch }, loopless, r, false, ctx).stepSeconds;
}

/**
 * A DP-attention rank's verify pass: its own attention and dense layers over batch x (K + 1) positions
 * (verifySeconds), the routed experts over every rank's positions, and their gathers and scatters.
 */
function dpVerifySeconds(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
  batch: number,
  ctx: number,
): number {
  const positions = batch * ((o.specTokens ?? 0) + 1) * (moeGroupOf(o) / o.tp);
  return (
    verifySeconds(denseFacts(m), rankOptions(o), t, r, batch, ctx).verify +
    expertSeconds(m, o, t, r, positions, ctx).decode +
    gatherSeconds(m, o, r, positions, t)
  );
}

/** The plain step of `batch` sequences (one DP-attention rank's, or the replica's). */
const plainStepSeconds = (
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
  batch: number,
  ctx: number,
): number =>
  dpAttentionTimed(m, o)
    ? dpAttentionStep(m, { ...plain(o), batch }, t, r, ctx)
    : decodeStep(m, { ...plain(o), batch }, t, r, false, ctx).stepSeconds;

export interface SpeculativeTime {
  /** One engine step: K draft passes and the verify pass. */
  stepSeconds: number;
  verifySeconds: number;
  draftSeconds: number;
  /** Tokens each sequence keeps per step, and the batch's tokens per second. */
  tokensPerStep: number;
  tokensPerSecond: number;
  /** The same batch without speculation: its step and tokens per second. */
  plainStepSeconds: number;
  plainTokensPerSecond: number;
}

/** Draft facts by target architecture object and method (draftArch reads only these). */
const DRAFTS = new WeakMap<ModelFacts['arch'], Map<string, ModelFacts | null>>();

/** The draft model's facts (null for n-gram), made once per target architecture and method. */
export function draftFacts(m: ModelFacts, o: EstimateOptions): ModelFacts | null {
  if (!o.speculative) return null;
  let byMethod = DRAFTS.get(m.arch);
  if (byMethod === undefined) DRAFTS.set(m.arch, (byMethod = new Map()));
  let facts = byMethod.get(o.speculative);
  if (facts === undefined) {
    const d = draftArch(m.arch, o.speculative);
    byMethod.set(o.speculative, (facts = d ? modelFacts(d) : null));
  }
  return facts;
}

/** A speculative engine step of `batch` sequences at context `ctx`, beside the plain step. */
export function speculativeStep(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
  batch = o.batch,
  ctx = o.seq,
  draft: ModelFacts | null = draftFacts(m, o),
): SpeculativeTime {
  const k = o.specTokens ?? 0;
  const dp = dpAttentionTimed(m, o);
  const v = dp ? null : verifySeconds(m, o, t, r, batch, ctx);
  const verify = v ? v.verify : dpVerifySeconds(m, o, t, r, batch, ctx);
  const drafts = k * draftSeconds(draft, o, t, r, batch, ctx);
  const e = tokensPerStep(o.specAcceptance ?? 0, k);
  const step = verify + drafts;
  // Off DP attention the plain step is the verify pass's narrow step (the same options; `detail` changes no
  // figure of stepSeconds), so it is not timed twice.
  const plainStep = v ? v.narrow : plainStepSeconds(m, o, t, r, batch, ctx);
  return {
    stepSeconds: step,
    verifySeconds: verify,
    draftSeconds: drafts,
    tokensPerStep: e,
    tokensPerSecond: (batch * e) / step,
    plainStepSeconds: plainStep,
    plainTokensPerSecond: batch / plainStep,
  };
}

// The largest batch the break-even search tries: 4 x vLLM's largest default max_num_seqs, 1024
// (EngineArgs._set_default_args in vllm/engine/arg_utils.py at commit 99d7eb5d6a512cfcc5a2b104f24ebf2d6cda772b).
const MAX_BREAK_EVEN_BATCH = 4096;

/**
 * The smallest batch at which speculation no longer pays (its tokens/s at or below the plain step's), by
 * doubling then bisection; null when it still pays at MAX_BREAK_EVEN_BATCH.
 */
export function breakEvenBatch(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
  ctx = o.seq,
): number | null {
  const draft = draftFacts(m, o);
  const loses = (b: number) => {
    const s = speculativeStep(m, o, t, r, b, ctx, draft);
    return s.tokensPerSecond <= s.plainTokensPerSecond;
  };
  if (loses(1)) return 1;
  let hi = 2;
  while (hi <= MAX_BREAK_EVEN_BATCH && !loses(hi)) hi *= 2;
  if (hi > MAX_BREAK_EVEN_BATCH) return null;
  let lo = hi / 2; // pays at lo, loses at hi
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (loses(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

/**
 * The acceptance at which the step breaks even at the plan's batch: tokensPerStep(a, K) = step / plain step,
 * by bisection (tokensPerStep grows with a); 0 when it pays at any acceptance, null when it never does.
 */
export function breakEvenAcceptance(s: SpeculativeTime, k: number): number | null {
  const need = s.stepSeconds / s.plainStepSeconds;
  if (need <= 1) return 0;
  if (need > k + 1) return null;
  let lo = 0;
  let hi = 1;
  for (let i = 0; i < 40; i++) {
    const mid = (lo + hi) / 2;
    if (tokensPerStep(mid, k) >= need) hi = mid;
    else lo = mid;
  }
  return hi;
}

/**
 * A request's TTFT and TPOT with speculation: its prefill and one engine step to the first token; then an
 * engine step per tokensPerStep tokens, plus the batch's share of the prefills (servingTime's stall term).
 */
export function speculativeServingTime(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
  ctx: number,
): { ttft: number; tpot: number } {
  const base = plain(o);
  // The speculative step's plain step is plainStepSeconds at (o.batch, ctx); off DP attention it is also the
  // decode step servingTime times for `base` (ctx is meanContextOf(o), which reads no speculative field).
  const s = speculativeStep(m, o, t, r, o.batch, ctx);
  const plainStep = s.plainStepSeconds;
  const sv = dpAttentionTimed(m, o)
    ? dpAttentionTime(m, base, t, r, o.seq, false)
    : servingTime(m, base, t, r, base, ctx === meanContextOf(base) ? plainStep : undefined);
  const prefill = sv.ttft - plainStep;
  const stall = sv.tpot - plainStep;
  return { ttft: prefill + s.stepSeconds, tpot: s.stepSeconds / s.tokensPerStep + stall };
}
