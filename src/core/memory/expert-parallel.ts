/**
 * Expert parallelism and DP attention in a serving engine's memory: which share of the routed experts one GPU
 * holds, and whether the layout splits them otherwise than the tensor-parallel group does.
 */
import type { Arch } from '../model/arch.js';
import { moeGroupOf, type EstimateOptions } from '../../schema/estimate.js';

/** Whether the routed experts are laid out otherwise than by plain TP: whole experts (ep) or over DP ranks. */
export const splitsExperts = (o: Pick<EstimateOptions, 'ep' | 'dpAttention'>): boolean =>
  (o.ep ?? 1) > 1 || o.dpAttention === true;

/** Routed experts per MoE layer (the largest group's count; 1 for a dense model). */
export const routedExperts = (arch: Arch): number =>
  arch.groups.reduce((m, g) => (g.name === 'vision' ? m : Math.max(m, g.experts)), 1);

/**
 * The share of the routed-expert weights on the busiest GPU. The MoE layers span moeGroupOf(o) GPUs: with
 * ep > 1 each of the ep ranks holds whole experts, ceil(E / ep) on the first ones (vLLM determine_expert_map:
 * `base_experts + 1 if ep_rank < remainder`, vllm/model_executor/layers/fused_moe/layer.py), each split over
 * the group / ep GPUs left; with ep = 1 every expert is split over the whole group (ParallelConfig: "MoE layers
 * will be sharded according to the product of the tensor ... and data parallel sizes", vllm/config/parallel.py
 * at 00193b82b0e2d4faea5d3b4ea4f6c4c2bd9d057a).
 */
export function expertShareOf(o: EstimateOptions, experts: number): number {
  const group = moeGroupOf(o);
  const ep = Math.min(o.ep ?? 1, group);
  if (ep <= 1 || experts <= 1) return 1 / group;
  return Math.ceil(experts / ep) / experts / (group / ep);
}
