/**
 * What an engine's run output is read with, as each engine's registration declares it (EngineDef `logs` and
 * `metrics`): a reader of the training log lines its tools print, and the Prometheus metric names its server
 * exports. logs.ts and prometheus.ts try the registered ones; the engine folders hold the formats.
 */

/** What a training log says about one rank (the figures it does not carry are null). */
export interface TrainLogFigures {
  /** The format that matched (its reader's `format`), null where none did. */
  format: LogFormat | null;
  /** torch.cuda.max_memory_allocated, bytes (the largest the log shows). */
  allocatedBytes: number | null;
  /** torch.cuda.max_memory_reserved, bytes. */
  reservedBytes: number | null;
  /** Seconds per optimizer step (median of the steps the log times). */
  stepSeconds: number | null;
  /** Training tokens per second per GPU, from the engine's own counter (median). */
  tokensPerSecondPerGpu: number | null;
  /** Steps the figures come from. */
  steps: number;
  /** Lines that report a kernel falling back to a slower path (first few). */
  fallbacks: string[];
}

/** A training log format's name in `check`'s output (torchtune, torchtitan, litgpt, hf-trainer). */
export type LogFormat = string;

/** The training log lines of one engine's tools. */
export interface TrainLogReader {
  format: LogFormat;
  /** Where it is tried among every registered reader (lower first; the first that matches is kept). */
  order: number;
  /** The figures of `lines`, or null where none is in this format. */
  read: (lines: readonly string[]) => Omit<Partial<TrainLogFigures>, 'format'> | null;
}

/** A serving engine's name in `check`'s output (vllm, sglang, llama-cpp). */
export type ServingEngine = string;

/** The Prometheus metric names one serving engine exports. */
export interface ServingMetrics {
  engine: ServingEngine;
  /** Every metric of the engine starts with it (the first registered engine whose prefix a sample has is taken). */
  prefix: string;
  /** Time-to-first-token histograms, the first one present used. */
  ttft: readonly string[];
  /** Time-per-output-token histograms, the first one present used. */
  tpot: readonly string[];
  /** Generated tokens counter. */
  generated: string;
  /** Requests running gauge. */
  running: string;
  /** Without a TPOT histogram: seconds spent generating and tokens generated, counters. */
  tpotCounters?: readonly [string, string];
}

export const GiB = 1024 ** 3;
export const GB = 1e9;

export const median = (xs: readonly number[]): number | null => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
export const max = (xs: readonly number[]): number | null => (xs.length ? Math.max(...xs) : null);
/** A number printed with thousands separators ("10,050"). */
export const num = (s: string): number => Number(s.replace(/,/g, ''));
