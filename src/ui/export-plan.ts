/** Plan exports as strings: JSON, CSV, Markdown and SVG (hand-written; memory bars and the cost/slowdown front). */
import type { Plan, PlanResult } from '../core/plan.js';
import { formatDuration, formatGiB, formatUsd } from './format.js';
import { COMPONENT_LABEL } from './messages.js';
import { REASON_LABEL, fixSentence } from './plan-messages.js';
import { hardwareOf, renderTable, techniqueOf } from './plan-text.js';

/** PlanResult with sentences beside the codes (what --json prints). */
export function planJson(r: PlanResult): unknown {
  return {
    ...r,
    pruned: r.pruned.map((p) => ({ ...p, message: REASON_LABEL[p.code] })),
    nearestFixes: r.nearestFixes.map((f) => ({ ...f, message: fixSentence(f) })),
  };
}

const CSV_HEAD = [
  'rank',
  'id',
  'kind',
  'gpu',
  'gpus',
  'offer',
  'powerLimitW',
  'method',
  'weights',
  'optimizer',
  'checkpointing',
  'attention',
  'microBatch',
  'gradAccum',
  'zero',
  'offload',
  'tp',
  'pp',
  'dp',
  'deviceBytes',
  'capacityBytes',
  'wallWatts',
  'tokensPerSecond',
  'hours',
  'costUsd',
  'slowdown',
  'onFront',
];

