/** `vramplan check` as text: one line per component compared, the reasons under a line outside its band. */
import type { CheckResult, CheckRow } from '../core/check/index.js';
import { formatGiB, padLeft, padRight } from './format.js';

const value = (unit: CheckRow['unit'], v: number): string =>
  unit === 'bytes'
    ? `${formatGiB(v)}`
    : unit === 'seconds'
      ? v < 1
        ? `${(v * 1000).toPrecision(3)} ms`
        : `${v.toPrecision(3)} s`
      : `${Math.round(v).toLocaleString('en-US')} tok/s`;

const LABEL: Record<CheckRow['component'], string> = {
  allocated: 'allocated (torch peak)',
  reserved: 'reserved (torch peak)',
  device: 'device (nvidia-smi)',
  'step time': 'step time',
  'tokens/s per GPU': 'tokens/s per GPU',
  'time to first token': 'time to first token',
  'time per output token': 'time per output token',
};

export function renderCheckText(
  title: string,
  result: CheckResult,
  notMeasured: readonly string[],
): string {
  const head = ['component', 'planned', 'measured', 'ratio', 'plan band', ''];
  const rows = result.rows.map((r) => [
    LABEL[r.component],
    value(r.unit, r.planned),
    value(r.unit, r.measured),
    r.ratio.toFixed(2),
    `${value(r.unit, r.band.low)} – ${value(r.unit, r.band.high)}`,
    r.inside ? 'inside' : 'OUTSIDE',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i >= 1 && i <= 3 ? padLeft(c, widths[i]!) : padRight(c, widths[i]!)))
      .join('  ')
      .trimEnd();
  const out = [title, '', line(head)];
  result.rows.forEach((r, i) => {
    out.push(line(rows[i]!));
    for (const why of r.reasons) out.push(`    - ${why}`);
  });
  if (notMeasured.length > 0) out.push('', `not measured: ${notMeasured.join(', ')}`);
  for (const n of result.notes) out.push(`note: ${n}`);
  out.push(
    '',
    result.inside
      ? "inside the plan's uncertainty band (exit 0)"
      : "outside the plan's uncertainty band (exit 3); 'vramplan check <folder> --case' turns the run into a calibration row",
  );
  return out.join('\n');
}
