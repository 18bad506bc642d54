// A serving engine's frontend (time/frontend.ts): the API server's work per request and per streamed token
// overlaps the GPU and bounds a burst or a steady state only where it is the longer of the two.
import { describe, expect, it } from 'vitest';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { estimateTime, staticBatchSeconds } from '../../src/core/time/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { timeOptionsFromFlags, type TimeOptions } from '../../src/schema/time.js';

const setup = (flags: Record<string, unknown>, extra: Partial<TimeOptions> = {}) => {
  const f = { method: 'inference', ...flags };
  const o = withEngineDefaults(optionsFromFlags(f), f);
  const t = { ...timeOptionsFromFlags(f, o), ...extra };
  return { arch: resolveModel('llama-3.1-8b'), o, g: findGpu('h100-sxm'), t };
};
const front = FRAMEWORKS.vllm.servingFrontend!;
// 1000 chat requests of 128 tokens in and 4 out, all sent at once.
const burst = { framework: 'vllm', batch: 1000, 'prompt-tokens': 128, seq: 132 };

describe('a burst of many short requests', () => {
  it("takes at least the API server's work for every request and streamed token", () => {
    const { arch, o, g, t } = setup(burst);
    const frontend = 1000 * (front.requestSeconds + 4 * front.tokenSeconds);
    expect(staticBatchSeconds(arch, o, g, t)).toBeGreaterThanOrEqual(frontend * (1 - 1e-9));
  });
  it('a build that parses the chat template on every request adds that parse per request', () => {
    const plain = setup(burst);
    const parsing = setup(burst, { chatTemplateParse: true });
    const a = staticBatchSeconds(plain.arch, plain.o, plain.g, plain.t);
    const b = staticBatchSeconds(parsing.arch, parsing.o, parsing.g, parsing.t);
    const bound =
      1000 * (front.requestSeconds + front.templateParseSeconds + 4 * front.tokenSeconds);
    expect(b).toBeGreaterThanOrEqual(bound * (1 - 1e-9));
    expect(b).toBeGreaterThan(a);
    // The estimate's own burst figures carry the same bound.
    const e = estimateTime(parsing.arch, parsing.o, parsing.g, parsing.t);
    expect(e.burst!.outputTokensPerSecond).toBeLessThanOrEqual(((1000 * 4) / bound) * (1 + 1e-3));
    expect(e.burst!.ttftMaxSeconds).toBeGreaterThanOrEqual(
      1000 * (front.requestSeconds + front.templateParseSeconds) * (1 - 1e-3),
    );
  });
  it('leaves a small batch of long prompts to the GPU', () => {
    const flags = { framework: 'vllm', batch: 8, 'prompt-tokens': 2048, seq: 2304 };
    const { arch, o, g, t } = setup(flags);
    const withParse = setup(flags, { chatTemplateParse: true });
    expect(staticBatchSeconds(arch, o, g, t)).toBe(
      staticBatchSeconds(withParse.arch, withParse.o, withParse.g, withParse.t),
    );
  });
  it("SGLang's TokenizerManager takes every request and streamed token, with no template parse", () => {
    const sg = FRAMEWORKS.sglang.servingFrontend!;
    expect(sg.templateParseSeconds).toBe(0);
    expect(sg.requestSeconds).toBeGreaterThan(0);
    const a = setup({ ...burst, framework: 'sglang' });
    const b = setup({ ...burst, framework: 'sglang' }, { chatTemplateParse: true });
    const frontend = 1000 * (sg.requestSeconds + 4 * sg.tokenSeconds);
    expect(staticBatchSeconds(a.arch, a.o, a.g, a.t)).toBeGreaterThanOrEqual(frontend * (1 - 1e-9));
    expect(staticBatchSeconds(a.arch, a.o, a.g, a.t)).toBe(
      staticBatchSeconds(b.arch, b.o, b.g, b.t),
    );
  });
  it('an engine without a frontend profile keeps the GPU time', () => {
    expect(FRAMEWORKS.hf.servingFrontend).toBeUndefined();
    const flags = { ...burst, framework: 'hf', batch: 64 };
    const a = setup(flags);
    const b = setup(flags, { chatTemplateParse: true });
    expect(staticBatchSeconds(a.arch, a.o, a.g, a.t)).toBe(
      staticBatchSeconds(b.arch, b.o, b.g, b.t),
    );
  });
});

describe('a steady state', () => {
  it("takes at least the frontend's share of requests and tokens per step", () => {
    // 512 requests of one token each: every step admits 512 requests.
    const { arch, o, g, t } = setup(
      { framework: 'vllm', batch: 512, 'prompt-tokens': 16, seq: 17 },
      { chatTemplateParse: true },
    );
    const step = 512 * (front.requestSeconds + front.templateParseSeconds + front.tokenSeconds);
    expect(estimateTime(arch, o, g, t).tpotSeconds!).toBeGreaterThanOrEqual(step * (1 - 1e-3));
  });
  it('at a few requests of long answers the GPU step is the bound', () => {
    const flags = { framework: 'vllm', batch: 4, 'prompt-tokens': 256, seq: 768 };
    const plain = setup(flags);
    const parsing = setup(flags, { chatTemplateParse: true });
    expect(estimateTime(plain.arch, plain.o, plain.g, plain.t).tpotSeconds).toBe(
      estimateTime(parsing.arch, parsing.o, parsing.g, parsing.t).tpotSeconds,
    );
  });
});