const csvCell = (v: unknown): string => {
  const s = String(v ?? '');
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

export function planCsv(r: PlanResult): string {
  const rows = r.plans.map((p) => [
    p.rank,
    p.id,
    p.hardware.kind,
    p.hardware.gpuId,
    p.hardware.gpus,
    p.hardware.offerId ?? '',
    p.hardware.powerLimitW,
    p.choices.method,
    p.choices.weights + (p.choices.doubleQuant ? '+dq' : ''),
    p.choices.optimizer,
    p.choices.checkpointing,
    p.choices.attention,
    p.choices.microBatch,
    p.choices.gradAccum,
    p.choices.zero,
    p.choices.offload,
    p.choices.tp,
    p.choices.pp,
    p.choices.dp,
    p.memory.deviceBytes,
    p.memory.capacityBytes,
    p.power.wallWatts,
    p.time.tokensPerSecond.toFixed(1),
    p.time.hours.toFixed(4),
    p.cost.usd.toFixed(4),
    p.slowdown.toFixed(4),
    p.onFront,
  ]);
  return [CSV_HEAD, ...rows].map((row) => row.map(csvCell).join(',')).join('\n') + '\n';
}

export function planMarkdown(r: PlanResult): string {
  const out = [
    `# ${r.scenario.name}`,
    '',
    `Model ${r.model.id}, ${r.scenario.job}, ranked by ${r.scenario.rank}. ${r.searched.candidates} candidates, ${r.searched.feasible} feasible.`,
    '',
  ];
  if (r.plans.length > 0) {
    out.push(
      '| # | hardware | technique | GPU memory | time | cost | wall W | slowdown |',
      '|---:|---|---|---:|---:|---:|---:|---:|',
    );
    for (const p of r.plans)
      out.push(
        `| ${p.rank} | ${hardwareOf(p)} | ${techniqueOf(p)} | ${formatGiB(p.memory.deviceBytes, 1)} / ${formatGiB(p.memory.capacityBytes, 0)} | ${formatDuration(p.time.hours)} | ${formatUsd(p.cost.usd)} | ${p.power.wallWatts} | ${p.slowdown.toFixed(2)}× |`,
      );
  } else {
    out.push(
      'Nothing fits. Nearest fixes:',
      '',
      ...r.nearestFixes.map((f) => `- ${fixSentence(f)}`),
    );
  }
  out.push(
    '',
    '## Pruned',
    '',
    '| reason | count |',
    '|---|---:|',
    ...r.pruned.map((p) => `| ${REASON_LABEL[p.code]} | ${p.count} |`),
  );
  return out.join('\n') + '\n';
}

export const planText = (r: PlanResult): string => renderTable(r.plans);

const esc = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const COLORS = [
  '#4e79a7',
  '#f28e2b',
  '#e15759',
  '#76b7b2',
  '#59a14f',
  '#edc948',
  '#b07aa1',
  '#ff9da7',
  '#9c755f',
  '#bab0ac',
  '#86bcb6',
];

/** Stacked per-GPU memory bars of the top plans against capacity, then the cost/slowdown front. */
export function planSvg(r: PlanResult): string {
  const W = 900;
  const barH = 22;
  const left = 260;
  const plotW = W - left - 40;
  const plans = r.plans;
  const keys = Object.keys(COMPONENT_LABEL) as (keyof Plan['memory']['breakdown'])[];
  const maxCap = Math.max(
    1,
    ...plans.map((p) => Math.max(p.memory.capacityBytes, p.memory.deviceBytes)),
  );
  const parts: string[] = [];
  let y = 40;
  parts.push(
    `<text x="10" y="24" font-size="16" font-weight="bold">${esc(r.scenario.name)}: per-GPU memory vs capacity</text>`,
  );
  for (const p of plans) {
    parts.push(
      `<text x="10" y="${y + 15}" font-size="11">${esc(`#${p.rank} ${hardwareOf(p)}`)}</text>`,
    );
    let x = left;
    keys.forEach((k, i) => {
      const w = (p.memory.breakdown[k] / maxCap) * plotW;
      if (w <= 0) return;
      parts.push(
        `<rect x="${x.toFixed(1)}" y="${y}" width="${w.toFixed(1)}" height="${barH}" fill="${COLORS[i % COLORS.length]}"><title>${esc(`${COMPONENT_LABEL[k]}: ${formatGiB(p.memory.breakdown[k])}`)}</title></rect>`,
      );
      x += w;
    });
    const cx = left + (p.memory.capacityBytes / maxCap) * plotW;
    parts.push(
      `<line x1="${cx.toFixed(1)}" y1="${y - 3}" x2="${cx.toFixed(1)}" y2="${y + barH + 3}" stroke="black" stroke-width="2"/>`,
    );
    y += barH + 10;
  }
  // Legend
  keys.forEach((k, i) => {
    const lx = 10 + (i % 6) * 145;
    const ly = y + 10 + Math.floor(i / 6) * 16;
    parts.push(
      `<rect x="${lx}" y="${ly}" width="10" height="10" fill="${COLORS[i % COLORS.length]}"/><text x="${lx + 14}" y="${ly + 9}" font-size="10">${esc(COMPONENT_LABEL[k])}</text>`,
    );
  });
  y += 60;
  // Front: cost (x) vs slowdown (y)
  const fh = 260;
  parts.push(
    `<text x="10" y="${y}" font-size="16" font-weight="bold">Pareto front: cost vs slowdown</text>`,
  );
  const front = r.front;
  const top = y + 20;
  const maxCost = Math.max(1e-9, ...front.map((p) => p.cost.usd));
  const maxSlow = Math.max(1, ...front.map((p) => p.slowdown));
  parts.push(
    `<rect x="${left}" y="${top}" width="${plotW}" height="${fh}" fill="none" stroke="#888"/>`,
  );
  parts.push(
    `<text x="${left}" y="${top + fh + 16}" font-size="10">$0</text><text x="${left + plotW - 60}" y="${top + fh + 16}" font-size="10">${esc(formatUsd(maxCost))}</text>`,
  );
  parts.push(
    `<text x="${left - 40}" y="${top + fh}" font-size="10">1.00×</text><text x="${left - 40}" y="${top + 10}" font-size="10">${maxSlow.toFixed(2)}×</text>`,
  );
  for (const p of front) {
    const px = left + (p.cost.usd / maxCost) * plotW;
    const py = top + fh - (maxSlow > 1 ? ((p.slowdown - 1) / (maxSlow - 1)) * fh : 0);
    parts.push(
      `<circle cx="${px.toFixed(1)}" cy="${py.toFixed(1)}" r="4" fill="#e15759"><title>${esc(`${p.id}: ${formatUsd(p.cost.usd)}, ${p.slowdown.toFixed(2)}×, ${p.power.wallWatts} W`)}</title></circle>`,
    );
  }
  const H = top + fh + 30;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif">\n<rect width="100%" height="100%" fill="white"/>\n${parts.join('\n')}\n</svg>\n`;
}

export type ExportFormat = 'json' | 'csv' | 'md' | 'svg';

export function exportPlan(r: PlanResult, format: ExportFormat): string {
  switch (format) {
    case 'json':
      return `${JSON.stringify(planJson(r), null, 2)}\n`;
    case 'csv':
      return planCsv(r);
    case 'md':
      return planMarkdown(r);
    case 'svg':
      return planSvg(r);
  }
}
