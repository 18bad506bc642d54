/** The preference / RL section of `validate` (calibration/rl-cases.json), by objective. */
import type { RlRow } from '../core/memory/index.js';
import { formatGiB, padLeft, padRight, signedPercent } from './format.js';

export function renderRlSection(rows: readonly RlRow[]): string[] {
  const value = (r: RlRow, v: number | null) =>
    v === null
      ? '-'
      : r.metric === 'max-context'
        ? `${v.toLocaleString('en-US')} tok`
        : formatGiB(v);
  const out = [
    'preference / RL: published figures (calibration/rl-cases.json) vs estimate, by objective',
    `${padRight('objective', 11)}${padRight('case', 41)}${padRight('engine', 9)}${padRight('metric', 13)}${padLeft('published', 12)}${padLeft('estimate', 12)}${padLeft('error', 9)}`,
  ];
  for (const r of rows)
    out.push(
      `${padRight(r.objective, 11)}${padRight(r.id, 41)}${padRight(r.engine, 9)}${padRight(r.metric, 13)}${padLeft(value(r, r.published), 12)}${padLeft(value(r, r.estimated), 12)}${padLeft(r.error === null ? '-' : signedPercent(r.error), 9)}${r.reportedApart === undefined ? '' : '  (reported apart)'}`,
    );
  const scored = rows.filter((r) => r.reportedApart === undefined);
  const within = scored.filter((r) => r.withinBand === true).length;
  out.push(`${within} of ${scored.length} scored rows within the estimate's band`);
  for (const r of rows)
    if (r.reportedApart !== undefined) out.push(`reported apart: ${r.id}: ${r.reportedApart}`);
  return out;
}
