/** Pure: State → the props of each component (all formatting happens here, not in components). */
import type { Plan, PlanResult } from '../../core/plan/index.js';
import { KNOBS, KNOB_LABEL, knobValue } from './edit.js';
import {
  headerLine,
  memorySegments,
  rowLine,
  hardwareCell,
  powerLimitText,
  selectedLine,
  tableLayout,
  techniqueRest,
  type Segment,
} from './cells.js';
import { HELP_LINES } from './keys.js';
import type { HelpOverlayProps } from './HelpOverlay.js';
import {
  COMPARE_LABELS,
  compareColumn,
  hostRamDetail,
  memoryHeadline,
  memoryLegend,
  pack,
  powerLines,
  prunedLines,
  techniqueLines,
  techniquesHeading,
  timeCostLine,
} from './detail.js';
import { filterSummary } from './rows.js';
import { helpRows, selectedPlan, tableRows, type Snapshot, type State } from './state.js';
import type { DetailPaneProps } from './DetailPane.js';
import type { PlanTableProps } from './PlanTable.js';
import type { EditPanelProps } from './EditPanel.js';
import type { CompareViewProps } from './CompareView.js';
import type { NothingFitsProps } from './NothingFits.js';
import { fixSentence } from '../plan-messages.js';
import { formatDuration, formatUsd } from '../format.js';
import { distinctText, planCountText } from '../plan-count.js';

const SORT_LABEL = {
  rank: 'planner rank',
  cost: 'cost',
  slowdown: 'x fastest',
  power: 'wall power',
  time: 'time',
  headroom: 'memory headroom',
} as const;

/** The count of plans the table holds, in the words of ui/plan-count.ts: "216 distinct plans". */
function countText(s: State, full: boolean): string {
  const r = s.result;
  const d = r.searched.distinctPlans;
  const all = full ? planCountText(r) : distinctText(r);
  if (s.visible.length === r.plans.length && r.plans.length >= d) return all;
  return `${s.visible.length.toLocaleString('en-US')} of ${all}${r.plans.length < d ? ` (best ${r.plans.length.toLocaleString('en-US')} ranked)` : ''}`;
}

export function headerText(s: State, width = Infinity): string {
  const line = (full: boolean) => {
    const filters = filterSummary(s.filters);
    const pos =
      s.visible.length > 0
        ? ` · ${(s.cursor + 1).toLocaleString('en-US')}/${s.visible.length.toLocaleString('en-US')}`
        : '';
    const planning = s.planning ? ` · re-planning…${s.progress ? ` ${s.progress}` : ''}` : '';
    return `${titleText(s)} · ${s.result.model.id} · ${countText(s, full)}${pos} · by ${SORT_LABEL[s.sort]} ${s.descending ? '▼' : '▲'}${filters ? ` · ${filters}` : ''}${planning}`;
  };
  const full = line(true);
  return full.length <= width ? full : line(false);
}

/** The scenario's name; once edited in the explorer, with the hardware the ranking shown is planned on. */
export function titleText(s: State): string {
  const name = s.result.scenario.name;
  if (s.planGen === 0) return name;
  return `${name} (edited: ${knobValue(s.planned, 'count')}× ${knobValue(s.planned, 'gpu')})`;
}

export function tableProps(s: State, width: number): PlanTableProps {
  const { cols, legend } = tableLayout(width);
  const n = tableRows(s.height, s.detail || s.mode === 'edit', width);
  const window = s.visible.slice(s.top, s.top + n);
  const r = s.result;
  const empty =
    r.plans.length === 0
      ? `nothing fits (${r.searched.candidates.toLocaleString('en-US')} candidates searched); see the pruned reasons`
      : 'no plan matches the filters (x clears them)';
  return {
    header: headerLine(cols),
    rows: window.map((p, i) => rowLine(cols, p, s.top + i === s.cursor)),
    selected: s.cursor - s.top,
    empty,
    legend,
    selectedText: (() => {
      const p = legend === null ? null : selectedPlan(s);
      return p ? selectedLine(p) : null;
    })(),
  };
}

/** The help's visible lines and where they are in the whole. */
export function helpProps(s: State): HelpOverlayProps {
  const n = helpRows(s.height);
  const top = Math.min(s.helpTop, Math.max(0, HELP_LINES.length - n));
  const lines = HELP_LINES.slice(top, top + n);
  const more = HELP_LINES.length > n;
  return {
    title: more
      ? `keys ${top + 1}-${top + lines.length} of ${HELP_LINES.length} (↑↓ space scroll · ? or Esc closes)`
      : 'keys (? or Esc closes)',
    lines,
  };
}

/** The nothing-fits screen: the nearest single fixes first (at most 6), then the pruned counts. */
export function nothingFitsProps(r: PlanResult, _width: number): NothingFitsProps {
  const fixes = r.nearestFixes.slice(0, 6).map(fixSentence);
  return {
    headline: `Nothing fits: ${r.searched.candidates.toLocaleString('en-US')} candidates searched, none feasible.`,
    fixes: fixes.length > 0 ? fixes : ['no single change makes a candidate feasible'],
    pruned: prunedLines(r).slice(0, 6),
  };
}

