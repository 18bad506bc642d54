/**
 * The SVG export: per-GPU memory of the top plans as stacked bars on a GiB axis with each GPU's capacity
 * marked, and the Pareto front as a cost × slowdown scatter with labelled, ticked axes. Hand-written SVG
 * (no dependency); every mark has a <title> for hover text.
 */
import type { Plan, PlanResult } from '../core/plan/index.js';
import { formatDeviceMemory, formatGiB, formatUsd } from './format.js';
import { COMPONENT_LABEL } from './messages.js';
import { hardwareOf, techniqueOf } from './plan-text.js';

const esc = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * Eleven colours that stay apart for colour-blind readers too: Okabe-Ito's eight
 * (https://jfly.uni-koeln.de/color/) then three darker tones of Paul Tol's muted set
 * (https://personal.sron.nl/~pault/).
 */
const COLORS = [
  '#0072B2',
  '#E69F00',
  '#009E73',
  '#CC79A7',
  '#56B4E9',
  '#D55E00',
  '#F0E442',
  '#000000',
  '#882255',
  '#999933',
  '#AA4499',
];

type Key = keyof Plan['memory']['breakdown'];
const GIB = 2 ** 30;

/** Round steps (1, 2, 5 × 10^k) giving about `n` ticks over [lo, hi]. */
export function niceTicks(lo: number, hi: number, n = 5): number[] {
  const span = hi - lo;
  if (!(span > 0)) return [lo];
  const raw = span / n;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const out: number[] = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step)
    out.push(Number(v.toPrecision(12)));
  return out;
}

/** A dollar tick with as many decimals as the tick step needs (no two ticks print alike). */
function tickUsd(v: number, ticks: readonly number[]): string {
  const step = ticks.length > 1 ? Math.abs(ticks[1]! - ticks[0]!) : Math.abs(v) || 1;
  const decimals = Math.min(6, Math.max(0, -Math.floor(Math.log10(step))));
  return `$${v.toFixed(Math.max(decimals, step < 1 ? 2 : 0))}`;
}

/** `s` cut to `n` characters with an ellipsis. */
const clip = (s: string, n: number): string => (s.length <= n ? s : `${s.slice(0, n - 1)}…`);

/** Words of `s` in lines of at most `width` characters (a long word stays whole). */
export function wrapWords(s: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const w of s.split(' ')) {
    if (line && line.length + 1 + w.length > width) {
      lines.push(line);
      line = w;
    } else line = line ? `${line} ${w}` : w;
  }
  if (line) lines.push(line);
  return lines;
}

const text = (x: number, y: number, s: string, attrs = ''): string =>
  `<text x="${x.toFixed(1)}" y="${y.toFixed(1)}" ${attrs}>${esc(s)}</text>`;

const W = 960;
const LEFT = 300;
const RIGHT = 150;
const PLOT_W = W - LEFT - RIGHT;

/**
 * A bold heading of `size` px at (16, y), wrapped to the picture's width so that no word is cut off at its
 * right edge. A bold character is taken as 0.64 em wide: DejaVu Sans Bold (the first font-family named) advances
 * 0.55 em on average over the front caption's text (its hmtx table, read with fontTools), so 0.64 em leaves
 * room for capitals and a wider fallback font; a line every 1.25 em.
 */
export function heading(y: number, s: string, size: number): { svg: string[]; y: number } {
  const lines = wrapWords(s, Math.floor((W - 32) / (size * 0.64)));
  const step = Math.round(size * 1.25);
  return {
    svg: lines.map((l, i) => text(16, y + i * step, l, `font-size="${size}" font-weight="bold"`)),
    y: y + (lines.length - 1) * step,
  };
}

