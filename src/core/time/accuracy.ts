/** Accuracy of the time model against published measured speeds: per-case error and summaries. */
import { absErrorStats } from '../memory/calibration.js';

export interface ThroughputRow {
  id: string;
  kind: 'training' | 'decode';
  /** Short source name (repository or site the measurement comes from). */
  source: string;
  trust: string;
  measured: number;
  estimated: number;
  /** (estimate - measured) / measured */
  error: number;
  bound: string;
  /** The engine that ran it (engineOf its options) and its kernel family (the quant format, or the dtype). */
  engine?: string;
  kernel?: string;
}

export interface ThroughputSummary {
  group: string;
  count: number;
  medianAbsError: number;
  p90AbsError: number;
  within20: number;
}

/** Targets the shipped set must meet (issue 11): overall median/p90 and the median of each kind. */
export const THROUGHPUT_TARGETS = { median: 0.12, p90: 0.35, kindMedian: 0.15 } as const;

export function summarizeThroughput(
  group: string,
  rows: readonly ThroughputRow[],
): ThroughputSummary {
  const { abs, count, medianAbsError, p90AbsError } = absErrorStats(rows);
  return {
    group,
    count,
    medianAbsError,
    p90AbsError,
    within20: count ? abs.filter((e) => e <= 0.2).length / count : 0,
  };
}

/** Overall, per kind and per source, in a stable order. */
export function throughputSummaries(rows: readonly ThroughputRow[]): ThroughputSummary[] {
  const out = [summarizeThroughput('all', rows)];
  for (const [prefix, key] of [
    ['kind:', (r: ThroughputRow) => r.kind],
    ['source:', (r: ThroughputRow) => r.source],
    // Decode cases per engine and per kernel family (issue 25: each reported on its own line).
    ['engine:', (r: ThroughputRow) => (r.kind === 'decode' ? r.engine : undefined)],
    ['kernel:', (r: ThroughputRow) => (r.kind === 'decode' ? r.kernel : undefined)],
  ] as const) {
    const keys = rows.map(key).filter((k): k is string => k !== undefined);
    for (const k of [...new Set(keys)].sort())
      out.push(
        summarizeThroughput(
          `${prefix}${k}`,
          rows.filter((r) => key(r) === k),
        ),
      );
  }
  return out;
}

/** The short source name of a case's `source` text: the GitHub owner/repo, else the site. */
export function sourceName(source: string): string {
  const gh = /github\.com\/([\w.-]+\/[\w.-]+)/.exec(source);
  if (gh) return gh[1]!;
  const first = /^([\w.-]+\/[\w.-]+)\s/.exec(source);
  if (first) return first[1]!;
  const url = /https?:\/\/([\w.-]+)/.exec(source);
  return url ? url[1]! : source.split(/\s/)[0]!;
}

/** Rows furthest from their measurement, worst first. */
export function worstRows(rows: readonly ThroughputRow[], n: number): ThroughputRow[] {
  return [...rows].sort((a, b) => Math.abs(b.error) - Math.abs(a.error)).slice(0, n);
}
