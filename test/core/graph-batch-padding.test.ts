// A CUDA-graph decode step runs its batch padded up to the next captured size, and an MoE layer routes the padded
// rows too (FrameworkProfile.graphBatch; SGLang's captured sizes in engines/sglang/graph-batch.ts): a step of 14
// sequences reads the experts of 16 tokens, unless expert parallelism masks the padded rows.
import { describe, expect, it } from 'vitest';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { sglangGraphBatch } from '../../src/core/engines/sglang/graph-batch.js';
import { decodeTraffic } from '../../src/core/time/decode.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const experts = (framework: string, batch: number, ep?: number) => {
  const f: Record<string, string | number> = {
    method: 'inference',
    framework,
    gpus: 8,
    tp: 8,
    batch,
    seq: 1000,
    'prompt-tokens': 500,
  };
  if (ep) f.ep = ep;
  const o = withEngineDefaults(optionsFromFlags(f), f);
  const t = defaultTimeOptions(o.gpus);
  const r = gpuRates(findGpu('b200'), t);
  const m = modelFacts(resolveModel('qwen3-30b-a3b'));
  return decodeTraffic(m, o, t, r, batch, 1000).expertGpu;
};

describe('CUDA-graph batch padding', () => {
  it("SGLang replays the next captured batch size (server_args.py's list), itself above 512", () => {
    expect(
      [1, 2, 3, 5, 9, 13, 14, 16, 17, 91, 257, 497, 512, 600].map((b) => sglangGraphBatch(b, 1)),
    ).toEqual([1, 2, 4, 8, 12, 16, 16, 16, 24, 96, 272, 512, 512, 600]);
    expect(sglangGraphBatch(13, 8)).toBe(13);
  });

  it("an MoE step of 14 sequences on SGLang reads 16 tokens' experts; vLLM's profile pads nothing", () => {
    expect(experts('sglang', 14)).toBeCloseTo(experts('sglang', 16), 6);
    expect(experts('sglang', 14)).toBeGreaterThan(experts('vllm', 14));
    expect(experts('vllm', 14)).toBeLessThan(experts('vllm', 16));
  });

  it('under expert parallelism the padded rows are not routed', () => {
    expect(experts('sglang', 14, 8)).toBeLessThan(experts('sglang', 16, 8));
  });
});
