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
 *
 * Per-expert tiles: a grouped MoE kernel rounds each expert's routed rows up to whole row tiles (the Triton fused_moe's
 * BLOCK_SIZE_M blocks, time/moe-pad-rows.ts; torch._grouped_mm's CUTLASS tiles, time/grouped-mm-tiles.ts). Under the
 * same routing each token picks topK distinct experts of E, so one expert's rows at n tokens are exactly
 * Binomial(n, k/E), and by linearity of expectation the E experts' padded rows total E x expectedPaddedRows whatever
 * the experts' counts' dependence (they sum to n x k).
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

/**
 * Terms of the binomial pmf below this share of its mode's are dropped: past them each term is at most the last
 * (the walk is past the mode), so the dropped mass is under 1e-18 x (terms walked) of the mode's, far below double
 * precision's 2.2e-16 relative step (https://en.wikipedia.org/wiki/Double-precision_floating-point_format) at the
 * few thousand terms a walk takes.
 */
const PMF_FLOOR = 1e-18;

/** Sum over j of w(j) ceil(j / tile) tile and of w(j), w the Binomial(n, p) pmf scaled to 1 at its mode, n whole. */
function paddedSums(n: number, p: number, tile: number): { rows: number; mass: number } {
  const mode = Math.min(n, Math.floor((n + 1) * p));
  const odds = p / (1 - p);
  const padded = (j: number): number => Math.ceil(j / tile) * tile;
  let rows = padded(mode);
  let mass = 1;
  // P(j + 1) / P(j) = (n - j) / (j + 1) x p / (1 - p): upward from the mode, then downward.
  for (let j = mode, w = 1; j < n && w > PMF_FLOOR; j++) {
    w *= ((n - j) / (j + 1)) * odds;
    rows += w * padded(j + 1);
    mass += w;
  }
  for (let j = mode, w = 1; j > 0 && w > PMF_FLOOR; j--) {
    w *= j / ((n - j + 1) * odds);
    rows += w * padded(j - 1);
    mass += w;
  }
  return { rows, mass };
}

/** E[ceil(X / tile) x tile] for X ~ Binomial(n, p), n whole: the pmf walked from its mode (paddedSums), normalized. */
function paddedWhole(n: number, p: number, tile: number): number {
  if (n <= 0) return 0;
  if (p >= 1) return Math.ceil(n / tile) * tile;
  const s = paddedSums(n, p, tile);
  return s.rows / s.mass;
}

/**
 * One expert's expected rows rounded up to whole tiles of `tile` rows, E[ceil(X / tile) x tile] for X ~ Binomial(n, p)
 * (n tokens, each routed to the expert with chance p = k/E): exact, the pmf summed outward from its mode by the ratio
 * recurrence (O(sd) terms, no underflow at any n; truncation under PMF_FLOOR). A fractional n (a mean running batch)
 * is read linearly between the whole batches around it, which keeps the value monotone in n. It is at least n x p and
 * below n x p + tile, and never falls as the tile grows to a multiple of itself (the engines' tiles, powers of two: a
 * whole number of the larger tiles covers whole smaller ones); between tiles that do not divide it need not grow.
 */
export function expectedPaddedRows(n: number, p: number, tile: number): number {
  if (n <= 0 || p <= 0 || tile <= 0) return 0;
  const q = Math.min(1, p);
  const lo = Math.floor(n);
  const below = paddedWhole(lo, q, tile);
  return n === lo ? below : below + (n - lo) * (paddedWhole(lo + 1, q, tile) - below);
}
