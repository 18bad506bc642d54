/** Pure: table cells and memory/power bars as strings of exact widths, for the TUI components. */
import { isFloat8Compute } from '../../schema/estimate.js';
import type { Engine } from '../../schema/engine.js';
import { engineDef } from '../../core/engines/registry.js';
import type { Breakdown } from '../../core/memory/index.js';
import type { Plan } from '../../core/plan/index.js';
import {
  deviceMemoryValue,
  formatDuration,
  formatGiB,
  formatInt,
  formatUsd,
  padLeft,
  padRight,
} from '../format.js';
import { kvText } from '../kv-text.js';
import { neededBytes, pagedFillBytes } from '../plan-text.js';

/** Cut to `n` characters with an ellipsis, then pad. */
export function fit(s: string, n: number, right = false): string {
  if (n <= 0) return '';
  const cut = s.length > n ? `${s.slice(0, Math.max(0, n - 1))}…` : s;
  return right ? padLeft(cut, n) : padRight(cut, n);
}

export interface Col {
  title: string;
  width: number;
  right: boolean;
  cell: (p: Plan) => string;
}

/** Where the GPUs come from, without the power limit (its own column). */
export const hardwareCell = (p: Plan): string => {
  const h = p.hardware;
  return `${h.gpus}× ${h.gpuId} (${h.kind === 'rent' ? `rent ${h.offerId}` : h.kind})`;
};

/** Narrow tables: the GPUs, and `rent` when rented (the source is in the detail pane). */
const hardwareShort = (p: Plan): string =>
  `${p.hardware.gpus}× ${p.hardware.gpuId}${p.hardware.kind === 'rent' ? ' rent' : ''}`;

/** The technique apart from the weights, optimizer and engine (their own columns). */
export function techniqueRest(p: Plan): string {
  const c = p.choices;
  const parts: string[] = [c.method];
  if (c.doubleQuant) parts.push('+dq');
  if (p.options.masterWeights) parts.push('+fp32 master');
  if (isFloat8Compute(c.compute)) parts.push(`${c.compute} training`);
  const kv = kvText(p);
  if (kv) parts.push(kv);
  if (c.method !== 'inference') parts.push(`ckpt ${c.checkpointing}`);
  parts.push(c.attention, `mb ${c.microBatch}${c.gradAccum > 1 ? `×${c.gradAccum}` : ''}`);
  if (c.zero > 0) parts.push(`ZeRO-${c.zero}${c.offload !== 'none' ? ` off:${c.offload}` : ''}`);
  if (c.tp > 1) parts.push(`TP${c.tp}`);
  if (c.pp > 1) parts.push(`PP${c.pp}`);
  return parts.join(', ');
}

/** The power limit each GPU runs at, in watts (the fraction of the default too when it is lowered). */
export const powerLimitText = (p: Plan): string =>
  `${formatInt(p.hardware.powerLimitW)} W${p.hardware.powerLimitFraction < 1 ? ` (${Math.round(p.hardware.powerLimitFraction * 100)}%)` : ''}`;

const optimizerOf = (p: Plan): string =>
  p.choices.method === 'inference' ? '—' : p.choices.optimizer;

/** Short names for narrow tables (the full name is on the selected-plan line under the table). */
const OPT_ABBR: Record<string, string> = {
  adamw: 'adamw',
  'adamw-8bit': 'adw8',
  'paged-adamw': 'padw',
  'paged-adamw-8bit': 'padw8',
  'adam-mini': 'amini',
  'sgd-momentum': 'sgdm',
  adafactor: 'adafa',
};
/** An engine's short name (its registration's `abbr`), else its id. */
const engineAbbr = (e: Engine): string => engineDef(e).abbr ?? e;
const CKPT_ABBR: Record<string, string> = {
  none: 'nock',
  selective: 'sel',
  full: 'ckpt',
  offload: 'ckoff',
};

/**
 * The technique in a 60-column table: method letter, engine, KV dtype, checkpointing, micro-batch,
 * sharding and parallelism, then attention (most often the same across rows), in short words (legend: tech=…), so rows that differ in any of
 * them still read differently.
 */
export function techniqueShort(p: Plan): string {
  const c = p.choices;
  const parts = [`${c.method.charAt(0)}${c.doubleQuant ? '+dq' : ''}`];
  parts.push(engineAbbr(c.engine));
  const kv = kvText(p);
  if (kv) parts.push(kv.replace('KV ', 'kv'));
  if (c.method !== 'inference') parts.push(CKPT_ABBR[c.checkpointing] ?? c.checkpointing);
  parts.push(`${c.microBatch}${c.gradAccum > 1 ? `×${c.gradAccum}` : ''}`);
  if (c.zero > 0) parts.push(`z${c.zero}${c.offload !== 'none' ? 'off' : ''}`);
  if (c.tp > 1) parts.push(`tp${c.tp}`);
  if (c.pp > 1) parts.push(`pp${c.pp}`);
  parts.push(c.attention);
  return parts.join(' ');
}

