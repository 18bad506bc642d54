/** Plan exports as strings: JSON, CSV, Markdown and SVG (hand-written; memory bars and the cost/slowdown front). */
import type { PlanResult } from '../core/plan/index.js';
import { formatDuration, formatUsd, formatInt } from './format.js';
import { REASON_LABEL, fixSentence } from './plan-messages.js';
import { planCountText, shownText } from './plan-count.js';
import { planJson } from './plan-json.js';
import { planSvg } from './export-svg.js';
import { gpuMemoryCell, hardwareOf, renderTable, techniqueOf } from './plan-text.js';

export { planSvg };

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
  'engine',
  'quality',
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
    p.choices.engine,
    p.quality.tier,
  ]);
  return [CSV_HEAD, ...rows].map((row) => row.map(csvCell).join(',')).join('\n') + '\n';
}

export function planMarkdown(r: PlanResult): string {
  const out = [
    `# ${r.scenario.name}`,
    '',
    `Model ${r.model.id}, ${r.scenario.job}, ranked by ${r.scenario.rank}. ${formatInt(r.searched.candidates)} candidates searched; ${r.plans.length > 0 ? `${planCountText(r)}, ${shownText(r)}` : `${formatInt(r.searched.feasible)} feasible configurations`}.`,
    '',
  ];
  if (r.plans.length > 0) {
    out.push(
      '| # | hardware | technique | GPU memory | time | cost | wall W | x fastest |',
      '|---:|---|---|---:|---:|---:|---:|---:|',
    );
    for (const p of r.plans)
      out.push(
        `| ${p.rank} | ${hardwareOf(p)} | ${techniqueOf(p)} | ${gpuMemoryCell(p, ' / ')} | ${formatDuration(p.time.hours)} | ${formatUsd(p.cost.usd)} | ${formatInt(p.power.wallWatts)} | ${p.slowdown.toFixed(2)}× |`,
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
    ...r.pruned.map((p) => `| ${REASON_LABEL[p.code]} | ${formatInt(p.count)} |`),
  );
  return out.join('\n') + '\n';
}

export const planText = (r: PlanResult): string => renderTable(r.plans);

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
