/**
 * What the signed error of `validate --throughput`'s serving and decode rows follows, like with like: rows of one
 * source that differ in one input only (the requests in flight, the context, or the GPU), then pooled across sources
 * by vendor, dense or MoE, in-flight bucket and the decode-attention share of the estimate's step (the phases of
 * `estimate` for the row's own flags). Out-of-sample rows only. An analysis tool, not a test; the tables it prints are
 * read in docs/time-model.md ("Serving steps that grow with the batch: what the error follows across sources").
 *
 *   npx tsx scripts/serving-residuals.ts
 */
import { throughputRows } from '../src/commands/validate-throughput.js';
import { caseArch, loadThroughputCases } from '../src/io/load-calibration.js';
import { findGpu } from '../src/io/load-catalog.js';
import { estimateTime } from '../src/core/time/index.js';
import { modelFacts } from '../src/core/time/model-facts.js';
import { optionsFromFlags, type RawFlags } from '../src/schema/flags.js';
import { timeOptionsFromFlags } from '../src/schema/time.js';
import type { ThroughputCase } from '../src/schema/calibration.js';

interface Row {
  id: string;
  source: string;
  metric: string;
  model: string;
  flags: Record<string, unknown>;
  gpu: string;
  vendor: string;
  moe: boolean;
  batch: number;
  seq: number;
  error: number;
  measured: number;
  estimated: number;
  /** The decode-attention (decode-kv) phase's share of the estimate's step for the row's flags. */
  kvShare: number;
}

const flat = (flags: Record<string, unknown>): RawFlags =>
  Object.fromEntries(
    Object.entries(flags).map(([k, v]) => [k, Array.isArray(v) ? v.join(',') : v]),
  ) as RawFlags;

function kvShareOf(c: ThroughputCase): number {
  try {
    const flags = flat(c.flags);
    const o = optionsFromFlags(flags);
    const t = estimateTime(
      caseArch(c),
      o,
      findGpu(String(flags.gpu)),
      timeOptionsFromFlags(flags, o),
    );
    const kv = t.phases.find((p) => p.phase === 'decode-kv')?.seconds ?? 0;
    return t.stepSeconds > 0 ? kv / t.stepSeconds : 0;
  } catch {
    return 0;
  }
}

function load(): Row[] {
  const cases = new Map(loadThroughputCases().map((c) => [c.id, c]));
  const out: Row[] = [];
  for (const r of throughputRows()) {
    const c = cases.get(r.id);
    if (c === undefined || r.inSample || (r.kind !== 'serving' && r.kind !== 'decode')) continue;
    const flags = c.flags as Record<string, unknown>;
    const gpu = String(flags.gpu);
    const m = modelFacts(caseArch(c));
    out.push({
      id: r.id,
      source: r.source,
      metric: c.metric,
      model: c.model_hf_id ?? c.config_file,
      flags,
      gpu,
      vendor: findGpu(gpu).vendor,
      moe: m.experts > 1,
      batch: Number(flags.batch ?? 1),
      seq: Number(flags.seq ?? 0),
      error: r.error,
      measured: r.measured,
      estimated: r.estimated,
      kvShare: kvShareOf(c),
    });
  }
  return out;
}

const pct = (x: number): string => `${x >= 0 ? '+' : ''}${(100 * x).toFixed(1)}%`;
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const h = Math.floor(s.length / 2);
  return s.length % 2 ? s[h]! : (s[h - 1]! + s[h]!) / 2;
};

/** Least-squares slope of ln(1 + error) over log2(x): the error's change per doubling of x. */
function slope(rows: Row[], x: (r: Row) => number): number {
  const xs = rows.map((r) => Math.log2(x(r)));
  const ys = rows.map((r) => Math.log(1 + Math.max(r.error, -0.99)));
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  const sxx = xs.reduce((a, v) => a + (v - mx) ** 2, 0);
  return sxx > 0 ? xs.reduce((a, v, i) => a + (v - mx) * (ys[i]! - my), 0) / sxx : 0;
}

/**
 * Rows of one source, metric and model whose flags differ in `varied` only, two or more values of it (a numeric one
 * spanning at least 1.5x, so that a slope a doubling is not read off two near-equal values).
 */
