/** Text table of the calibration report. */
import {
  UNCERTAINTY,
  type CaseResult,
  type ErrorSummary,
  type MaxContextRow,
} from '../core/memory/index.js';
import type { ThroughputRow, ThroughputSummary } from '../core/time/accuracy.js';
import { formatGiB, formatPercent, padLeft, padRight, signedPercent } from './format.js';

export function renderValidateText(
  rows: readonly CaseResult[],
  summary: readonly ErrorSummary[],
  maxContext: readonly MaxContextRow[] = [],
): string {
  const out = [
    `${padRight('case', 24)}${padRight('framework', 12)}${padRight('metric', 11)}${padLeft('measured', 12)}${padLeft('estimate', 12)}${padLeft('error', 9)}`,
  ];
  for (const r of rows)
    out.push(
      `${padRight(r.id, 24)}${padRight(r.framework, 12)}${padRight(r.metric, 11)}${padLeft(formatGiB(r.measuredBytes), 12)}${padLeft(formatGiB(r.estimatedBytes), 12)}${padLeft(signedPercent(r.error), 9)}`,
    );
  const cols = `${padLeft('cases', 7)}${padLeft('median |err|', 14)}${padLeft('p90 |err|', 11)}${padLeft('mean err', 10)}`;
  const line = (s: ErrorSummary) =>
    `${padRight(s.group, 40)}${padLeft(String(s.count), 7)}${padLeft(formatPercent(s.medianAbsError), 14)}${padLeft(formatPercent(s.p90AbsError), 11)}${padLeft(signedPercent(s.meanError), 10)}`;
  const inSample = summary.filter((s) => s.group.startsWith('in-sample:'));
  out.push('', `${padRight('out of sample (headline)', 40)}${cols}`);
  for (const s of summary) if (!s.group.startsWith('in-sample:')) out.push(line(s));
  out.push(
    '',
    inSample.length > 0
      ? `${padRight('in sample (a constant came from them)', 40)}${cols}`
      : 'in sample: none (no model constant was worked out from a scored row)',
    ...inSample.map(line),
  );
  // The band's high edge (memory/uncertainty.ts): an estimate below it would let a plan that does not fit pass.
  const band = UNCERTAINTY.maxUnderError;
  const under = rows.filter((r) => r.error < -band);
  out.push('');
  out.push(
    under.length === 0
      ? `no case is under-estimated beyond the band's high edge (-${formatPercent(band)})`
      : `under-estimated beyond the band's high edge (-${formatPercent(band)}): ${under.map((r) => `${r.id} (${signedPercent(r.error)})`).join(', ')}`,
  );
  if (maxContext.length > 0) out.push('', ...renderMaxContext(maxContext));
  return out.join('\n');
}

/** The "max context" section: published longest sequences (calibration/max-context.json) beside ours. */
function renderMaxContext(rows: readonly MaxContextRow[]): string[] {
  const tokens = (n: number) => n.toLocaleString('en-US');
  const out = [
    'max context: longest sequence that fits the card (deviceBytes <= GPU memory), published vs estimate',
    `${padRight('model', 36)}${padLeft('GPU', 7)}${padRight('  method', 9)}${padRight('engine', 9)}${padLeft('published', 11)}${padLeft('estimate', 11)}${padLeft('error', 9)}`,
  ];
  for (const r of rows)
    out.push(
      `${padRight(r.model, 36)}${padLeft(`${r.gpuMemoryGiB} GiB`, 7)}${padRight(`  ${r.method}`, 9)}${padRight(r.engine, 9)}${padLeft(tokens(r.publishedMaxTokens), 11)}${padLeft(tokens(r.estimatedMaxTokens), 11)}${padLeft(signedPercent(r.error), 9)}${r.reportedApart === undefined ? '' : '  (reported apart)'}`,
    );
  const scored = rows.filter((r) => r.reportedApart === undefined);
  const within = scored.filter((r) => Math.abs(r.error) <= 0.2).length;
  out.push(`${within} of ${scored.length} scored rows within 20%`);
  for (const r of rows)
    if (r.reportedApart !== undefined) out.push(`reported apart: ${r.id}: ${r.reportedApart}`);
  return out;
}

/** Text report of `validate --throughput`: every case, summaries per kind and source, worst cases. */
export function renderThroughputText(
  rows: readonly ThroughputRow[],
  summary: readonly ThroughputSummary[],
  worst: readonly ThroughputRow[],
): string {
  // Three significant figures below 10 (batch latencies are fractions of a second).
  const num = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toPrecision(3));
  // The case column fits the longest id (ids run past 30 characters), one space after it.
  const w = Math.max(30, ...rows.map((r) => r.id.length + 1));
  const line = (r: ThroughputRow) =>
    `${padRight(r.id, w)}${padRight(r.kind, 9)}${padRight(r.bound, 14)}${padLeft(num(r.measured), 10)}${padLeft(num(r.estimated), 10)}${padLeft(signedPercent(r.error), 9)}`;
  const head = `${padRight('case', w)}${padRight('kind', 9)}${padRight('bound', 14)}${padLeft('measured', 10)}${padLeft('estimate', 10)}${padLeft('error', 9)}`;
  const out = [
    'tokens/s: training per GPU, decode per model replica; batch-latency rows in seconds, their error as the speed they imply',
    head,
  ];
  for (const r of rows) out.push(line(r) + (r.inSample ? '  (in sample)' : ''));
  const row = (s: ThroughputSummary) =>
    `${padRight(s.group, 40)}${padLeft(String(s.count), 7)}${padLeft(formatPercent(s.medianAbsError), 14)}${padLeft(formatPercent(s.p90AbsError), 11)}${padLeft(formatPercent(s.within20), 12)}`;
  const cols = `${padLeft('cases', 7)}${padLeft('median |err|', 14)}${padLeft('p90 |err|', 11)}${padLeft('within 20%', 12)}`;
  const inSample = summary.filter((s) => s.group.startsWith('in-sample:'));
  out.push('', `${padRight('out of sample (headline)', 40)}${cols}`);
  for (const s of summary) if (!s.group.startsWith('in-sample:')) out.push(row(s));
  if (inSample.length > 0) {
    out.push(
      '',
      `${padRight('in sample (a constant came from them)', 40)}${cols}`,
      ...inSample.map(row),
    );
  }
  out.push('', 'worst cases', head);
  for (const r of worst) out.push(line(r));
  return out.join('\n');
}
