/** Speculative decoding's memory: the draft's weights and the KV cache of its layers, per GPU. */
import type { LayerGroup } from '../model/arch.js';
import { draftArch, draftParams } from '../model/speculative.js';
import { valueBytes } from '../model/dtypes.js';
import { linearWeights } from '../model/params.js';
import { expertShareOf, splitsExperts } from './expert-parallel.js';
import type { Setup } from './setup.js';

/** The draft's decoder layers on the last pipeline stage (none without speculative decoding or for n-gram). */
export function draftGroups(s: Setup): LayerGroup[] {
  const m = s.o.speculative;
  if (!m) return [];
  return draftArch(s.arch, m)?.groups ?? [];
}

/**
 * The draft's routed-expert weights (an MoE MTP layer's) and the share of them one GPU holds when the target's
 * experts are laid out over expert-parallel or DP-attention ranks: the draft's MoE layers take the target's
 * expert parallelism (vLLM SpeculativeConfig.create_draft_parallel_config: enable_expert_parallel kept for an
 * MoE draft, vllm 0.33.0 wheel vllm/config/speculative.py).
 */
function draftExperts(s: Setup): { params: number; share: number } {
  const d = s.o.speculative ? draftArch(s.arch, s.o.speculative) : null;
  if (!d || !splitsExperts(s.o)) return { params: 0, share: 0 };
  let params = 0;
  let experts = 1;
  for (const g of d.groups)
    for (const l of g.linears)
      if (l.copies > 1) {
        params += linearWeights(l) * g.count;
        experts = Math.max(experts, g.experts);
      }
  return { params, share: expertShareOf(s.o, experts) };
}

/**
 * The draft's weights per GPU, split over TP as the target's (its routed experts as the target's: draftExperts):
 * an EAGLE-3 head in 16 bits (the published heads are bf16 checkpoints), the MTP layers in the checkpoint's dtype.
 */
export function draftWeightBytes(s: Setup): number {
  const m = s.o.speculative;
  if (!m) return 0;
  const bytes = m === 'mtp' ? valueBytes(s.o.weights) : s.c;
  const ex = draftExperts(s);
  const total = draftParams(s.arch, m);
  const rest = Math.max(0, total - ex.params);
  return (rest / s.tp + Math.min(ex.params, total) * ex.share) * bytes;
}
