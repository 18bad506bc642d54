// vLLM's API-server costs per chat request are the figures measured with vLLM 0.11.0's own serving path
// (scripts/measure/vllm_api_server_request.py; fixture test/fixtures/measure/vllm-api-server-request.json: 1000
// serial Qwen3-14B chat requests as `vllm bench serve --backend openai-chat` sends them, a fake engine core).
import { describe, expect, it } from 'vitest';
import { VLLM_FRONTEND } from '../../src/core/engines/vllm/memory.js';
import { readMeasureFixture } from '../helpers/measured.js';

interface Parts {
  parse_ms: number;
  render_ms: number;
  template_parse_ms: number;
  tokenize_ms: number;
  input_ms: number;
  stream_ms: number;
  total_ms: number;
  total_less_template_parse_ms: number;
}
interface Fixture {
  versions: Record<string, string>;
  results: { requests: number; sse_items_per_request: number; median: Parts; mean: Parts }[];
}
const fixture = readMeasureFixture('vllm-api-server-request.json') as Fixture;
const at1000 = fixture.results.find((r) => r.requests === 1000)!;

describe("vLLM 0.11.0's API server per chat request", () => {
  it('was measured on the v0.11.0 wheel, 1000 requests, each streamed as role, 4 token, usage and [DONE] items', () => {
    expect(fixture.versions.vllm).toBe('0.11.0');
    expect(at1000).toBeDefined();
    expect(at1000.sse_items_per_request).toBe(7);
  });
  it("the template parse is the fixture's median, to 0.1 ms", () => {
    expect(
      Math.abs(VLLM_FRONTEND.templateParseSeconds * 1e3 - at1000.median.template_parse_ms),
    ).toBeLessThan(0.05);
  });
  it("a request's other work and its 4 chunks are the fixture's median, to 0.01 ms", () => {
    const ms = (VLLM_FRONTEND.requestSeconds + 4 * VLLM_FRONTEND.tokenSeconds) * 1e3;
    expect(Math.abs(ms - at1000.median.total_less_template_parse_ms)).toBeLessThan(0.005);
  });
  it('the parse is most of the work, and the runs of 200 to 1000 requests agree within a fifth', () => {
    expect(at1000.median.template_parse_ms).toBeGreaterThan(
      at1000.median.total_less_template_parse_ms,
    );
    for (const r of fixture.results) {
      expect(Math.abs(r.median.total_ms / at1000.median.total_ms - 1)).toBeLessThan(0.2);
    }
  });
});
