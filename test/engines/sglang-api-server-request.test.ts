// SGLang's frontend costs per chat request and per streamed token are the figures measured with sglang 0.5.5.post1's
// own serving path (scripts/measure/sglang_api_server_request.py; fixture
// test/fixtures/measure/sglang-api-server-request.json: serial Qwen3-14B chat requests as `vllm bench serve
// --backend openai-chat` sends them, 4 and 64 output tokens, a fake scheduler and detokenizer).
import { describe, expect, it } from 'vitest';
import { SGLANG_MEMORY } from '../../src/core/engines/sglang/memory.js';
import { readMeasureFixture } from '../helpers/measured.js';

interface Parts {
  total_ms: number;
  render_ms: number;
  output_ms: number;
}
interface Fixture {
  versions: Record<string, string>;
  results: {
    output_tokens: number;
    requests: number;
    sse_items_per_request: number;
    median: Parts;
  }[];
  per_token: { requests: number; token_ms: number; request_ms: number }[];
}
const fixture = readMeasureFixture('sglang-api-server-request.json') as Fixture;
const run = (tokens: number, requests: number) =>
  fixture.results.find((r) => r.output_tokens === tokens && r.requests === requests)!;
const frontend = SGLANG_MEMORY.servingFrontend!;

describe("SGLang 0.5.5.post1's API server per chat request", () => {
  it('was measured on the 0.5.5.post1 wheel, 1000 requests of 4 and of 64 tokens, a chunk a token', () => {
    expect(fixture.versions.sglang).toBe('0.5.5.post1');
    // role chunk, a chunk a token, finish chunk, usage chunk, [DONE]
    expect(run(4, 1000).sse_items_per_request).toBe(8);
    expect(run(64, 1000).sse_items_per_request).toBe(68);
  });
  it('a token is the slope between the 1000-request medians, to 0.1 µs', () => {
    const slope = (run(64, 1000).median.total_ms - run(4, 1000).median.total_ms) / 60;
    expect(Math.abs(frontend.tokenSeconds * 1e3 - slope)).toBeLessThan(1e-4);
  });
  it("a 4-token request is the fixture's median, to 0.01 ms", () => {
    const ms = (frontend.requestSeconds + 4 * frontend.tokenSeconds) * 1e3;
    expect(Math.abs(ms - run(4, 1000).median.total_ms)).toBeLessThan(0.005);
  });
  it('parses no template per request, and the runs of 200 to 1000 requests agree within a fifth', () => {
    expect(frontend.templateParseSeconds).toBe(0);
    for (const p of fixture.per_token) {
      expect(Math.abs(p.request_ms / (frontend.requestSeconds * 1e3) - 1)).toBeLessThan(0.2);
      expect(Math.abs(p.token_ms / (frontend.tokenSeconds * 1e3) - 1)).toBeLessThan(0.2);
    }
  });
});