function memorySection(r: PlanResult, y0: number): { svg: string[]; y: number } {
  const plans = r.plans;
  const keys = (Object.keys(COMPONENT_LABEL) as Key[]).filter((k) =>
    plans.some((p) => (p.memory.breakdown[k] ?? 0) > 0),
  );
  const color = (k: Key) => COLORS[(Object.keys(COMPONENT_LABEL) as Key[]).indexOf(k) % 11]!;
  const maxGiB =
    Math.max(1, ...plans.map((p) => Math.max(p.memory.capacityBytes, p.memory.deviceBytes))) / GIB;
  let ticks = niceTicks(0, maxGiB, 6);
  if (ticks.at(-1)! < maxGiB) {
    const step = ticks.length > 1 ? ticks[1]! - ticks[0]! : maxGiB;
    ticks = [...ticks, ticks.at(-1)! + step];
  }
  const axisMax = ticks.at(-1)!;
  const xOf = (gib: number) => LEFT + (gib / axisMax) * PLOT_W;
  const head = heading(
    y0,
    `Per-GPU memory of the top ${plans.length} plans (device memory, as nvidia-smi reports it)`,
    16,
  );
  const out: string[] = [...head.svg];
  const barH = 20;
  const rowH = 52;
  const top = head.y + 20;
  const bottom = top + plans.length * rowH;
  for (const t of ticks)
    out.push(
      `<line x1="${xOf(t).toFixed(1)}" y1="${top}" x2="${xOf(t).toFixed(1)}" y2="${bottom}" stroke="#ddd"/>`,
      text(xOf(t), bottom + 16, `${t}`, 'font-size="11" text-anchor="middle"'),
    );
  out.push(
    `<line x1="${LEFT}" y1="${bottom}" x2="${LEFT + PLOT_W}" y2="${bottom}" stroke="#333"/>`,
    text(
      LEFT + PLOT_W / 2,
      bottom + 34,
      'GiB per GPU (2^30 bytes)',
      'font-size="12" text-anchor="middle"',
    ),
  );
  plans.forEach((p, i) => {
    const y = top + i * rowH + 8;
    out.push(
      // ~7 px per bold character at 12 px: cut the hardware label before the bars (full text on hover).
      `<g><title>${esc(hardwareOf(p))}</title>${text(16, y + 9, clip(`#${p.rank} ${hardwareOf(p)}`, Math.floor((LEFT - 28) / 7)), 'font-size="12" font-weight="bold"')}</g>`,
      // ~5.5 px per character at 10 px: the technique wraps inside the label column, clear of the bars.
      ...wrapWords(techniqueOf(p), Math.floor((LEFT - 28) / 5.5))
        .slice(0, 3)
        .map((l, j) => text(16, y + 22 + j * 11, l, 'font-size="10" fill="#444"')),
    );
    let x = LEFT;
    for (const k of keys) {
      const b = p.memory.breakdown[k] ?? 0;
      const w = (b / GIB / axisMax) * PLOT_W;
      if (w <= 0) continue;
      out.push(
        `<rect x="${x.toFixed(1)}" y="${y}" width="${w.toFixed(1)}" height="${barH}" fill="${color(k)}"><title>${esc(`${COMPONENT_LABEL[k]}: ${formatGiB(b)}`)}</title></rect>`,
      );
      x += w;
    }
    const cx = xOf(p.memory.capacityBytes / GIB);
    out.push(
      `<line x1="${cx.toFixed(1)}" y1="${y - 4}" x2="${cx.toFixed(1)}" y2="${y + barH + 4}" stroke="#c00" stroke-width="2" stroke-dasharray="4 2"><title>${esc(`capacity ${formatGiB(p.memory.capacityBytes, 1)}`)}</title></line>`,
      text(
        Math.max(x, cx) + 6,
        y + 14,
        `${formatDeviceMemory(p.memory.deviceBytes)} of ${formatGiB(p.memory.capacityBytes, 0)}`,
        'font-size="11"',
      ),
    );
  });
  // Legend: the components drawn, and the capacity marker.
  let ly = bottom + 52;
  const per = 4;
  const colW = (W - 32) / per;
  const items: [string, string][] = [
    ...keys.map((k): [string, string] => [color(k), COMPONENT_LABEL[k]]),
    ['capacity', 'GPU capacity (dashed red)'],
  ];
  items.forEach(([c, label], i) => {
    const lx = 16 + (i % per) * colW;
    if (i > 0 && i % per === 0) ly += 18;
    out.push(
      c === 'capacity'
        ? `<line x1="${lx + 6}" y1="${ly - 10}" x2="${lx + 6}" y2="${ly + 2}" stroke="#c00" stroke-width="2" stroke-dasharray="4 2"/>`
        : `<rect x="${lx}" y="${ly - 10}" width="12" height="12" fill="${c}"/>`,
      text(lx + 18, ly, label, 'font-size="12"'),
    );
  });
  return { svg: out, y: ly + 20 };
}

/**
 * Whether another plotted plan is at least as cheap and as fast as `p` and better on one: dominated on the
 * two axes the scatter plots (the front itself is over cost, x fastest and wall power, so a front plan can
 * be beaten on these two and kept for its lower power).
 */
export function dominatedOnAxes(p: Plan, pts: readonly Plan[]): boolean {
  return pts.some(
    (q) =>
      q !== p &&
      q.cost.usd <= p.cost.usd &&
      q.slowdown <= p.slowdown &&
      (q.cost.usd < p.cost.usd || q.slowdown < p.slowdown),
  );
}

/** The caption: what the points are and which of them no plotted plan beats on both axes. */
export function frontCaption(r: PlanResult): string {
  const pts = r.front.length > 0 ? r.front : r.plans;
  const what =
    r.front.length > 0
      ? 'Pareto front over cost, x fastest and wall power, plotted as cost against x fastest'
      : 'top plans, cost against x fastest';
  const beaten = pts.filter((p) => dominatedOnAxes(p, pts)).length;
  return beaten === 0
    ? `${what} (no plotted plan is cheaper and faster than another)`
    : `${what}; filled: no plotted plan is cheaper and faster; hollow (${beaten}): beaten on both${r.front.length > 0 ? ', on the front for lower wall power' : ''}`;
}

