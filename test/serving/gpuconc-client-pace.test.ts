// sariekr/gpu_conc's own client (concurrency.py @a9fa3ba, `run_benchmark` unchanged) against a stand-in server that
// steps every stream together (scripts/measure/gpuconc_client_pace.py; fixture
// test/fixtures/measure/gpuconc-client-pace.json): request by request, the client's output speed over the server's
// write pace. A one-process asyncio client passes a server's pace on while the chunks a second it must read x its CPU a
// chunk fit the core share it gets, and reads slower once they do not; the rows' own files at 32 clients show the
// same client, on the same hosts, reading more chunks a second than any of their 16-client rows asks.
import { describe, expect, it } from 'vitest';
import { loadThroughputCases } from '../../src/io/load-calibration.js';
import { readMeasureFixture } from '../helpers/measured.js';

interface PaceRow {
  streams: number;
  paired_requests: number;
  paired_ratio_median: number;
  server_median_speed: number;
  client_cpu_us_per_chunk_whole_run: number;
  client_cpu_util_whole_run: number;
  server_streams_in_flight_mean: number | null;
}
interface PaceRun {
  step_s: number;
  tokens_per_request: number;
  rows: PaceRow[];
}
const FIXTURE = readMeasureFixture('gpuconc-client-pace.json') as {
  client: string;
  versions: Record<string, string>;
  runs: PaceRun[];
};

const paced4 = FIXTURE.runs.find((r) => r.step_s === 0.004)!;
const paced10 = FIXTURE.runs.find((r) => r.step_s === 0.01)!;
const unpaced = FIXTURE.runs.find((r) => r.step_s === 0)!;
const rows = loadThroughputCases('throughput.json').filter((c) =>
  c.id.startsWith('gpuconc-gptoss20b-'),
);

/** The chunks a second the client read in a run: streams in flight x the server's pace x the client's share of it. */
function clientChunksPerSecond(r: PaceRow): number {
  return (
    (r.server_streams_in_flight_mean ?? r.streams) * r.server_median_speed * r.paired_ratio_median
  );
}

// The 32-client files of the rows' runs (sariekr/gpu_conc @dac6dc558ecf9ae2d517f29bd9c3123b87a48e70 H100/, H200/, b200/
// benchmark_concurrency_32.json; @4e2ef87 MI300X/): requests_per_second and median_end_to_end_latency (s), and
// median_output_speed_per_query. Little's law: in flight = requests a second x E2E; chunks a second = that x speed.
const FILES_AT_32: Record<string, { rps: number; e2e: number; speed: number }> = {
  'h100-pcie': { rps: 2.0641, e2e: 12.5451, speed: 78.9834 },
  'h200-sxm': { rps: 2.0999, e2e: 9.6389, speed: 103.0031 },
  b200: { rps: 2.0795, e2e: 11.2402, speed: 88.5289 },
  mi300x: { rps: 1.873, e2e: 17.777, speed: 56.1292 },
};

describe("gpu_conc's client, run against a step-clocked server", () => {
  it('is the runs’ client with the SDK of August 2025', () => {
    expect(FIXTURE.client).toContain('a9fa3ba1314c409e078b2065522dfd594ca78831');
    expect(FIXTURE.versions.openai).toMatch(/^1\.99\./);
    for (const run of [paced4, paced10, unpaced]) {
      expect(run.rows.length).toBeGreaterThan(0);
      for (const r of run.rows) expect(r.paired_requests).toBeGreaterThan(0);
    }
  });

  it('passes the pace on at the rows’ chunk rate with 16 streams in flight', () => {
    const busiest = Math.max(...rows.map((c) => Number(c.flags.batch) / c.measured_value));
    for (const r of paced10.rows) {
      expect(r.server_streams_in_flight_mean!).toBeGreaterThan(15);
      expect(Math.abs(r.paired_ratio_median - 1)).toBeLessThan(0.01);
      // 84-96 tok/s a stream, 1,350-1,540 chunks a second: within 25% of the busiest row's 1,771
      expect(clientChunksPerSecond(r)).toBeGreaterThan(0.75 * busiest);
    }
  });

  it('passes the pace on at 1, 4 and 8 streams of 4 ms steps', () => {
    for (const r of paced4.rows.filter((x) => x.streams <= 8)) {
      expect(Math.abs(r.paired_ratio_median - 1), `${r.streams} streams`).toBeLessThan(0.01);
    }
  });

  it('reads slower than the server once the chunks a second outrun its CPU share', () => {
    // unpaced, the server writes a request's chunks in tens of ms: the client's reading is the figure
    for (const r of unpaced.rows) expect(r.paired_ratio_median).toBeLessThan(0.2);
    // 16 streams of 4 ms steps ask 3,000-4,000 chunks a second; where the shared VM left the client a quarter of a
    // core, it read at CPU share / CPU a chunk and fell behind
    const starved = paced4.rows.filter((x) => x.streams === 16 && x.paired_ratio_median < 0.9);
    expect(starved.length).toBeGreaterThan(0);
    for (const r of starved) {
      const ceiling = r.client_cpu_util_whole_run / (r.client_cpu_us_per_chunk_whole_run * 1e-6);
      expect(clientChunksPerSecond(r) / ceiling).toBeGreaterThan(0.7);
      expect(clientChunksPerSecond(r) / ceiling).toBeLessThan(1.3);
    }
  });

  it('read more chunks a second at 32 clients, with workers to spare, than every 16-client row asks', () => {
    for (const c of rows.filter((x) => Number(x.flags.batch) === 16)) {
      const f = FILES_AT_32[String(c.gpu)]!;
      expect(f, c.id).toBeDefined();
      const inFlight = f.rps * f.e2e;
      const asked = 16 / c.measured_value;
      expect(inFlight * f.speed, c.id).toBeGreaterThan(asked);
      // the NVIDIA files' producer (2 requests a second) left workers idle: the pipeline was not saturated
      if (c.gpu !== 'mi300x') expect(inFlight, c.id).toBeLessThan(32);
    }
  });
});
