/**
 * GRPO completion lengths: `--completion-tokens` is the mean completion, and a generation batch decodes until
 * its longest (transformers generate pads finished rows; vLLM keeps stepping until its last request ends).
 * The launchers write the longest as TRL's max_completion_length; the `--from` readers read it back as the
 * mean.
 */

/**
 * Longest completion of a generation batch over its mean: the median of completions/max_length over
 * completions/mean_length across the 142 logged steps (none clipped) of a generation batch of 8 completions
 * (4 per device x 2 accumulation, num_generations=4) in unslothai/notebooks 8081c7e
 * nb/Qwen2_5_7B_VL_GRPO.ipynb (https://github.com/unslothai/notebooks/blob/8081c7e480275013fa38cf2bfbaf902af5ccf589/nb/Qwen2_5_7B_VL_GRPO.ipynb).
 */
export const LONGEST_TO_MEAN_COMPLETION = 1.47;

/**
 * Decode steps of a generation batch whose completions average `mean` tokens: its longest completion, or the
 * cap when one is set (TRL max_completion_length: generation stops there, grpo_trainer.py at v0.14.0 passes it as
 * vLLM's SamplingParams max_tokens and as generate's max_new_tokens).
 */
export const longestCompletion = (mean: number, cap?: number): number =>
  Math.min(Math.ceil(LONGEST_TO_MEAN_COMPLETION * mean), cap ?? Number.POSITIVE_INFINITY);

/** The max_completion_length a launcher writes: the cap when one is set, else the batch's longest. */
export const completionLimit = (mean: number, cap?: number): number =>
  cap ?? Math.ceil(LONGEST_TO_MEAN_COMPLETION * mean);

/** The mean completion of a batch whose longest is `longest` tokens (a config's max_completion_length). */
export const meanCompletion = (longest: number): number =>
  Math.max(1, Math.floor(longest / LONGEST_TO_MEAN_COMPLETION));
