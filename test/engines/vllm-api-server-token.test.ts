// vLLM's API server per streamed token, measured with the v0.11.0 wheel's own chat and completions paths against a
// fake engine core that steps every request in flight (scripts/measure/vllm_api_server_token.py; fixture
// test/fixtures/measure/vllm-api-server-token.json): one run where each token is its own chunk, one where the
// server's loop runs step after step and the collector merges a request's tokens. The profile's tokenSeconds is the
// merged median, the floor of a server that has fallen behind. The whole server (uvicorn, FastAPI, the completions
// route, the stats loggers) in a completions burst of 500 x 128 tokens (v0.11.0 and v0.19.0) and a chat burst of
// 1000 x 4 (scripts/measure/vllm_api_server_burst.py; fixture test/fixtures/measure/vllm-api-server-burst.json) used
// more CPU than the profile's floor for each, and well under the kvcached burst's measured duration.
import { describe, expect, it } from 'vitest';
import { VLLM_FRONTEND } from '../../src/core/engines/vllm/memory.js';
import { loadThroughputCases } from '../../src/io/load-calibration.js';
import { readMeasureFixture } from '../helpers/measured.js';

interface Slope {
  endpoint: string;
  streams: number;
  token_us: number;
  request_us: number;
}
interface TokenRun {
  yields_between_steps: number;
  rows: { endpoint: string; tokens: number; streams: number; sse_items_per_request: number }[];
  slopes: Slope[];
}
const TOKEN = readMeasureFixture('vllm-api-server-token.json') as {
  versions: Record<string, string>;
  runs: TokenRun[];
};
interface BurstRow {
  endpoint: string;
  requests: number;
  tokens: number;
  server_cpu_s: number;
  client_cpu_s: number;
  wall_s: number;
  ttft_mean_s: number;
}
const BURST = readMeasureFixture('vllm-api-server-burst.json') as {
  runs: { wheel: string; versions: Record<string, string>; rows: BurstRow[] }[];
};

const drained = TOKEN.runs.find((r) => r.yields_between_steps > 0)!;
const merged = TOKEN.runs.find((r) => r.yields_between_steps === 0)!;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

describe("vLLM 0.11.0's API server per streamed token", () => {
  it('was measured on the v0.11.0 wheel, chat and completions at 1, 64 and 256 streams, drained and merged', () => {
    expect(TOKEN.versions.vllm).toBe('0.11.0');
    for (const run of [drained, merged]) {
      expect(run.slopes.map((s) => `${s.endpoint}:${s.streams}`)).toEqual([
        'completions:1',
        'completions:64',
        'completions:256',
        'chat:1',
        'chat:64',
        'chat:256',
      ]);
    }
  });

  it('streams a chunk a token when drained, and merges a request into one chunk when not', () => {
    for (const r of drained.rows) {
      // completions: a chunk a token, the usage chunk, [DONE]; chat adds the role chunk
      expect(r.sse_items_per_request).toBe(r.tokens + (r.endpoint === 'chat' ? 3 : 2));
    }
    for (const r of merged.rows) expect(r.sse_items_per_request).toBeLessThanOrEqual(4);
  });

  it('costs more a token drained than merged at every endpoint and stream count', () => {
    for (const s of drained.slopes) {
      const m = merged.slopes.find((x) => x.endpoint === s.endpoint && x.streams === s.streams)!;
      expect(s.token_us, `${s.endpoint}:${s.streams}`).toBeGreaterThan(m.token_us);
    }
  });

  it("the profile's token cost is the merged median, to 0.05 µs", () => {
    const m = median(merged.slopes.map((s) => s.token_us));
    expect(Math.abs(VLLM_FRONTEND.tokenSeconds * 1e6 - m)).toBeLessThan(0.05);
  });
});

describe("vLLM 0.11.0's whole API server in a burst", () => {
  const rows = BURST.runs.flatMap((run) => run.rows);
  const completions = rows.filter((r) => r.endpoint === 'completions');
  const chat = rows.filter((r) => r.endpoint === 'chat');
  const kvcached = loadThroughputCases('throughput.json').find(
    (c) => c.id === 'kvcached-qwen3-06b-h100-vllm-burst500',
  )!;

  it('ran the v0.11.0 and v0.19.0 wheels (the kvcached row ran v0.19.0)', () => {
    expect(BURST.runs.map((r) => r.versions.vllm)).toEqual(['0.11.0', '0.19.0']);
  });

  it('is the kvcached row’s shape', () => {
    expect(Number(kvcached.flags.batch)).toBe(500);
    expect(Number(kvcached.flags.seq) - Number(kvcached.flags['prompt-tokens'])).toBe(128);
    expect(completions.length).toBeGreaterThan(0);
    for (const r of completions) expect([r.requests, r.tokens]).toEqual([500, 128]);
  });

  it("used more CPU than the profile's floor for it, and under 0.6 of the row's measured duration", () => {
    const floor = 500 * (VLLM_FRONTEND.requestSeconds + 128 * VLLM_FRONTEND.tokenSeconds);
    for (const r of completions) {
      expect(r.server_cpu_s).toBeGreaterThan(floor);
      expect(r.server_cpu_s).toBeLessThan(0.6 * kvcached.measured_value);
      expect(r.client_cpu_s).toBeLessThan(kvcached.measured_value / 2);
    }
  });

  it("took more CPU a chat request than the profile's floor with the per-request template parse", () => {
    expect(chat.length).toBeGreaterThan(0);
    const perRequest =
      VLLM_FRONTEND.requestSeconds +
      VLLM_FRONTEND.templateParseSeconds +
      4 * VLLM_FRONTEND.tokenSeconds;
    for (const r of chat) {
      expect([r.requests, r.tokens]).toEqual([1000, 4]);
      expect(r.server_cpu_s / r.requests).toBeGreaterThan(perRequest);
      // Every first token came after the burst's admissions: the one loop served them first.
      expect(r.ttft_mean_s / r.wall_s).toBeGreaterThan(0.9);
    }
  });
});
