/**
 * The serving search's speculative-decoding choice: the MTP layers a checkpoint ships, or a published EAGLE-3
 * head, offered at small concurrency, where decoding is bound by the weight read and the engines' own guides
 * say it pays ("improves inter-token latency in memory-bound LLM inference":
 * https://docs.vllm.ai/en/latest/features/speculative_decoding/; gains largest in synchronous use:
 * https://developers.redhat.com/articles/2025/07/01/fly-eagle3-fly-faster-inference-vllm-speculative-decoding).
 */
import type { Arch } from '../model/arch.js';
import { EAGLE3_HEADS } from '../model/speculative.js';
import { SPEC_DEFAULTS } from '../../schema/flags.js';
import type { EstimateOptions, SpeculativeMethod } from '../../schema/estimate.js';
import type { Scenario } from '../../schema/scenario.js';

/** The largest per-replica concurrency the search tries speculation at (a search bound, not a model constant). */
export const SPECULATIVE_MAX_BATCH = 8;

/** The methods the search offers for a model: its checkpoint's MTP layers, a known EAGLE-3 head; never n-gram. */
export function searchedSpeculation(s: Scenario, arch: Arch): SpeculativeMethod[] {
  if (s.job.kind !== 'inference') return [];
  const out: SpeculativeMethod[] = [];
  if ((arch.mtpLayers ?? 0) > 0) out.push('mtp');
  if (EAGLE3_HEADS[arch.id] !== undefined) out.push('eagle3');
  return out;
}

/** `o` with `method` at its default draft tokens and acceptance (flags.ts SPEC_DEFAULTS). */
export function withSpeculation(o: EstimateOptions, method: SpeculativeMethod): EstimateOptions {
  const d = SPEC_DEFAULTS[method];
  return { ...o, speculative: method, specTokens: d.tokens, specAcceptance: d.acceptance ?? 0 };
}
