// The planner's tokens/s memo (core/plan/tps-memo.ts): keyed by the content of the options and rates, so a
// second search with fresh but equal objects reads the first one's figure, and any changed field is timed anew
// (but the attention kernel, where no serving figure reads it: decode-host.ts decodeReadsAttention).
import { describe, expect, it } from 'vitest';
import { memoTokensPerSecond, runningOn, tpsTableOf } from '../../src/core/plan/tps-memo.js';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { replicaServingTime, replicaTokensPerSecond } from '../../src/core/time/serving-step.js';
import { decodeReadsAttention } from '../../src/core/time/decode-host.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import type { TimeOptions } from '../../src/schema/time.js';
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
  memoTokensPerSecond(tpsTableOf(facts, o, t), facts, t, r);

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

describe('rows that differ only in attention', () => {
  it('share their figures where the time model does not read it, and only there', () => {
    const r = rates('rtx-4090');
    const flash = options({ attention: 'flash', batch: 6 });
    const sdpa = options({ attention: 'sdpa', batch: 6 });
    expect(tpsTableOf(facts, flash, t).tps).toBe(tpsTableOf(facts, sdpa, t).tps);
    expect(memo(flash, r)).toBe(replicaTokensPerSecond(facts, sdpa, t, r));
    // llama.cpp's row split runs its unfused graph, whose flash attention launches fewer kernels.
    const split = (attention: string) =>
      options({ framework: 'llama.cpp', weights: 'q4_k_m', attention, tp: 2, gpus: 2, batch: 6 });
    expect(tpsTableOf(facts, split('flash'), t).tps).not.toBe(
      tpsTableOf(facts, split('sdpa'), t).tps,
    );
    expect(replicaTokensPerSecond(facts, split('flash'), t, r)).not.toBe(
      replicaTokensPerSecond(facts, split('sdpa'), t, r),
    );
  });

  it('share the rows that run where the KV pool is short where their estimates are alike too', () => {
    const arch = resolveModel('llama-3.1-8b');
    const gpu = findGpu('rtx-4090');
    const row = (attention: string) =>
      tpsTableOf(facts, options({ attention, batch: 256, seq: 32768 }), t);
    const [flash, sdpa, eager] = [row('flash'), row('sdpa'), row('eager')];
    expect(flash.running).toBe(sdpa.running);
    expect(eager.running).not.toBe(flash.running);
    const run = runningOn(flash, arch, facts, gpu, t);
    expect(run.options.batch).toBeLessThan(256);
    expect(runningOn(sdpa, arch, facts, gpu, t)).toBe(run);
    // The SDPA row in a memo of its own (another facts object) runs as many as the shared answer says.
    const own = { ...facts };
    const sdpaAlone = tpsTableOf(own, options({ attention: 'sdpa', batch: 256, seq: 32768 }), t);
    const alone = runningOn(sdpaAlone, arch, own, gpu, t);
    expect(alone.options.batch).toBe(run.options.batch);
    expect(memoTokensPerSecond(alone, own, t, rates('rtx-4090'))).toBe(
      memoTokensPerSecond(run, facts, t, rates('rtx-4090')),
    );
  });

  // Every serving figure the planner reads, for each attention, on every engine, dense and MoE (DP attention),
  // quantized, speculative, tensor-parallel and multi-LoRA rows, fused and unfused graphs: equal wherever
  // decodeReadsAttention says the time model does not read it (a new read of the attention fails here).
  it('time alike with every attention wherever decodeReadsAttention is false', () => {
    const moe = modelFacts(resolveModel('qwen3-30b-a3b'));
    const times: TimeOptions[] = [t, { ...t, unfusedGraph: true }];
    let checked = 0;
    let read = 0;
    let dpAttention = 0;
    for (const framework of Object.keys(FRAMEWORKS))
      for (const [m, extra] of [
        [facts, {}],
        [facts, { weights: framework === 'llama.cpp' ? 'q4_k_m' : 'int4' }],
        [facts, { speculative: 'ngram', 'spec-tokens': 2, 'spec-acceptance': 0.6 }],
        [facts, { 'max-loras': 2, 'lora-rank': 16 }],
        [moe, { 'dp-attention': true, gpus: 4 }],
      ] as const)
        for (const tp of [1, 2])
          for (const gpu of ['rtx-4090', 'h100-sxm'])
            for (const tt of times) {
              const o = (attention: string) =>
                options({ framework, attention, tp, gpus: tp, batch: 8, ...extra });
              const rr = gpuRates(findGpu(gpu), tt);
              const fig = (a: string) => {
                const x = o(a);
                return [replicaTokensPerSecond(m, x, tt, rr), replicaServingTime(m, x, tt, rr)];
              };
              if (decodeReadsAttention(FRAMEWORKS[framework as 'vllm'], o('sdpa'), tt)) {
                read++;
                continue;
              }
              if (o('sdpa').dpAttention === true) dpAttention++;
              const sdpa = fig('sdpa');
              expect(fig('flash')).toEqual(sdpa);
              expect(fig('eager')).toEqual(sdpa);
              checked++;
            }
    expect(checked).toBeGreaterThan(300);
    expect(read).toBeGreaterThan(0);
    expect(dpAttention).toBeGreaterThan(10);
  });
});
