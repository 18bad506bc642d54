// `vllm bench serve`'s client is one asyncio process that reads and parses every SSE chunk of every stream. Its CPU
// per request and per chunk in a burst was measured with the request functions of the v0.11.0 and v0.19.0 wheels,
// unchanged, against a stand-in server (scripts/measure/vllm_bench_client.py; fixture
// test/fixtures/measure/vllm-bench-client.json). A burst's wall time is at least the client's CPU time; at the
// dearest measured cost (one event a read) the client stays far below every scored burst's duration, which is why
// no client bound is carried (docs/time-model.md "The benchmark client in a burst, measured").
import { describe, expect, it } from 'vitest';
import { loadThroughputCases } from '../../src/io/load-calibration.js';
import { readMeasureFixture } from '../helpers/measured.js';

interface Split {
  streams: number;
  chunk_us: number;
  request_us: number;
}
interface Run {
  wheel: string;
  endpoint: string;
  step_s: number;
  versions: Record<string, string>;
  rows: { streams: number; tokens: number; chunks: number; reads: number }[];
  split: Split[];
}
const FIXTURE = readMeasureFixture('vllm-bench-client.json') as { runs: Run[] };

/** The dearest measured client cost at 64 or more streams: per request and per chunk, in seconds. */
function dearest(): { request: number; chunk: number } {
  const s = FIXTURE.runs.flatMap((r) => r.split.filter((x) => x.streams >= 64));
  return {
    request: Math.max(...s.map((x) => x.request_us)) * 1e-6,
    chunk: Math.max(...s.map((x) => x.chunk_us)) * 1e-6,
  };
}

// robertgshaw2-redhat/benchmark-single-token's bursts (`rgshaw-*`) are not `vllm bench serve`'s: its client sends 100
// non-streamed HTTP requests of 250 prompts each, so the per-request and per-chunk costs above do not apply.
const bursts = loadThroughputCases('throughput.json').filter(
  (c) => c.metric === 'batch_latency_s' && c.id.includes('burst') && !c.id.startsWith('rgshaw-'),
);

describe("vllm bench serve's client in a burst", () => {
  it('was measured with both wheels, completions and chat, at 1 to 500 streams', () => {
    expect(FIXTURE.runs.map((r) => r.wheel).sort()).toEqual([
      '0.11.0',
      '0.11.0',
      '0.11.0',
      '0.19.0',
      '0.19.0',
      '0.19.0',
    ]);
    for (const r of FIXTURE.runs) {
      expect(r.split.map((x) => x.streams).slice(0, 3)).toEqual([1, 64, 500]);
      for (const row of r.rows) expect(row.chunks).toBeGreaterThanOrEqual(row.streams * row.tokens);
    }
  });

  it('pays per chunk more when each read carries one event (paced) than when events merge (unpaced)', () => {
    const at64 = (endpoint: string, paced: boolean, wheel: string) =>
      FIXTURE.runs
        .find((r) => r.wheel === wheel && r.endpoint === endpoint && r.step_s > 0 === paced)!
        .split.find((x) => x.streams === 64)!.chunk_us;
    for (const w of ['0.11.0', '0.19.0']) {
      expect(at64('completions', true, w)).toBeGreaterThan(at64('completions', false, w));
    }
  });

  it("takes under a third of every scored burst's duration at its dearest measured cost", () => {
    expect(bursts.length).toBeGreaterThanOrEqual(30);
    const { request, chunk } = dearest();
    for (const c of bursts) {
      const n = Number(c.flags.batch);
      const out = Number(c.flags.seq) - Number(c.flags['prompt-tokens']);
      const client = n * (request + out * chunk);
      expect(client / c.measured_value, c.id).toBeLessThan(1 / 3);
    }
  });
});
