/**
 * Expert parallelism's busiest rank at decode. With --enable-expert-parallel (vLLM) or --ep-size (SGLang) each of the ep
 * ranks holds a contiguous range of whole experts (vLLM determine_expert_map, vllm/model_executor/layers/fused_moe/
 * layer.py: `base_experts + 1 if ep_rank < remainder`), and the MoE layer's output is reduced over the group before the
 * next layer (the all-reduce or combine after the experts), so every layer waits for the rank whose tokens routed to
 * the most distinct local experts. A step's expert reads are that rank's, not the mean rank's.
 *
 * With the routing the model assumes for the step's distinct experts (time/decode.ts linearReadOf: each expert hit
 * with probability p = 1 - (1 - k/E)^B, independently), a rank of n experts reads Binomial(n, p) of them and the
 * busiest of ep ranks E[max] = sum over j < n of 1 - F(j)^ep (F the binomial CDF; the expected maximum of ep
 * independent draws, https://en.wikipedia.org/wiki/Order_statistic).
 */
import type { EstimateOptions } from '../../schema/estimate.js';
import { moeGroupOf } from '../../schema/estimate.js';
import type { ModelFacts } from './model-facts.js';

/**
 * The distinct experts a layer routes `tokens` tokens to, each token to topK of E at random: E(1 - (1 - k/E)^tokens),
 * at most E and at most tokens x k (Bernoulli's inequality).
 */
export function distinctExperts(m: Pick<ModelFacts, 'experts' | 'topK'>, tokens: number): number {
  if (m.experts <= 0 || tokens <= 0) return 0;
  return m.experts * (1 - Math.pow(1 - m.topK / m.experts, tokens));
}

/** The expected largest of `ranks` independent Binomial(n, p) draws. */
export function expectedMaxBinomial(n: number, p: number, ranks: number): number {
  if (n <= 0 || p <= 0) return 0;
  if (p >= 1) return n;
  let pmf = Math.pow(1 - p, n);
  let cdf = 0;
  let sum = 0;
  for (let j = 0; j < n; j++) {
    cdf += pmf;
    sum += 1 - Math.pow(Math.min(1, cdf), ranks);
    pmf *= ((n - j) / (j + 1)) * (p / (1 - p));
  }
  return sum;
}

/**
 * The busiest expert-parallel rank's distinct experts over the mean rank's, at `tokens` routed tokens a step: 1
 * without expert parallelism (every expert is split over the whole group, each GPU reads a shard of each).
 */
export function busiestRankFactor(m: ModelFacts, o: EstimateOptions, tokens: number): number {
  const ep = Math.min(o.ep ?? 1, moeGroupOf(o));
  if (ep <= 1 || m.experts <= 1 || tokens <= 0) return 1;
  const p = 1 - Math.pow(1 - m.topK / m.experts, tokens);
  const mean = (m.experts * p) / ep;
  return mean > 0 ? expectedMaxBinomial(Math.ceil(m.experts / ep), p, ep) / mean : 1;
}
