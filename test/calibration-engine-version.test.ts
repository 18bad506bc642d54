// A serving row's `engine_version` gates release-bound prices (vLLM's block-FP8 default tiles, its GLM-4.5 fp32 router,
// V0/V1 host work, SGLang's default fused-MoE tiles): a bare release there is the one the row's own source states.
import { describe, expect, it } from 'vitest';
import { releaseAtLeast } from '../src/core/compare-releases.js';
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

  it('starts, on every row that has one, with a release the release gates can read', () => {
    // releaseAtLeast reads the leading release ("0.6", "0.8.5+main-2025-05-01"); an unreadable one opens no gate.
    const tagged = cases.filter((c) => c.engine_version !== undefined);
    expect(tagged.length).toBeGreaterThan(300);
    const unreadable = tagged
      .filter((c) => !releaseAtLeast(c.engine_version!, '0.0.0'))
      .map((c) => `${c.id}: ${c.engine_version}`);
    expect(unreadable).toEqual([]);
    // The check itself: a floor or a date is not a release.
    expect(releaseAtLeast('>=0.12.0', '0.0.0')).toBe(false);
    expect(releaseAtLeast('vLLM of 2025-08-01', '0.0.0')).toBe(false);
  });

  it('reads a pinned-by-date or floor-only recipe as the release its source dates name', () => {
    // vllm-project/recipes#140 ('vllm>=0.12.0 is required', 2025-12-07): PyPI's newest then was 0.12.0.
    const release = (id: string) => cases.find((c) => c.id === id)?.engine_version;
    expect(release('recipesglmv-glm45v-fp8-4xh100-tp4ep4-c1')).toBe('0.12.0');
    // vllm-project/recipes#8 (2025-07-30 to 2025-08-01, 'uv pip install -U vllm'): PyPI's newest then was 0.10.0.
    expect(release('recipesdsv3-dsr1-0528-fp8-8xh200-tp8ep8-i8k-o1k-c1')).toBe('0.10.0');
    // SemiAnalysisAI/InferenceX nvidia-master.yaml minimaxm2.5-fp4-b200-vllm: image vllm/vllm-openai:v0.21.0.
    expect(release('ixblog-minimaxm25-nvfp4-2xb200-tp2ep2-i8k-o1k-c128')).toBe('0.21.0');
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
