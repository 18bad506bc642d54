/** Body of `validate`: estimate every scorable case, then print the table and the summaries. */
import { caseError, summaryTable, type CaseResult, type Metric } from '../core/memory/index.js';
import { buildEstimate } from '../core/estimate.js';
import { caseArch, loadCalibrationCases } from '../io/load-calibration.js';
import { optionsFromFlags } from '../schema/flags.js';
import { renderValidateText } from '../ui/validate-text.js';

const METRICS: readonly string[] = ['allocated', 'reserved', 'device'];

export function calibrationRows(file: string): CaseResult[] {
  const rows: CaseResult[] = [];
  for (const c of loadCalibrationCases(file)) {
    if (!METRICS.includes(c.metric)) continue; // 'other': metric not stated, nothing to compare with
    const options = optionsFromFlags(c.flags);
    const r = buildEstimate(caseArch(c), options);
    const metric = c.metric as Metric;
    const est =
      metric === 'allocated'
        ? r.perGpu.allocatedBytes
        : metric === 'reserved'
          ? r.perGpu.reservedBytes
          : r.perGpu.deviceBytes;
    rows.push({
      id: c.id,
      metric,
      framework: options.framework,
      measuredBytes: c.measured_bytes,
      estimatedBytes: est,
      error: caseError(c.measured_bytes, est),
    });
  }
  return rows;
}

export function runValidate(file: string, json: boolean): number {
  const rows = calibrationRows(file);
  const summary = summaryTable(rows);
  process.stdout.write(
    json
      ? `${JSON.stringify({ rows, summary }, null, 2)}\n`
      : `${renderValidateText(rows, summary)}\n`,
  );
  return 0;
}
