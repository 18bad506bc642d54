/** Side-by-side text of several scenarios' best plans. */
import type { PlanResult } from '../core/plan.js';
import { formatDuration, formatGiB, formatUsd, padRight } from './format.js';
import { hardwareOf, techniqueOf } from './plan-text.js';

const ROWS: [string, (r: PlanResult) => string][] = [
  ['model', (r) => r.model.id],
  ['fits', (r) => (r.fits ? 'yes' : 'no')],
  ['best hardware', (r) => (r.plans[0] ? hardwareOf(r.plans[0]) : '—')],
  ['technique', (r) => (r.plans[0] ? techniqueOf(r.plans[0]) : '—')],
  [
    'GPU memory',
    (r) =>
      r.plans[0]
        ? `${formatGiB(r.plans[0].memory.deviceBytes, 1)} / ${formatGiB(r.plans[0].memory.capacityBytes, 0)}`
        : '—',
  ],
  ['time', (r) => (r.plans[0] ? formatDuration(r.plans[0].time.hours) : '—')],
  ['cost', (r) => (r.plans[0] ? formatUsd(r.plans[0].cost.usd) : '—')],
  ['wall power', (r) => (r.plans[0] ? `${r.plans[0].power.wallWatts} W` : '—')],
  [
    'tokens/s',
    (r) => (r.plans[0] ? Math.round(r.plans[0].time.tokensPerSecond).toLocaleString('en-US') : '—'),
  ],
  ['feasible plans', (r) => r.searched.feasible.toLocaleString('en-US')],
  [
    'runner-up',
    (r) => (r.plans[1] ? `${hardwareOf(r.plans[1])}, ${formatUsd(r.plans[1].cost.usd)}` : '—'),
  ],
];

export function renderCompareText(
  results: readonly { file: string; result: PlanResult }[],
): string {
  const cols = results.map((r) => [r.result.scenario.name, ...ROWS.map(([, f]) => f(r.result))]);
  const labels = ['', ...ROWS.map(([l]) => l)];
  const lw = Math.max(...labels.map((l) => l.length));
  const widths = cols.map((c) => Math.max(...c.map((x) => x.length)));
  return labels
    .map((l, i) =>
      [padRight(l, lw), ...cols.map((c, j) => padRight(c[i]!, widths[j]!))].join('  ').trimEnd(),
    )
    .join('\n');
}