function frontSection(r: PlanResult, y0: number): { svg: string[]; y: number } {
  const pts = r.front.length > 0 ? r.front : r.plans;
  const head = heading(y0, frontCaption(r), 16);
  const out: string[] = [...head.svg];
  if (pts.length === 0)
    return { svg: [...out, text(16, head.y + 24, 'nothing fits', '')], y: head.y + 40 };
  const fh = 280;
  const top = head.y + 24;
  const costs = pts.map((p) => p.cost.usd);
  const slows = pts.map((p) => p.slowdown);
  const pad = (lo: number, hi: number) => {
    const d = hi - lo || Math.max(Math.abs(hi) * 0.1, 1e-6);
    return [lo - d * 0.08, hi + d * 0.08] as const;
  };
  const [c0, c1] = pad(Math.min(...costs), Math.max(...costs));
  const [s0, s1] = pad(Math.min(...slows), Math.max(...slows));
  const xOf = (c: number) => LEFT + ((c - c0) / (c1 - c0)) * PLOT_W;
  const yOf = (s: number) => top + fh - ((s - s0) / (s1 - s0)) * fh;
  out.push(
    `<rect x="${LEFT}" y="${top}" width="${PLOT_W}" height="${fh}" fill="none" stroke="#333"/>`,
  );
  const xTicks = niceTicks(c0, c1, 6);
  for (const t of xTicks)
    out.push(
      `<line x1="${xOf(t).toFixed(1)}" y1="${top}" x2="${xOf(t).toFixed(1)}" y2="${top + fh}" stroke="#eee"/>`,
      text(xOf(t), top + fh + 16, tickUsd(t, xTicks), 'font-size="11" text-anchor="middle"'),
    );
  for (const t of niceTicks(s0, s1, 5))
    out.push(
      `<line x1="${LEFT}" y1="${yOf(t).toFixed(1)}" x2="${LEFT + PLOT_W}" y2="${yOf(t).toFixed(1)}" stroke="#eee"/>`,
      text(LEFT - 8, yOf(t) + 4, `${t.toFixed(2)}×`, 'font-size="11" text-anchor="end"'),
    );
  out.push(
    text(
      LEFT + PLOT_W / 2,
      top + fh + 36,
      'job cost (USD: rent, energy, purchase or amortisation)',
      'font-size="12" text-anchor="middle"',
    ),
    text(
      LEFT - 60,
      top + fh / 2,
      "x fastest (plan hours / fastest plan's hours)",
      `font-size="12" text-anchor="middle" transform="rotate(-90 ${LEFT - 60} ${top + fh / 2})"`,
    ),
  );
  const rankOf = new Map(r.plans.map((p) => [p.id, p.rank]));
  // Labels that would overlap a placed one are left to the hover title.
  const placed: [number, number][] = [];
  const free = (x: number, y: number) =>
    placed.every(([px, py]) => Math.abs(py - y) > 14 || Math.abs(px - x) > 190);
  const order = (p: Plan) => rankOf.get(p.id) ?? Infinity;
  for (const p of [...pts].sort((a, b) => order(a) - order(b))) {
    const rank = rankOf.get(p.id) ?? null;
    const x = xOf(p.cost.usd);
    const y = yOf(p.slowdown);
    const beaten = dominatedOnAxes(p, pts);
    const paint = beaten
      ? 'fill="white" stroke="#0072B2" stroke-width="2"'
      : 'fill="#0072B2" stroke="white"';
    out.push(
      `<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="5" ${paint}><title>${esc(`${rank ? `#${rank} ` : ''}${p.id}: ${formatUsd(p.cost.usd)}, ${p.slowdown.toFixed(2)}×, ${p.power.wallWatts} W${beaten ? ' (beaten on cost and x fastest by a plotted plan)' : ''}`)}</title></circle>`,
    );
    if (!free(x, y)) continue;
    placed.push([x, y]);
    out.push(
      text(
        x + 8,
        y - 6,
        `${rank ? `#${rank} ` : ''}${p.hardware.gpus}× ${p.hardware.gpuId}, ${p.choices.method}`,
        'font-size="11"',
      ),
    );
  }
  return { svg: out, y: top + fh + 56 };
}

/** The whole export: memory bars, then the front. */
export function planSvg(r: PlanResult): string {
  const title = heading(26, r.scenario.name, 20);
  const parts: string[] = [...title.svg];
  let y = title.y + 34;
  if (r.plans.length > 0) {
    const mem = memorySection(r, y);
    parts.push(...mem.svg);
    y = mem.y + 20;
  }
  const front = frontSection(r, y);
  parts.push(...front.svg);
  const H = Math.ceil(front.y);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif">\n<rect width="100%" height="100%" fill="white"/>\n${parts.join('\n')}\n</svg>\n`;
}
