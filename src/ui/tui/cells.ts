/** Pure: table cells and memory/power bars as strings of exact widths, for the TUI components. */
import type { Breakdown } from '../../core/memory/index.js';
import type { Plan } from '../../core/plan/index.js';
import { formatDuration, formatGiB, formatInt, formatUsd, padLeft, padRight } from '../format.js';
import { hardwareOf, techniqueOf } from '../plan-text.js';

/** Cut to `n` characters with an ellipsis, then pad. */
export function fit(s: string, n: number, right = false): string {
  if (n <= 0) return '';
  const cut = s.length > n ? `${s.slice(0, Math.max(0, n - 1))}…` : s;
  return right ? padLeft(cut, n) : padRight(cut, n);
}

interface Col {
  title: string;
  width: number;
  right: boolean;
  cell: (p: Plan) => string;
}

const FIXED: Col[] = [
  { title: '#', width: 4, right: true, cell: (p) => String(p.rank) },
  {
    title: 'mem/GPU',
    width: 13,
    right: true,
    cell: (p) =>
      `${(p.memory.deviceBytes / 2 ** 30).toFixed(1)}/${(p.memory.capacityBytes / 2 ** 30).toFixed(0)} GiB`,
  },
  { title: 'time', width: 9, right: true, cell: (p) => formatDuration(p.time.hours) },
  { title: 'cost', width: 9, right: true, cell: (p) => formatUsd(p.cost.usd) },
  { title: 'wall W', width: 6, right: true, cell: (p) => formatInt(p.power.wallWatts) },
  { title: 'x fastest', width: 9, right: true, cell: (p) => `${p.slowdown.toFixed(2)}×` },
  { title: 'P', width: 1, right: false, cell: (p) => (p.onFront ? '*' : ' ') },
];

/** Below this width the table drops the wall-power column and shortens memory, so 80 columns read. */
export const NARROW = 100;

const NARROW_MEM: Col = {
  title: 'mem/GPU',
  width: 9,
  right: true,
  cell: (p) =>
    `${(p.memory.deviceBytes / 2 ** 30).toFixed(1)}/${(p.memory.capacityBytes / 2 ** 30).toFixed(0)}G`,
};

/** Columns for a table `width` characters wide: hardware and technique share what the fixed ones leave. */
export function tableColumns(width: number): Col[] {
  const sep = 1;
  const marker = 2;
  const narrow = width < NARROW;
  const fixedCols = narrow
    ? FIXED.filter((c) => c.title !== 'wall W').map((c) => (c.title === 'mem/GPU' ? NARROW_MEM : c))
    : FIXED;
  const fixed = fixedCols.reduce((a, c) => a + c.width + sep, 0);
  const flex = Math.max(20, width - marker - fixed - sep);
  const hw = Math.min(32, Math.floor(flex * 0.4));
  const tech = flex - hw - sep;
  const [rank, ...rest] = fixedCols;
  return [
    rank!,
    { title: 'hardware', width: hw, right: false, cell: hardwareOf },
    { title: 'technique', width: tech, right: false, cell: techniqueOf },
    ...rest,
  ];
}

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
