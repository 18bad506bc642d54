// The planner's tokens/s memo (core/plan/tps-memo.ts): keyed by the content of the options and rates, so a
// second search with fresh but equal objects reads the first one's figure, and any changed field is timed anew.
import { describe, expect, it } from 'vitest';
import { memoTokensPerSecond, tpsTableOf } from '../../src/core/plan/tps-memo.js';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { replicaTokensPerSecond } from '../../src/core/time/serving-step.js';
import { defaultTimeOptions } from '../../src/schema/time.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';

const facts = modelFacts(resolveModel('llama-3.1-8b'));
const t = defaultTimeOptions(1);
const options = (flags: Record<string, unknown>) => {
  const all = { method: 'inference', framework: 'vllm', seq: 4096, batch: 8, ...flags };
  return withEngineDefaults(optionsFromFlags(all), all);
};
const rates = (gpu: string) => gpuRates(findGpu(gpu), t);
const memo = (o: ReturnType<typeof options>, r: ReturnType<typeof rates>) =>
  memoTokensPerSecond(tpsTableOf(facts, o), facts, t, r);

describe('tokens/s memo', () => {
  it('returns what replicaTokensPerSecond returns, for equal objects made apart too', () => {
    const o = options({});
    const r = rates('rtx-4090');
    const direct = replicaTokensPerSecond(facts, o, t, r);
    expect(memo(o, r)).toBe(direct);
    expect(memo(options({}), rates('rtx-4090'))).toBe(direct);
  });

  it('times a changed option or another GPU anew', () => {
    const r = rates('rtx-4090');
    const o = options({});
    memo(o, r);
    for (const [o2, r2] of [
      [options({ batch: 16 }), r],
      [options({ speculative: 'ngram', 'spec-acceptance': 0.5 }), r],
      [o, rates('a100-80gb-pcie')],
    ] as const) {
      const direct = replicaTokensPerSecond(facts, o2, t, r2);
      expect(direct).not.toBe(replicaTokensPerSecond(facts, o, t, r));
      expect(memo(o2, r2)).toBe(direct);
    }
  });
});
