/** Side-by-side text of several scenarios' best plans. */
import type { PlanResult } from '../core/plan/index.js';
import { formatDuration, formatInt, formatUsd, padRight } from './format.js';
import { COUNT_LABEL, countCell } from './plan-count.js';
import { gpuMemoryCell, hardwareOf, techniqueOf } from './plan-text.js';

const ROWS: [string, (r: PlanResult) => string][] = [
  ['model', (r) => r.model.id],
  ['fits', (r) => (r.fits ? 'yes' : 'no')],
  ['best hardware', (r) => (r.plans[0] ? hardwareOf(r.plans[0]) : '—')],
  ['technique', (r) => (r.plans[0] ? techniqueOf(r.plans[0]) : '—')],
  ['GPU memory', (r) => (r.plans[0] ? gpuMemoryCell(r.plans[0], ' / ') : '—')],
  ['time', (r) => (r.plans[0] ? formatDuration(r.plans[0].time.hours) : '—')],
  ['cost', (r) => (r.plans[0] ? formatUsd(r.plans[0].cost.usd) : '—')],
  ['wall power', (r) => (r.plans[0] ? `${formatInt(r.plans[0].power.wallWatts)} W` : '—')],
  [
    'tokens/s',
    (r) => (r.plans[0] ? Math.round(r.plans[0].time.tokensPerSecond).toLocaleString('en-US') : '—'),
  ],
  [COUNT_LABEL, countCell],
];

/** Row `#n` (n ≥ 2): that plan's hardware, cost and time. */
const nth = (n: number): [string, (r: PlanResult) => string] => [
  `#${n}`,
  (r) => {
    const p = r.plans[n - 1];
    return p ? `${hardwareOf(p)}, ${formatUsd(p.cost.usd)}, ${formatDuration(p.time.hours)}` : '—';
  },
];

/** The scenarios side by side: the best plan in full, then plans 2 … top one line each (`--top`). */
export function renderCompareText(
  results: readonly { file: string; result: PlanResult }[],
  top = 3,
): string {
  const rows = [...ROWS, ...Array.from({ length: Math.max(0, top - 1) }, (_, i) => nth(i + 2))];
  const cols = results.map((r) => [r.result.scenario.name, ...rows.map(([, f]) => f(r.result))]);
  const labels = ['', ...rows.map(([l]) => l)];
  const lw = Math.max(...labels.map((l) => l.length));
  const widths = cols.map((c) => Math.max(...c.map((x) => x.length)));
  return labels
    .map((l, i) =>
      [padRight(l, lw), ...cols.map((c, j) => padRight(c[i]!, widths[j]!))].join('  ').trimEnd(),
    )
    .join('\n');
}
