/**
 * The serving search's expert-parallel choices for MoE models, the layouts the engines' own MoE recipes launch:
 * - DP attention with expert parallelism over the engine's GPUs (vLLM `--data-parallel-size N
 *   --enable-expert-parallel`: https://docs.vllm.ai/en/latest/serving/expert_parallel_deployment.html; SGLang
 *   `--tp N --dp N --enable-dp-attention`: https://docs.sglang.io/docs/advanced_features/dp_dpa_smg_guide.md);
 * - tensor-parallel attention with the MoE layers expert parallel over the same GPUs (vLLM `--tensor-parallel-size N
 *   --enable-expert-parallel`, EP = TP x DP with DP 1), on engines whose profile offers it (EngineProfile.tpExpertParallel):
 *   the low-concurrency layout of the vLLM recipes for DeepSeek-R1, Qwen3-235B-A22B and MiniMax-M2
 *   (https://github.com/vllm-project/recipes, DeepSeek/DeepSeek-V3.md, MiniMax/MiniMax-M2.md; AMD's "vLLM MoE
 *   Playbook", https://rocm.blogs.amd.com/software-tools-optimization/vllm-moe-guide/README.html: "TP+EP delivers
 *   superior low-latency performance for interactive workloads with low concurrency").
 */
import type { Arch } from '../model/arch.js';
import { routedExperts } from '../memory/expert-parallel.js';
import { ENGINE_PROFILES } from '../engines/engines.js';
import { moeGroupOf, type EstimateOptions } from '../../schema/estimate.js';
import type { Engine } from '../../schema/engine.js';
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

/**
 * The expert-parallel degrees a serving search makes TP + EP configurations at: none unless a searched engine offers
 * it (`engines`: searchedEngines) for an MoE model; else the searched TP degrees above 1 within a node (vLLM's TP
 * group) that split the routed experts evenly (every rank holds as many whole experts: the memory surface stays exact).
 */
export function tpExpertDegrees(s: Scenario, arch: Arch, engines: readonly Engine[]): number[] {
  const experts = routedExperts(arch);
  if (!searchesDpAttention(s, arch) || !engines.some(offersTpExpertParallel)) return [];
  return (s.search.tp ?? [2, 4, 8]).filter(
    (t) => t > 1 && t <= s.hardware.gpusPerNode && experts % t === 0,
  );
}

/** Whether the planner offers TP + EP on `engine` (EngineProfile.tpExpertParallel). */
export const offersTpExpertParallel = (engine: Engine): boolean =>
  ENGINE_PROFILES[engine].tpExpertParallel !== undefined;

/**
 * Whether a configuration runs on a layout of `tp` x `pp` x `dp` GPUs: DP attention where dpAttentionLayout holds, a
 * TP + EP one (ep > 1 without DP attention) at its own TP degree without a pipeline (EP = TP: one rank per expert
 * shard), every other on any layout.
 */
export function expertLayout(
  arch: Arch,
  o: EstimateOptions,
  tp: number,
  pp: number,
  dp: number,
): boolean {
  if (o.dpAttention) return dpAttentionLayout(arch, tp, pp, dp);
  const ep = o.ep ?? 1;
  return ep <= 1 || (tp === ep && pp === 1);
}

/** Whether the planner runs `o` on `engine`: a TP + EP configuration only on an engine that offers it. */
export const runsExpertLayout = (engine: Engine, o: EstimateOptions): boolean =>
  o.dpAttention === true || (o.ep ?? 1) <= 1 || offersTpExpertParallel(engine);

/** A TP + EP plan's choice (PlanChoices.ep): its expert-parallel degree; nothing for a plan without one. */
export const expertChoice = (o: EstimateOptions): { ep?: number } =>
  (o.ep ?? 1) > 1 ? { ep: o.ep } : {};
