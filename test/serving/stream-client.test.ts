// A one-process asyncio client streaming chat completions through the OpenAI SDK spends CPU per chunk (SSE decode,
// JSON, the SDK's chunk model, the caller's own per-chunk work), overlapped with the server's steps; it bounds a
// closed loop's per-request output rate only where the chunks it must read per second x that cost fills its core.
// Measured for sariekr/gpu_conc's client (concurrency.py @a9fa3ba; fixture test/fixtures/measure/stream-client-chunk.json
// from scripts/measure/stream_client_chunk.py). Its rows (1-16 streamed requests in flight) ask for far less than a
// core of it, which is why they stay scored with no harness cost.
import { describe, expect, it } from 'vitest';
import { loadThroughputCases } from '../../src/io/load-calibration.js';
import { readMeasureFixture } from '../helpers/measured.js';

interface ClientRow {
  streams: number;
  chunks: number;
  client_cpu_us_per_chunk: number;
  chunks_per_s: number;
  util: number;
}
const FIXTURE = readMeasureFixture('stream-client-chunk.json') as {
  versions: Record<string, string>;
  rows: ClientRow[];
  unpaced: { rows: ClientRow[] };
};

/** The client's CPU seconds per chunk with `streams` in flight: the measured row at the nearest count at or below. */
function cpuPerChunk(streams: number): number {
  const below = FIXTURE.rows.filter((r) => r.streams <= streams);
  const row = below.length > 0 ? below[below.length - 1]! : FIXTURE.rows[0]!;
  return row.client_cpu_us_per_chunk * 1e-6;
}

const rows = loadThroughputCases('throughput.json').filter((c) => c.id.startsWith('gpuconc-'));

describe("gpu_conc's streaming client", () => {
  it('is measured with the SDK of the runs, for 1 to 16 streams', () => {
    expect(FIXTURE.versions.openai).toMatch(/^1\.99\./);
    expect(FIXTURE.rows.map((r) => r.streams)).toEqual([1, 4, 8, 16]);
    for (const r of [...FIXTURE.rows, ...FIXTURE.unpaced.rows]) {
      expect(r.chunks).toBeGreaterThan(0);
      expect(r.client_cpu_us_per_chunk).toBeGreaterThan(0);
    }
  });

  it('uses under half a core at every scored row’s chunk rate', () => {
    expect(rows.length).toBeGreaterThanOrEqual(16);
    for (const c of rows) {
      expect(c.metric, c.id).toBe('tpot_s');
      const streams = Number(c.flags.batch);
      const chunksPerSecond = streams / c.measured_value;
      expect(chunksPerSecond * cpuPerChunk(streams), c.id).toBeLessThan(0.5);
    }
  });

  it('kept pace with more chunks a second than any scored row asks', () => {
    const busiest = Math.max(...rows.map((c) => Number(c.flags.batch) / c.measured_value));
    const measured = FIXTURE.rows[FIXTURE.rows.length - 1]!;
    expect(measured.util).toBeLessThan(1);
    expect(measured.chunks_per_s).toBeGreaterThan(busiest);
  });
});
