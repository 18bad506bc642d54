/** Accuracy against published measured peaks: per-case error and the summary per metric and framework. */
export type Metric = 'allocated' | 'reserved' | 'device';

export interface CaseResult {
  id: string;
  metric: Metric;
  framework: string;
  /** training, decode (inference on a training stack or llama.cpp) or serving (vLLM, SGLang). */
  kind?: 'training' | 'decode' | 'serving' | 'rl';
  /** Short source name (repository or site the measurement comes from). */
  source?: string;
  /** A model constant was worked out from this row's number (its in_sample_why): reported apart. */
  inSample?: boolean;
  measuredBytes: number;
  estimatedBytes: number;
  /** (estimate - measured) / measured */
  error: number;
}

export interface ErrorSummary {
  group: string;
  count: number;
  medianAbsError: number;
  p90AbsError: number;
  meanError: number;
}

/** Nearest-rank percentile of a sorted list (p in 0..1). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.ceil(p * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export function caseError(measured: number, estimated: number): number {
  return (estimated - measured) / measured;
}

/** Count, median and p90 of the absolute errors of some rows, and the sorted absolute errors. */
export function absErrorStats(rows: readonly { error: number }[]) {
  const abs = rows.map((r) => Math.abs(r.error)).sort((a, b) => a - b);
  return {
    abs,
    count: rows.length,
    medianAbsError: median(abs),
    p90AbsError: percentile(abs, 0.9),
  };
}

export function summarize(group: string, rows: readonly CaseResult[]): ErrorSummary {
  const { count, medianAbsError, p90AbsError } = absErrorStats(rows);
  return {
    group,
    count,
    medianAbsError,
    p90AbsError,
    meanError: rows.length ? rows.reduce((a, r) => a + r.error, 0) / rows.length : 0,
  };
}

/** Median of an ascending array (0 when empty). */
export function median(sorted: readonly number[]): number {
  if (sorted.length === 0) return 0;
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/**
 * Out-of-sample rows (the headline): overall, per metric, kind, framework and source; then the in-sample rows
 * apart (`in-sample:` groups), in a stable order.
 */
export function summaryTable(rows: readonly CaseResult[]): ErrorSummary[] {
  const out = rows.filter((r) => r.inSample !== true);
  const inSample = rows.filter((r) => r.inSample === true);
  return [...groups('', out), ...(inSample.length > 0 ? groups('in-sample:', inSample) : [])];
}

function groups(tag: string, rows: readonly CaseResult[]): ErrorSummary[] {
  const out = [summarize(`${tag}all`, rows)];
  const by = (key: (r: CaseResult) => string | undefined, prefix: string) => {
    const keys = [...new Set(rows.map(key))].filter((k): k is string => k !== undefined).sort();
    for (const k of keys)
      out.push(
        summarize(
          `${tag}${prefix}${k}`,
          rows.filter((r) => key(r) === k),
        ),
      );
  };
  by((r) => r.metric, 'metric:');
  by((r) => r.kind, 'kind:');
  by((r) => r.framework, 'framework:');
  by((r) => r.source, 'source:');
  return out;
}

/** A published preference / RL figure beside vramplan's (calibration/rl-cases.json, `validate`). */
export interface RlRow {
  id: string;
  objective: string;
  engine: string;
  model: string;
  /** device: nvidia-smi (deviceBytes); allocated: torch's peak (allocatedBytes); max-context: tokens. */
  metric: 'device' | 'allocated' | 'max-context';
  /** Bytes (device, allocated) or tokens (max-context), as published. */
  published: number;
  /** The same quantity estimated; null where the row's settings leave nothing to estimate. */
  estimated: number | null;
  /** (estimate - published) / published; null with no estimate. */
  error: number | null;
  /** device, allocated: the published peak lies within the band `estimate` reports (uncertainty.ts bandOf). */
  withinBand: boolean | null;
  reportedApart?: string;
}