const gibShort = (b: number): string => {
  const g = b / 2 ** 30;
  return g < 10 ? g.toFixed(1) : g.toFixed(0);
};
const hoursShort = (h: number): string =>
  h < 1 ? `${Math.round(h * 60)}m` : h < 100 ? `${h.toFixed(1)}h` : `${Math.round(h / 24)}d`;

/** Below this width the table abbreviates its titles and cells and prints a one-line legend. */
export const NARROW = 140;

const col = (title: string, width: number, right: boolean, cell: (p: Plan) => string): Col => ({
  title,
  width,
  right,
  cell,
});

/** The full-width columns other than hardware and technique (which share the rest). */
const WIDE_FIXED: Col[] = [
  col('weights', 7, false, (p) => p.choices.weights),
  col('optimizer', 16, false, optimizerOf),
  col('engine', 12, false, (p) => p.choices.engine),
  col('power limit', 11, true, powerLimitText),
  col(
    'mem/GPU',
    13,
    true,
    // With paged optimizer states: the bytes the plan needs, marked p (the states fill the rest and page out).
    (p) =>
      `${deviceMemoryValue(neededBytes(p))}${pagedFillBytes(p) > 0 ? 'p' : ''}/${(p.memory.capacityBytes / 2 ** 30).toFixed(0)} GiB`,
  ),
  col('time', 9, true, (p) => formatDuration(p.time.hours)),
  col('cost', 9, true, (p) => formatUsd(p.cost.usd)),
  col('wall W', 6, true, (p) => formatInt(p.power.wallWatts)),
  col('x fastest', 9, true, (p) => `${p.slowdown.toFixed(2)}×`),
  col('P', 1, false, (p) => (p.onFront ? '*' : ' ')),
];

const NARROW_FIXED: Col[] = [
  col('wt', 4, false, (p) => p.choices.weights),
  col('opt', 5, false, (p) => OPT_ABBR[optimizerOf(p)] ?? optimizerOf(p)),
  col('eng', 5, false, (p) => engineAbbr(p.choices.engine)),
  col('PL', 4, true, (p) => `${Math.round(p.hardware.powerLimitW)}W`),
  col('mem', 5, true, (p) => `${gibShort(neededBytes(p))}/${gibShort(p.memory.capacityBytes)}`),
  col('time', 5, true, (p) => hoursShort(p.time.hours)),
  col('cost', 6, true, (p) => formatUsd(p.cost.usd)),
];
const NARROW_MORE: Col[] = [
  col('W', 4, true, (p) => String(Math.round(p.power.wallWatts))),
  col('×f', 5, true, (p) => `${p.slowdown.toFixed(2)}×`),
  col('P', 1, false, (p) => (p.onFront ? '*' : ' ')),
];

export interface TableLayout {
  readonly cols: readonly Col[];
  /** What the abbreviated titles mean (one line), or null at full width. */
  readonly legend: string | null;
}

const layouts = new Map<number, TableLayout>();

/**
 * Columns for a table `width` characters wide (cached per width: a key move lays nothing out). Every title
 * fits its column; the power limit is always shown; hardware and technique share what the fixed ones leave
 * (hardware up to what its longest text needs, then technique).
 */
export function tableLayout(width: number): TableLayout {
  const cached = layouts.get(width);
  if (cached) return cached;
  const narrow = width < NARROW;
  const rank = col('#', 4, true, (p) => String(p.rank));
  let fixed: Col[];
  let legendParts: string[] = [];
  if (!narrow) fixed = WIDE_FIXED;
  else if (width < 75) {
    // Engine and memory leave room for the technique column (the engine is in it; memory in the detail pane).
    fixed = NARROW_FIXED.filter((c) => c.title !== 'eng' && c.title !== 'mem');
    legendParts = ['tech=method engine ckpt mb attention'];
  } else {
    fixed = [...NARROW_FIXED, ...(width >= 100 ? NARROW_MORE : NARROW_MORE.slice(1))];
  }
  if (narrow) {
    legendParts.push('wt=weights', 'opt=optimizer');
    if (width >= 75) legendParts.push('eng=engine');
    legendParts.push('PL=power limit');
    if (width >= 100) legendParts.push('W=wall watts');
    if (width >= 75) legendParts.push('×f=x fastest', 'P=Pareto');
  }
  const tiny = width < 75;
  const used = 2 + rank.width + 1 + fixed.reduce((a, c) => a + c.width + 1, 0);
  const flex = Math.max(20, width - used - 1);
  const hw = Math.min(narrow ? (tiny ? 10 : 14) : 48, Math.floor(flex * 0.45));
  const flexCols = [
    col('hardware', hw, false, narrow ? hardwareShort : hardwareCell),
    col(tiny ? 'tech' : 'technique', flex - hw - 1, false, tiny ? techniqueShort : techniqueRest),
  ];
  const layout: TableLayout = {
    cols: [rank, ...flexCols, ...fixed],
    legend: narrow ? legendParts.join(' ') : null,
  };
  layouts.set(width, layout);
  return layout;
}

