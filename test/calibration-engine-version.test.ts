// A serving row's `engine_version` gates release-bound prices (vLLM's block-FP8 default tiles, its GLM-4.5 fp32 router,
// V0/V1 host work, SGLang's default fused-MoE tiles): a bare release there is the one the row's own source states.
import { describe, expect, it } from 'vitest';
import { loadThroughputCases } from '../src/io/load-calibration.js';

const BARE_RELEASE = /^v?(\d+\.\d+\.\d+(?:\.post\d+)?)$/;
const cases = loadThroughputCases('throughput.json');
const text = (c: (typeof cases)[number]) =>
  [c.source, c.quote, c.notes].map((x) => x ?? '').join(' ');

describe("serving rows' engine_version", () => {
  it("names, where it is a bare release, one the row's source, quote or notes state", () => {
    const bare = cases.filter(
      (c) => c.engine_version !== undefined && BARE_RELEASE.test(c.engine_version),
    );
    expect(bare.length).toBeGreaterThan(300);
    for (const c of bare) {
      const release = BARE_RELEASE.exec(c.engine_version!)![1]!;
      expect(text(c), c.id).toContain(release);
    }
  });

  it('carries the release the GPUStack lab pages and the lukaLLM compose file state', () => {
    // GPUStack Performance Lab: 'vLLM: v0.11.0' on the Qwen3-235B FP8 H100 and DeepSeek-R1 H200 pages.
    expect(
      cases.find((c) => c.id === 'gpslab-qwen3-235b-fp8-4xh100-vllm-burst500-i2k')?.engine_version,
    ).toBe('0.11.0');
    expect(cases.find((c) => c.id === 'gpslab-dsr1-8xh200-vllm-burst500-i2k')?.engine_version).toBe(
      '0.11.0',
    );
    // lukaLLM/vLLM_vs_SGLang_benchmarks docker-compose vLLM.yaml: image vllm/vllm-openai:v0.10.2.
    const luka = cases.find(
      (c) => c.id === 'lukallm-qwen3coder30b-fp8-l40s-vllm-sharegpt-burst1000',
    );
    expect(luka?.engine_version).toBe('0.10.2');
  });
});
