/** Accuracy of the time model against published measured speeds: per-case error and summaries. */
import { absErrorStats } from '../memory/calibration.js';
import { FRAMEWORKS } from '../memory/frameworks.js';
import type { Framework } from '../../schema/estimate.js';

export interface ThroughputRow {
  id: string;
  /**
   * training, decode (one replica, any engine), serving (decode on a serving engine: vLLM, SGLang) or rl (a
   * preference / RL optimizer step, rollout included).
   */
  kind: 'training' | 'decode' | 'serving' | 'rl';
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
  /** A model constant was worked out from this row's number (the row's in_sample_why): reported apart. */
  inSample: boolean;
}

export interface ThroughputSummary {
  group: string;
  count: number;
  medianAbsError: number;
  p90AbsError: number;
  within20: number;
}

/** Targets the shipped set must meet: overall median/p90 and the median of each kind. */
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

/** A serving engine's memory profile: it sizes a server's pool (FrameworkProfile.server, as vLLM and SGLang do). */
export const isServingFramework = (framework: Framework): boolean =>
  FRAMEWORKS[framework]?.server !== undefined;

/** The kind a row is reported under: training, decode, or serving (decode on a serving engine). */
export function throughputKind(
  kind: 'training' | 'decode' | 'rl',
  framework: Framework,
): ThroughputRow['kind'] {
  return kind === 'decode' && isServingFramework(framework) ? 'serving' : kind;
}

/**
 * Out-of-sample rows (the headline): overall, per kind, per source, and decode per engine and kernel; then the
 * in-sample rows apart (`in-sample:` groups, overall, per kind and per source), in a stable order.
 */
export function throughputSummaries(rows: readonly ThroughputRow[]): ThroughputSummary[] {
  const out = rows.filter((r) => !r.inSample);
  const inSample = rows.filter((r) => r.inSample);
  return [
    ...groupSummaries('', out, true),
    ...(inSample.length > 0 ? groupSummaries('in-sample:', inSample, false) : []),
  ];
}

function groupSummaries(
  tag: string,
  rows: readonly ThroughputRow[],
  perKernel: boolean,
): ThroughputSummary[] {
  const out = [summarizeThroughput(`${tag}all`, rows)];
  const decodeOnly = (f: (r: ThroughputRow) => string | undefined) => (r: ThroughputRow) =>
    r.kind === 'training' || r.kind === 'rl' ? undefined : f(r);
  const keys: [string, (r: ThroughputRow) => string | undefined][] = [
    ['kind:', (r) => r.kind],
    ['source:', (r) => r.source],
  ];
  // Decode cases per engine and per kernel family (each reported on its own line).
  if (perKernel)
    keys.push(['engine:', decodeOnly((r) => r.engine)], ['kernel:', decodeOnly((r) => r.kernel)]);
  for (const [prefix, key] of keys) {
    const ks = rows.map(key).filter((k): k is string => k !== undefined);
    for (const k of [...new Set(ks)].sort())
      out.push(
        summarizeThroughput(
          `${tag}${prefix}${k}`,
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
  // No address: the words before the first quote, comma or parenthesis ("Hugging Face Transformers docs").
  return url ? url[1]! : source.split(/["',(]/)[0]!.trim();
}

/** Rows furthest from their measurement, worst first. */
export function worstRows(rows: readonly ThroughputRow[], n: number): ThroughputRow[] {
  return [...rows].sort((a, b) => Math.abs(b.error) - Math.abs(a.error)).slice(0, n);
}
