/**
 * Serving metrics read back from Prometheus text (vLLM's and SGLang's /metrics, llama-server's /metrics with
 * --metrics): time to first token, time per output token, generation throughput and the concurrency observed.
 * Pure: text in, figures out. Several scrapes of one file are split on the probe's "# vramplan-scrape" lines;
 * a plain dump is one scrape (totals since the server started). Each serving engine's metric names are its
 * registration's `metrics` (the engine folders' metrics.ts).
 */
import { engineDefs } from '../engines/store.js';
import type { ServingEngine, ServingMetrics } from './readers.js';

export type { ServingEngine } from './readers.js';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Scrape {
  port: number | null;
  /** Unix seconds of the scrape, when the probe recorded it. */
  t: number | null;
  samples: Sample[];
}

/** The Prometheus text exposition format, one sample per line (https://prometheus.io/docs/instrumenting/exposition_formats/). */
export function parseSamples(text: string): Sample[] {
  const out: Sample[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const m = /^([A-Za-z_:][\w:]*)(\{([^}]*)\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[3] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    const value = Number(m[4]);
    if (Number.isFinite(value)) out.push({ name: m[1]!, labels, value });
  }
  return out;
}

export function parseScrapes(text: string): Scrape[] {
  const parts = text.split(/^# vramplan-scrape /m);
  const scrapes: Scrape[] = [];
  parts.forEach((part, i) => {
    if (i === 0) {
      const samples = parseSamples(part);
      if (samples.length > 0) scrapes.push({ port: null, t: null, samples });
      return;
    }
    const head = /^port=(\d+) t=([\d.]+)/.exec(part);
    scrapes.push({
      port: head ? Number(head[1]) : null,
      t: head ? Number(head[2]) : null,
      samples: parseSamples(part),
    });
  });
  return scrapes;
}

/** Every registered serving engine's metric names, in registration order. */
const servingMetrics = (): ServingMetrics[] =>
  engineDefs().flatMap((d) => (d.metrics ? [d.metrics] : []));

/** The metric names of the engine that exported `samples` (the first registered whose prefix one carries). */
function metricsOf(samples: readonly Sample[]): ServingMetrics | null {
  return servingMetrics().find((m) => samples.some((s) => s.name.startsWith(m.prefix))) ?? null;
}

/** The name of the serving engine that exported `samples` (its registration's `metrics`), or null. */
export const servingEngineOf = (samples: readonly Sample[]): ServingEngine | null =>
  metricsOf(samples)?.engine ?? null;

export interface ServingFigures {
  engine: ServingEngine | null;
  /** Mean time to first token over the requests the window saw, s. */
  ttftSeconds: number | null;
  /** Mean time per output token after the first, s. */
  tpotSeconds: number | null;
  /** Generated tokens per second, all replicas (needs two scrapes). */
  throughputTokensPerSecond: number | null;
  /** Mean requests running at once per replica over the scrapes. */
  concurrency: number | null;
  requests: number;
  scrapes: number;
}

/** Sum of a metric's samples (all label sets: models, TP ranks). */
const total = (samples: readonly Sample[], name: string): number | null => {
  const xs = samples.filter((s) => s.name === name);
  return xs.length ? xs.reduce((a, s) => a + s.value, 0) : null;
};

/** Δsum / Δcount of a histogram between two scrapes (or since the start with one). */
function histogramMean(
  first: readonly Sample[] | null,
  last: readonly Sample[],
  names: readonly string[],
): { mean: number; count: number } | null {
  for (const name of names) {
    const s1 = total(last, `${name}_sum`);
    const c1 = total(last, `${name}_count`);
    if (s1 === null || c1 === null) continue;
    const s0 = first ? (total(first, `${name}_sum`) ?? 0) : 0;
    const c0 = first ? (total(first, `${name}_count`) ?? 0) : 0;
    if (c1 - c0 > 0) return { mean: (s1 - s0) / (c1 - c0), count: c1 - c0 };
  }
  return null;
}

/** The serving figures of one file of scrapes (one port or several: grouped by port, then combined). */
export function servingFigures(text: string): ServingFigures {
  const scrapes = parseScrapes(text);
  const all = scrapes.flatMap((s) => s.samples);
  const names = metricsOf(all);
  const empty: ServingFigures = {
    engine: names?.engine ?? null,
    ttftSeconds: null,
    tpotSeconds: null,
    throughputTokensPerSecond: null,
    concurrency: null,
    requests: 0,
    scrapes: scrapes.length,
  };
  if (names === null) return empty;
  const byPort = new Map<number | null, Scrape[]>();
  for (const s of scrapes) byPort.set(s.port, [...(byPort.get(s.port) ?? []), s]);
  let ttftSum = 0;
  let ttftN = 0;
  let tpotSum = 0;
  let tpotN = 0;
  let throughput: number | null = null;
  const running: number[] = [];
  for (const list of byPort.values()) {
    const first = list.length > 1 ? list[0]!.samples : null;
    const last = list[list.length - 1]!.samples;
    const ttft = histogramMean(first, last, names.ttft);
    if (ttft) {
      ttftSum += ttft.mean * ttft.count;
      ttftN += ttft.count;
    }
    const tpot = histogramMean(first, last, names.tpot);
    if (tpot) {
      tpotSum += tpot.mean * tpot.count;
      tpotN += tpot.count;
    } else if (names.tpotCounters) {
      const [secs, toks] = names.tpotCounters;
      const dS = (total(last, secs) ?? 0) - (first ? (total(first, secs) ?? 0) : 0);
      const dT = (total(last, toks) ?? 0) - (first ? (total(first, toks) ?? 0) : 0);
      if (dS > 0 && dT > 0) {
        tpotSum += dS;
        tpotN += dT;
      }
    }
    const t0 = list[0]!.t;
    const t1 = list[list.length - 1]!.t;
    const g0 = total(list[0]!.samples, names.generated);
    const g1 = total(last, names.generated);
    if (list.length > 1 && t0 !== null && t1 !== null && t1 > t0 && g0 !== null && g1 !== null)
      throughput = (throughput ?? 0) + (g1 - g0) / (t1 - t0);
    for (const s of list) {
      const r = total(s.samples, names.running);
      if (r !== null) running.push(r);
    }
  }
  return {
    ...empty,
    ttftSeconds: ttftN > 0 ? ttftSum / ttftN : null,
    tpotSeconds: tpotN > 0 ? tpotSum / tpotN : null,
    throughputTokensPerSecond: throughput,
    concurrency: running.length ? running.reduce((a, b) => a + b, 0) / running.length : null,
    requests: ttftN,
  };
}