export function detailProps(p: Plan, r: PlanResult, width: number): DetailPaneProps {
  const inner = width - 2; // the pane's border
  const leftWidth = Math.floor(inner * 0.58);
  const rightWidth = Math.max(10, inner - leftWidth - 2);
  return {
    title: `#${p.rank} ${p.id}${p.onFront ? '  (Pareto front)' : ''}`,
    segments: memorySegments(p.memory.breakdown, p.memory.capacityBytes, leftWidth - 1),
    memoryHeadline: memoryHeadline(p),
    hostRam: hostRamDetail(p),
    legend: pack(memoryLegend(p), leftWidth).slice(0, 2),
    power: powerLines(p, leftWidth),
    timeCost: timeCostLine(p),
    techniques: techniqueLines(p),
    slowdown: techniquesHeading(p),
    pruned: prunedLines(r),
    leftWidth,
    rightWidth,
  };
}

export function editProps(s: State): EditPanelProps {
  return {
    knobs: KNOBS.map((k) => ({ label: KNOB_LABEL[k], value: knobValue(s.scenario, k) })),
    selected: s.knob,
    typing: s.typing,
    draft: s.draft,
    planning: s.planning,
  };
}

/** Marks a compare row whose value differs between the scenarios. */
export const DIFFERS = '≠';

/**
 * Scenarios side by side: each column titled with its scenario's name (made distinct: the same name twice
 * gets its position), and each row whose values differ marked with ≠ before its label.
 */
export function compareProps(
  set: readonly Snapshot[],
  width: number,
  height = Infinity,
): CompareViewProps {
  const labelWidth = Math.max(...COMPARE_LABELS.map((l) => l.length)) + 4;
  const columnWidth = Math.max(16, Math.floor((width - labelWidth) / Math.max(1, set.length)) - 1);
  const seen = new Map<string, number>();
  for (const x of set) seen.set(x.name, (seen.get(x.name) ?? 0) + 1);
  const columns = set.map((x, i) => {
    const best = x.result.plans[0];
    const segments: Segment[] = best
      ? memorySegments(best.memory.breakdown, best.memory.capacityBytes, columnWidth - 3)
      : [];
    const name = (seen.get(x.name) ?? 0) > 1 ? `${x.name} (${i + 1})` : x.name;
    return { ...compareColumn(name, x.result, x.job), segments };
  });
  const differs = COMPARE_LABELS.map(
    (_, r) => columns.length > 1 && columns.some((c) => c.rows[r] !== columns[0]!.rows[r]),
  );
  const rows = compareRows(height);
  return {
    labels: rows.map((r) => `${differs[r] ? DIFFERS : ' '} ${COMPARE_LABELS[r]!}`),
    labelWidth,
    columnWidth,
    columns: columns.map((c) => ({ ...c, rows: rows.map((r) => c.rows[r]!) })),
  };
}

/**
 * The compare rows that fit a terminal `height` lines tall, so that its title line stays on screen: the
 * explorer's header and footer, compare's title and memory bar take four lines; the memory breakdown's
 * rows (indented) go first, then the last rows.
 */
export function compareRows(height: number): number[] {
  const room = Math.max(3, height - 4);
  let rows = COMPARE_LABELS.map((_, r) => r);
  if (rows.length > room) rows = rows.filter((r) => !COMPARE_LABELS[r]!.startsWith('  '));
  return rows.slice(0, room);
}

/**
 * What stays on the terminal after the explorer quits: the plan selected then (engine, weights, optimizer,
 * power limit, memory, time, cost) and how to launch it, in a dozen lines.
 */
export function quitSummary(s: State): string {
  const r = s.result;
  const p = selectedPlan(s);
  const edited = s.planGen > 0 ? ' (as edited in the explorer)' : '';
  if (!p)
    return `${r.scenario.name}${edited} · ${r.model.id}: no plan selected (${distinctText(r)}, ${r.searched.candidates.toLocaleString('en-US')} candidates searched); \`vramplan plan ${s.file}\` lists the nearest fixes\n`;
  const rows: [string, string][] = [
    ['hardware', hardwareCell(p)],
    ['engine', p.choices.engine],
    ['weights', p.choices.weights],
    ['optimizer', p.choices.method === 'inference' ? '—' : p.choices.optimizer],
    ['power limit', powerLimitText(p)],
    ['technique', techniqueRest(p)],
    ['memory', `${memoryHeadline(p)}`],
    ['time', formatDuration(p.time.hours)],
    ['cost', formatUsd(p.cost.usd)],
  ];
  const lines = [
    `${r.scenario.name}${edited} · ${r.model.id} · plan #${p.rank} of ${distinctText(r)} (selected when you quit)`,
    ...rows.map(([k, v]) => `  ${k.padEnd(12)} ${v}`),
  ];
  if (s.planGen === 0) lines.push(`  launch it:   vramplan launch ${s.file} --plan ${p.rank}`);
  return `${lines.join('\n')}\n`;
}

/** The footer: the status message, or the most used keys (fewer on a narrow terminal). */
export function footerText(s: State, width = 120): string {
  if (s.status) return s.status.text;
  if (width < 100)
    return '↑↓ move · 1-5 sort · f fits · / search · i edit · e export · ? help · q quit';
  return '↑↓ move · 1-5 sort · m g o filter · f fits · p front · / search · i edit · e export · b pin · c compare · ? help · q quit';
}
