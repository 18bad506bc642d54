/**
 * GRPO completion lengths: `--completion-tokens` is the mean completion, and a generation batch decodes until
 * its longest (transformers generate pads finished rows; vLLM keeps stepping until its last request ends).
 * The launchers write the longest as TRL's max_completion_length; the `--from` readers read it back as the
 * mean.
 */

/**
 * Longest completion of a generation batch over its mean: the median of completions/max_length over
 * completions/mean_length across the 142 logged steps (8 of them with one completion stopped at the 1,024 cap,
 * clipped_ratio 0.125; 1.455 without them) of a generation batch of 8 completions
 * (4 per device x 2 accumulation, num_generations=4) in unslothai/notebooks 8081c7e
 * nb/Qwen2_5_7B_VL_GRPO.ipynb (https://github.com/unslothai/notebooks/blob/8081c7e480275013fa38cf2bfbaf902af5ccf589/nb/Qwen2_5_7B_VL_GRPO.ipynb).
 */
export const LONGEST_TO_MEAN_COMPLETION = 1.47;

/**
 * Decode steps of a generation batch of `n` completions that average `mean` tokens: its expected longest
 * completion (longestToMean), at most the cap (TRL max_completion_length: generation stops there, grpo_trainer.py
 * at v0.14.0 passes it as vLLM's SamplingParams max_tokens and as generate's max_new_tokens). Without a cap, the
 * one the launchers write (completionLimit: the logged batches' longest), so a batch larger than theirs does not
 * outrun the configuration vramplan launches. `n` defaults to the logged batches' 8.
 */
export const longestCompletion = (mean: number, cap?: number, n = LOGGED_BATCH): number =>
  Math.min(Math.ceil(longestToMean(n) * mean), cap ?? completionLimit(mean));

/** The max_completion_length a launcher writes: the cap when one is set, else the batch's longest. */
export const completionLimit = (mean: number, cap?: number): number =>
  cap ?? Math.ceil(LONGEST_TO_MEAN_COMPLETION * mean);

/** The mean completion of a batch whose longest is `longest` tokens (a config's max_completion_length). */
export const meanCompletion = (longest: number): number =>
  Math.max(1, Math.floor(longest / LONGEST_TO_MEAN_COMPLETION));

/**
 * Shortest completion of the same generation batches over their mean: the median of completions/min_length over
 * completions/mean_length across the same 142 logged steps
 * (https://github.com/unslothai/notebooks/blob/8081c7e480275013fa38cf2bfbaf902af5ccf589/nb/Qwen2_5_7B_VL_GRPO.ipynb).
 */
export const SHORTEST_TO_MEAN_COMPLETION = 0.605;
// The logged batches are skewed to the long side (max 1.47x, min 0.605x the mean: +0.47 against -0.40), as a
// log-normal is: a batch's completion lengths are taken as log-normal (assumed), their spread in log space set by
// the expected largest and smallest of the logged batches' 8 completions (the median in log space is the mean's
// up to a common factor, which cancels in a ratio). 8: 4 per device x 2 accumulation steps in that notebook
// (https://github.com/unslothai/notebooks/blob/8081c7e480275013fa38cf2bfbaf902af5ccf589/nb/Qwen2_5_7B_VL_GRPO.ipynb).
const LOGGED_BATCH = 8;

/**
 * Expected longest of `n` completions over their mean: the logged batches' ratio at their 8, moved along the
 * log-normal's expected order statistics to `n` (the largest of n draws lies at Blom's z(n:n)); 1 for a single
 * completion, whose expected length is the mean.
 */
export function longestToMean(n: number): number {
  if (n <= 1) return 1;
  // A pure function of n, asked once per timed GRPO candidate: computed once per n (as secondToLongest, below).
  let r = LONGEST_TO_MEAN.get(n);
  if (r === undefined) {
    r =
      LONGEST_TO_MEAN_COMPLETION *
      Math.exp(LOG_SPREAD * (normalOrderStat(n, n) - normalOrderStat(LOGGED_BATCH, LOGGED_BATCH)));
    LONGEST_TO_MEAN.set(n, r);
  }
  return r;
}
const LONGEST_TO_MEAN = new Map<number, number>();

/**
 * Expected r-th smallest of n standard normal draws, Blom's approximation Φ⁻¹((r − 3/8)/(n + 1/4)) (G. Blom,
 * "Statistical Estimates and Transformed Beta-Variables", 1958; within 0.02 of the exact values for n ≤ 20).
 */
function normalOrderStat(r: number, n: number): number {
  return normalQuantile((r - 0.375) / (n + 0.25));
}

// P. J. Acklam's coefficients, made once rather than per call (normalQuantile, below):
// https://web.archive.org/web/20151030215612/http://home.online.no/~pjacklam/notes/invnorm/
const ACKLAM_A = [
  -39.69683028665376, 220.9460984245205, -275.928510446969, 138.357751867269, -30.66479806614716,
  2.506628277459239,
];
const ACKLAM_B = [
  -54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572,
];
const ACKLAM_C = [
  -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734,
  4.374664141464968, 2.938163982698783,
];
// Acklam's d coefficients, from the same notes:
// https://web.archive.org/web/20151030215612/http://home.online.no/~pjacklam/notes/invnorm/
const ACKLAM_D = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];

/**
 * Φ⁻¹(p), the standard normal quantile: P. J. Acklam's rational approximation (relative error below 1.15e-9),
 * https://web.archive.org/web/20151030215612/http://home.online.no/~pjacklam/notes/invnorm/
 */
function normalQuantile(p: number): number {
  const a = ACKLAM_A;
  const b = ACKLAM_B;
  if (p < 0.02425) return acklamTail(Math.sqrt(-2 * Math.log(p)));
  if (p > 1 - 0.02425) return -acklamTail(Math.sqrt(-2 * Math.log(1 - p)));
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r + a[5]!) * q) /
    (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1)
  );
}

/** Acklam's lower-tail rational function of q = sqrt(-2 log p) (normalQuantile). */
function acklamTail(q: number): number {
  const c = ACKLAM_C;
  const d = ACKLAM_D;
  return (
    (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q + c[5]!) /
    ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1)
  );
}

/** Standard deviation of a completion's log length (log-normal), from the logged batches' longest and shortest. */
const LOG_SPREAD =
  Math.log(LONGEST_TO_MEAN_COMPLETION / SHORTEST_TO_MEAN_COMPLETION) /
  (2 * normalOrderStat(LOGGED_BATCH, LOGGED_BATCH));

/**
 * Decode steps a batch of `n` completions (mean `mean`, cap `cap`) runs with its longest completion alone: the
 * longest less the second longest, the two in the log-normal's ratio of expected order statistics. An engine that
 * drops finished requests from its batch (vLLM's scheduler) runs those steps at batch 1.
 */
export function loneCompletionSteps(mean: number, n: number, cap?: number): number {
  if (n < 2) return 0;
  const longest = longestCompletion(mean, cap, n);
  const ratio = secondToLongest(n);
  const second = Math.min(ratio * longestToMean(n) * mean, cap ?? completionLimit(mean));
  return Math.max(0, Math.floor(longest - second));
}

/** Expected second longest over longest of `n` completions (loneCompletionSteps), computed once per `n`. */
const SECOND_TO_LONGEST = new Map<number, number>();
function secondToLongest(n: number): number {
  let r = SECOND_TO_LONGEST.get(n);
  if (r === undefined) {
    r = Math.exp(-LOG_SPREAD * (normalOrderStat(n, n) - normalOrderStat(n - 1, n)));
    SECOND_TO_LONGEST.set(n, r);
  }
  return r;
}
