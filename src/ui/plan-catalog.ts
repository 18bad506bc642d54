/** Catalog listings as text tables. */
import { formatCount, formatInt, padRight } from './format.js';

export type CatalogKind = 'gpus' | 'models' | 'offers' | 'circuits';

type Row = Record<string, unknown>;
const COLUMNS: Record<CatalogKind, [string, (e: Row) => string][]> = {
  gpus: [
    ['id', (e) => String(e.id)],
    ['name', (e) => String(e.name)],
    ['memory', (e) => `${e.memoryGB} GB`],
    ['bandwidth', (e) => `${formatInt(Number(e.memoryBandwidthGBps))} GB/s`],
    ['bf16 TFLOPS', (e) => String((e.tflops as Row | undefined)?.bf16 ?? '—')],
    ['power', (e) => (e.boardPowerW ? `${formatInt(Number(e.boardPowerW))} W` : '—')],
  ],
  models: [
    ['id', (e) => String(e.id)],
    // Counted from the architecture (core/model/params.ts), as estimate reports them; MoE: total (active).
    [
      'parameters',
      (e) =>
        typeof e.params === 'number'
          ? `${formatCount(e.params)}${typeof e.activeParams === 'number' && e.activeParams < e.params ? ` (${formatCount(e.activeParams)} active)` : ''}`
          : '—',
    ],
    ['hfId', (e) => String(e.hfId ?? '—')],
  ],
  offers: [
    ['id', (e) => String(e.id)],
    ['gpu', (e) => String(e.gpuId)],
    ['per node', (e) => String(e.gpusPerNode)],
    ['$/GPU-h', (e) => Number(e.usdPerGpuHour).toFixed(2)],
    ['kind', (e) => String(e.kind)],
    ['as of', (e) => String(e.asOf)],
  ],
  circuits: [
    ['id', (e) => String(e.id)],
    ['name', (e) => String(e.name)],
    ['continuous', (e) => `${formatInt(Number(e.continuousWatts))} W`],
  ],
};

export function renderCatalogList(kind: CatalogKind, entries: readonly object[]): string {
  const cols = COLUMNS[kind];
  const rows = entries.map((e) => cols.map(([, f]) => f(e as Row)));
  const widths = cols.map(([t], i) => Math.max(t.length, ...rows.map((r) => r[i]!.length)));
  const line = (xs: string[]) =>
    xs
      .map((x, i) => padRight(x, widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(cols.map(([t]) => t)), ...rows.map(line)].join('\n');
}

/** One catalog entry as `key: value` lines (nested objects as compact JSON); `--json` prints it whole. */
/** A list row named by its repository (a model's quantized copies): shown by that name, `--json` has the rest. */
const isRepoRow = (x: unknown): x is { repo: string } =>
  typeof x === 'object' && x !== null && typeof (x as { repo?: unknown }).repo === 'string';

export function renderCatalogEntry(entry: object): string {
  const rows = Object.entries(entry).filter(([k]) => k !== 'config');
  const width = Math.max(...rows.map(([k]) => k.length));
  const shown = (v: unknown): string =>
    typeof v === 'string'
      ? v
      : typeof v === 'number'
        ? Number.isInteger(v) && Math.abs(v) >= 10_000
          ? formatInt(v)
          : String(v)
        : Array.isArray(v) && v.every((x) => typeof x === 'string')
          ? v.join(', ')
          : Array.isArray(v) && v.every(isRepoRow)
            ? v.map((x) => x.repo).join(', ')
            : JSON.stringify(v);
  return rows.map(([k, v]) => `${padRight(`${k}:`, width + 1)} ${shown(v)}`).join('\n');
}
