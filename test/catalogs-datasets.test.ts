// catalogs/datasets/: a serving benchmark's dataset as its samplers draw it (src/schema/dataset.ts).
import { describe, expect, it } from 'vitest';
import { loadDataset } from '../src/io/load-catalog.js';

describe('catalogs/datasets', () => {
  const d = loadDataset('sharegpt');

  it("ShareGPT's samplers: vLLM's caps, SGLang's none", () => {
    const vllm = d.samplers.vllm!;
    const sglang = d.samplers.sglang!;
    expect(vllm.prompt.at(-1)).toBeLessThanOrEqual(1024);
    expect(Math.max(...vllm.output)).toBeLessThanOrEqual(2048);
    expect(sglang.prompt.at(-1)).toBeGreaterThan(2048);
    // Heavy-tailed outputs: the median under the mean, the 99th percentile several times it.
    const at = (p: number) => vllm.output[d.levels.indexOf(p)]!;
    expect(at(50)).toBeLessThan(vllm.meanOutput);
    expect(at(99)).toBeGreaterThan(3 * vllm.meanOutput);
  });

  it("vLLM's sampler agrees with the printed totals of two runs of 1000 ShareGPT prompts", () => {
    // vllm-project/vllm#17788 and vllm-project/vllm#29217 (seed 0, Qwen tokenizers): 217,393 prompt tokens; 200,516 and 189,963 out.
    const vllm = d.samplers.vllm!;
    expect(Math.abs(vllm.meanPrompt / 217.4 - 1)).toBeLessThan(0.03);
    expect(Math.abs(vllm.meanOutput / ((200.5 + 190.0) / 2) - 1)).toBeLessThan(0.05);
  });

  it('names the datasets it has when asked for another', () => {
    expect(() => loadDataset('alpaca')).toThrow(/sharegpt/);
  });
});
