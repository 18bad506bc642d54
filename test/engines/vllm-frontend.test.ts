// vLLM's API-server process works per streamed token and request (OutputProcessor's detokenizer and stop checks,
// then the chat stream's harmony parser, pydantic chunk and JSON line), overlapped with the engine core's steps;
// it bounds the output rate only where in-flight requests x that work exceeds a step. Measured for vLLM 0.10.1's
// gpt-oss chat path (fixture: test/fixtures/measure/vllm-frontend-token.json, scripts/measure/vllm_frontend_token.py).
// The sariekr/gpu_conc rows (1-16 streamed requests in flight) sit far from that bound, measured and estimated,
// which is why the time model carries no frontend floor for them.
import { describe, expect, it } from 'vitest';
import { throughputRows } from '../../src/commands/validate-throughput.js';
import { loadThroughputCases } from '../../src/io/load-calibration.js';
import { readMeasureFixture } from '../helpers/measured.js';

interface FrontendRow {
  requests: number;
  engine_side_us: number;
  server_side_us: number;
  together_cpu_us: number;
  http_send_cpu_us: number;
}
const FIXTURE = readMeasureFixture('vllm-frontend-token.json') as {
  vllm: string;
  rows: FrontendRow[];
};

/** The largest per-token-per-request CPU cost measured (processing and HTTP send), in seconds. */
const frontendSeconds =
  Math.max(...FIXTURE.rows.map((r) => r.together_cpu_us + r.http_send_cpu_us)) * 1e-6;
const cases = new Map(loadThroughputCases('throughput.json').map((c) => [c.id, c]));
const gpuconc = throughputRows('throughput.json').filter((r) => r.id.startsWith('gpuconc-'));

describe("vLLM's API-server work per streamed token", () => {
  it('is measured on the release the rows assume, for 1 to 16 streams', () => {
    expect(FIXTURE.vllm).toMatch(/^0\.10\.1 /);
    expect(FIXTURE.rows.map((r) => r.requests)).toEqual([1, 4, 8, 16]);
    for (const r of FIXTURE.rows) {
      expect(r.together_cpu_us).toBeGreaterThan(0);
      expect(r.engine_side_us + r.server_side_us).toBeGreaterThan(0);
      expect(r.http_send_cpu_us).toBeGreaterThan(0);
    }
  });

  it('stays under a fifth of every gpu_conc step, measured and estimated', () => {
    expect(gpuconc.length).toBeGreaterThanOrEqual(16);
    for (const row of gpuconc) {
      const batch = Number(cases.get(row.id)?.flags.batch ?? 0);
      expect(batch).toBeGreaterThan(0);
      const frontend = batch * frontendSeconds;
      expect(frontend, row.id).toBeLessThan(row.measured / 5);
      expect(frontend, row.id).toBeLessThan(row.estimated / 5);
    }
  });
});