/** Columns for a table `width` characters wide. */
export const tableColumns = (width: number): readonly Col[] => tableLayout(width).cols;

/** One line naming the selected plan's engine, weights, optimizer and power limit in full. */
export const selectedLine = (p: Plan): string =>
  `▸ #${p.rank} ${p.choices.engine}, ${p.choices.weights} weights, ${optimizerOf(p)}, ${powerLimitText(p)} limit, ${techniqueRest(p)}`;

export const headerLine = (cols: readonly Col[]): string =>
  `  ${cols.map((c) => fit(c.title, c.width, c.right)).join(' ')}`;

export const rowLine = (cols: readonly Col[], p: Plan, selected: boolean): string =>
  `${selected ? '❯ ' : '  '}${cols.map((c) => fit(c.cell(p), c.width, c.right)).join(' ')}`;

/** Memory groups drawn in the stacked bar (the breakdown's 11 keys folded into 8). */
export const MEMORY_GROUPS = [
  {
    key: 'weights',
    label: 'weights',
    glyph: '█',
    color: 'blue',
    parts: ['weights', 'quantConstants', 'masterWeights'],
  },
  { key: 'adapters', label: 'adapters', glyph: '▓', color: 'cyan', parts: ['adapters'] },
  { key: 'gradients', label: 'gradients', glyph: '▒', color: 'magenta', parts: ['gradients'] },
  { key: 'optimizer', label: 'optimizer', glyph: '░', color: 'yellow', parts: ['optimizer'] },
  { key: 'activations', label: 'activations', glyph: '▞', color: 'green', parts: ['activations'] },
  { key: 'logits', label: 'logits', glyph: '▚', color: 'red', parts: ['logits'] },
  { key: 'kvCache', label: 'KV cache', glyph: '▤', color: 'greenBright', parts: ['kvCache'] },
  { key: 'overhead', label: 'overhead', glyph: '▪', color: 'gray', parts: ['buffers', 'overhead'] },
] as const satisfies readonly {
  key: string;
  label: string;
  glyph: string;
  color: string;
  parts: readonly (keyof Breakdown)[];
}[];

export type MemoryGroup = (typeof MEMORY_GROUPS)[number]['key'];

export interface Segment {
  key: MemoryGroup | 'headroom';
  glyph: string;
  color: string | undefined;
  cells: number;
  bytes: number;
}

/** Bytes per group. */
export function groupBytes(b: Breakdown): { key: MemoryGroup; label: string; bytes: number }[] {
  return MEMORY_GROUPS.map((g) => ({
    key: g.key,
    label: g.label,
    bytes: g.parts.reduce((a, k) => a + b[k], 0),
  }));
}

/**
 * A stacked bar `width` cells wide for one GPU: each group's share of the capacity (largest remainder,
 * so the cells add up), then the headroom. Over capacity, the bar is scaled to the peak instead.
 */
export function memorySegments(b: Breakdown, capacityBytes: number, width: number): Segment[] {
  const groups = groupBytes(b);
  const used = groups.reduce((a, g) => a + g.bytes, 0);
  const scale = Math.max(capacityBytes, used, 1);
  const items = [
    ...groups.map((g) => ({ key: g.key as Segment['key'], bytes: g.bytes })),
    { key: 'headroom' as const, bytes: Math.max(0, capacityBytes - used) },
  ];
  const exact = items.map((i) => (i.bytes / scale) * width);
  const cells = exact.map(Math.floor);
  let left = width - cells.reduce((a, c) => a + c, 0);
  const order = exact
    .map((e, i) => ({ i, r: e - Math.floor(e) }))
    .sort((a, b) => b.r - a.r || a.i - b.i);
  for (const o of order) {
    if (left <= 0) break;
    if (items[o.i]!.bytes > 0) {
      cells[o.i]!++;
      left--;
    }
  }
  return items
    .map((it, i) => {
      const g = MEMORY_GROUPS.find((m) => m.key === it.key);
      return {
        key: it.key,
        glyph: g?.glyph ?? '·',
        color: g?.color,
        cells: cells[i]!,
        bytes: it.bytes,
      };
    })
    .filter((s) => s.cells > 0);
}

/** A plain bar: `fraction` of `width` filled. */
export function meter(fraction: number, width: number): string {
  const n = Math.max(0, Math.min(width, Math.round(fraction * width)));
  return '█'.repeat(n) + '·'.repeat(width - n);
}

export const gib = (bytes: number): string => formatGiB(bytes, 1);
