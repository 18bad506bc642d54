/** Text table of the calibration report. */
import type { CaseResult, ErrorSummary } from '../core/calibration.js';
import { formatGiB, formatPercent, padLeft, padRight, signedPercent } from './format.js';

export function renderValidateText(
  rows: readonly CaseResult[],
  summary: readonly ErrorSummary[],
): string {
  const out = [
    `${padRight('case', 24)}${padRight('framework', 12)}${padRight('metric', 11)}${padLeft('measured', 12)}${padLeft('estimate', 12)}${padLeft('error', 9)}`,
  ];
  for (const r of rows)
    out.push(
      `${padRight(r.id, 24)}${padRight(r.framework, 12)}${padRight(r.metric, 11)}${padLeft(formatGiB(r.measuredBytes), 12)}${padLeft(formatGiB(r.estimatedBytes), 12)}${padLeft(signedPercent(r.error), 9)}`,
    );
  out.push('');
  out.push(
    `${padRight('summary', 24)}${padLeft('cases', 7)}${padLeft('median |err|', 14)}${padLeft('p90 |err|', 11)}${padLeft('mean err', 10)}`,
  );
  for (const s of summary)
    out.push(
      `${padRight(s.group, 24)}${padLeft(String(s.count), 7)}${padLeft(formatPercent(s.medianAbsError), 14)}${padLeft(formatPercent(s.p90AbsError), 11)}${padLeft(signedPercent(s.meanError), 10)}`,
    );
  return out.join('\n');
}
