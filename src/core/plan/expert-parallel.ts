/**
 * The serving search's expert-parallel choice for MoE models: DP attention with expert parallelism over the
 * engine's GPUs, the layout the engines' own MoE recipes launch (vLLM `--data-parallel-size N
 * --enable-expert-parallel`: https://docs.vllm.ai/en/latest/serving/expert_parallel_deployment.html; SGLang
 * `--tp N --dp N --enable-dp-attention`: https://docs.sglang.io/docs/advanced_features/dp_dpa_smg_guide.md).
 */
import type { Arch } from '../model/arch.js';
import { routedExperts } from '../memory/expert-parallel.js';
import { moeGroupOf, type EstimateOptions } from '../../schema/estimate.js';
import type { Scenario } from '../../schema/scenario.js';

/** Whether a serving search offers DP attention for this model: an MoE model's inference job. */
export const searchesDpAttention = (s: Scenario, arch: Arch): boolean =>
  s.job.kind === 'inference' && routedExperts(arch) > 1;

/**
 * Whether a DP-attention configuration runs on a layout: two or more data-parallel ranks, no pipeline, and the
 * routed experts dividing evenly over the group (every rank holds as many: the memory surface stays exact).
 */
export const dpAttentionLayout = (arch: Arch, tp: number, pp: number, dp: number): boolean =>
  dp >= 2 && pp === 1 && routedExperts(arch) % (tp * dp) === 0;

/** A DP-attention plan's options with expert parallelism over all its MoE GPUs (in place; others unchanged). */
export function withExpertGroup(o: EstimateOptions): EstimateOptions {
  if (o.dpAttention) o.ep = moeGroupOf(o);
  return o;
}