function families(rows: Row[], varied: string[], by: (r: Row) => number | string): Row[][] {
  const groups = new Map<string, Row[]>();
  for (const r of rows) {
    const rest = Object.fromEntries(Object.entries(r.flags).filter(([k]) => !varied.includes(k)));
    const key = JSON.stringify([r.source, r.metric, r.model, rest]);
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const spans = (g: Row[]): boolean => {
    const xs = g.map(by);
    if (typeof xs[0] !== 'number') return new Set(xs).size > 1;
    const ns = xs as number[];
    return Math.max(...ns) >= 1.5 * Math.min(...ns);
  };
  return [...groups.values()].filter(spans);
}

function inFlightTable(rows: Row[]): void {
  console.log(
    '\n## Error against requests in flight, within a source (slope: ln(1 + error) a doubling)',
  );
  console.log(
    'slope | source | engine GPU | MoE | errors by in-flight | marginal step per request (ms), meas / est',
  );
  for (const g of families(rows, ['batch', 'num-prompts'], (r) => r.batch)
    .map((f) => f.sort((a, b) => a.batch - b.batch))
    .sort((a, b) => slope(b, (r) => r.batch) - slope(a, (r) => r.batch))) {
    const a = g[0]!;
    const z = g[g.length - 1]!;
    // A latency row's step: its measured and estimated TPOT; the growth a request added between the ends.
    const marginal =
      a.metric === 'tpot_s'
        ? `${((1e3 * (z.measured - a.measured)) / (z.batch - a.batch)).toFixed(3)} / ${((1e3 * (z.estimated - a.estimated)) / (z.batch - a.batch)).toFixed(3)}`
        : '-';
    console.log(
      `${slope(g, (r) => r.batch).toFixed(3)} | ${a.source} | ${String(a.flags.framework)} ${a.gpu} | ${a.moe ? 'MoE' : 'dense'} | ${g.map((r) => `${r.batch}: ${pct(r.error)}`).join(', ')} | ${marginal}`,
    );
  }
}

function contextTable(rows: Row[]): void {
  console.log('\n## Error against context at a fixed batch, within a source');
  const fams = families(rows, ['seq', 'prompt-tokens', 'num-prompts'], (r) => r.seq);
  for (const g of fams.map((f) => f.sort((a, b) => a.seq - b.seq))) {
    const a = g[0]!;
    console.log(
      `${slope(g, (r) => r.seq).toFixed(3)} | ${a.source} | ${String(a.flags.framework)} ${a.gpu} b${a.batch} | ${g.map((r) => `${r.seq}: ${pct(r.error)} (kv ${r.kvShare.toFixed(2)})`).join(', ')}`,
    );
  }
  const slopes = fams.map((g) => slope(g, (r) => r.seq));
  console.log(`median slope ${median(slopes).toFixed(3)} over ${slopes.length} families`);
}

function gpuTable(rows: Row[]): void {
  console.log('\n## The same run on several GPUs, within a source');
  for (const g of families(rows, ['gpu', 'power-limit'], (r) => r.gpu)) {
    const a = g[0]!;
    console.log(
      `${a.source} | ${a.model} b${a.batch} | ${g.map((r) => `${r.gpu}: ${pct(r.error)}`).join(', ')}`,
    );
  }
}

function pooled(rows: Row[], name: string, key: (r: Row) => string): void {
  console.log(`\n## Pooled across sources: ${name}`);
  const groups = new Map<string, Row[]>();
  for (const r of rows) groups.set(key(r), [...(groups.get(key(r)) ?? []), r]);
  for (const [k, g] of [...groups.entries()].sort(([a], [b]) => a.localeCompare(b))) {
    const e = g.map((r) => r.error);
    const over = e.filter((x) => x > 0.25).length / e.length;
    console.log(
      `${k} | n ${g.length} | median signed ${pct(median(e))} | median |e| ${pct(median(e.map(Math.abs)))} | over +25% ${(100 * over).toFixed(0)}%`,
    );
  }
}

const bucket = (b: number): string =>
  b <= 1 ? '1' : b <= 8 ? '2-8' : b <= 32 ? '9-32' : b <= 128 ? '33-128' : '>128';
const kvBucket = (s: number): string => (s < 0.05 ? '<0.05' : s < 0.15 ? '0.05-0.15' : '>=0.15');

const rows = load();
inFlightTable(rows);
contextTable(rows);
gpuTable(rows);
pooled(
  rows,
  'vendor, MoE, in flight',
  (r) => `${r.vendor} ${r.moe ? 'MoE' : 'dense'} ${bucket(r.batch)}`,
);
pooled(rows, 'vendor, decode-kv share of the step', (r) => `${r.vendor} kv ${kvBucket(r.kvShare)}`);
