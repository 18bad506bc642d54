// A serving job's tokens/s counts its requests' prefills: by Little's law the batch's slots each finish a request
// every TTFT + (output - 1) x TPOT, so a job of long prompts runs below its decode rate, and the weights whose
// prefill is faster (FP8 W8A8 on Hopper against int4 Marlin at the 16-bit rate) serve it sooner.
import { afterAll, describe, expect, it } from 'vitest';
import { plan } from '../../src/core/plan/index.js';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { decodeStep } from '../../src/core/time/decode.js';
import { replicaServingTime, replicaTokensPerSecond } from '../../src/core/time/serving-step.js';
import { defaultTimeOptions } from '../../src/schema/time.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { outputTokensOf } from '../../src/schema/estimate.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { closeJslpWorkers } from '../../src/solve/index.js';
import { inputOf } from './plan-input.js';

afterAll(() => closeJslpWorkers());

const facts = modelFacts(resolveModel('llama-3.1-70b'));
const t = defaultTimeOptions(8);
const r = gpuRates(findGpu('h100-sxm'), t);
const longPrompt = (weights: string) => {
  const all = {
    method: 'inference',
    framework: 'vllm',
    weights,
    tp: 8,
    gpus: 8,
    seq: 131072,
    'prompt-tokens': 126976,
    batch: 4,
    'kv-cache-dtype': 'fp8',
  };
  return withEngineDefaults(optionsFromFlags(all), all);
};

describe("a serving job's tokens/s", () => {
  it('is at most the rate the requests latency allows, and below the decode rate where prompts are long', () => {
    const o = longPrompt('int4');
    const out = outputTokensOf(o);
    const { ttft, tpot } = replicaServingTime(facts, o, t, r);
    const little = (o.batch * out) / (ttft + (out - 1) * tpot);
    const decode = decodeStep(facts, o, t, r, false).tokensPerSecond;
    const tps = replicaTokensPerSecond(facts, o, t, r);
    expect(tps).toBeLessThanOrEqual(little * (1 + 1e-9));
    expect(tps).toBeLessThan(0.7 * decode);
  });

  it('ranks FP8 before int4 Marlin for 128k-token prompts on H100s, as its prefill is faster', () => {
    const r2 = plan(
      inputOf('serve-405b-fp8-8xh100.yaml', (s) => {
        s.model = 'llama-3.1-70b';
        if (s.job.kind !== 'inference') return;
        s.job.context = 131072;
        s.job.promptTokens = 126976;
        s.job.concurrency = 4;
        s.job.outputTokens = 10_000_000;
        s.job.slo = { ttftMs: 60_000, tpotMs: 100 };
      }),
    );
    const best = r2.plans[0]!;
    expect(best.choices.weights).toBe('fp8');
    const int4 = r2.plans.find(
      (p) => p.choices.weights === 'int4' && p.choices.tp === best.choices.tp,
    )!;
    expect(int4.time.ttftSeconds!).toBeGreaterThan(best.time.ttftSeconds!);
    expect(int4.time.tokensPerSecond).toBeLessThan(best.time.tokensPerSecond);
  });
});
