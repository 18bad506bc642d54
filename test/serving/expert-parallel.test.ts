// Expert parallelism and DP attention for MoE serving (--ep, --dp-attention): memory per GPU, the DP-attention
// engine's time, the flags' refusals, the serving search, and serve.sh read back by --from.
import { forbiddenBy } from '../../src/core/engines/rules.js';
import { ENGINE_PROFILES } from '../../src/core/engines/engines.js';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { buildEstimate } from '../../src/core/estimate.js';
import { engineRejects } from '../../src/core/engines/engines.js';
import { engineRefusal, withEngineDefaults } from '../../src/core/engines/defaults.js';
import { expertShareOf } from '../../src/core/memory/expert-parallel.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { FlagError, optionsFromFlags } from '../../src/schema/flags.js';
import { readBack } from './serve-line.js';
import { serveShOf } from '../helpers/launch.js';
import { plan } from '../../src/core/plan/index.js';
import { inputOf } from './plan-input.js';

const gpu = findGpu('h200-sxm');
const dsv3 = resolveModel('deepseek-v3');
const qwen = resolveModel('qwen3-30b-a3b');

function estimate(model: typeof dsv3, flags: Record<string, unknown>) {
  const all = { method: 'inference', framework: 'vllm', seq: 8192, ...flags };
  const o = withEngineDefaults(optionsFromFlags(all), all);
  return { o, e: buildEstimate(model, o, gpu) };
}

describe('expert parallelism and DP attention: memory', () => {
  it('DP attention spreads the experts over every rank and keeps attention whole on each', () => {
    const tp8 = estimate(dsv3, { weights: 'fp8', gpus: 8, tp: 8, batch: 64 }).e;
    const dpa = estimate(dsv3, {
      weights: 'fp8',
      gpus: 8,
      tp: 1,
      'dp-attention': true,
      ep: 8,
      batch: 64,
    }).e;
    // Same expert bytes per GPU (1/8 of them either way); attention and embeddings whole on each DP rank.
    expect(dpa.perGpu.breakdown.weights).toBeGreaterThan(tp8.perGpu.breakdown.weights);
    // Each rank stores only its own sequences' MLA latent, where TP stores every sequence's on every GPU:
    // the engine holds about 8x the KV tokens (less the extra attention weights per GPU).
    expect(dpa.serving!.kvTokens * 8).toBeGreaterThan(4 * tp8.serving!.kvTokens);
  });

  it('whole experts: the busiest rank holds ceil(E / ep) of them (vLLM determine_expert_map)', () => {
    const o = estimate(qwen, { gpus: 6, tp: 6, ep: 6 }).o;
    // 128 experts over 6 ranks: 22 on the first two, 21 on the rest.
    expect(expertShareOf(o, 128)).toBeCloseTo(22 / 128, 12);
    expect(expertShareOf({ ...o, ep: undefined }, 128)).toBeCloseTo(1 / 6, 12);
  });

  it('property: more DP-attention ranks never raise the per-GPU expert bytes, nor whole experts the TP split', () => {
    fc.assert(
      fc.property(fc.constantFrom(2, 4, 8), fc.constantFrom(1, 2), (ranks, tp) => {
        const at = (n: number) =>
          estimate(qwen, { gpus: n * tp, tp, 'dp-attention': true, ep: n * tp, batch: 4 }).e.perGpu
            .breakdown.weights;
        const plainTp = estimate(qwen, { gpus: ranks * tp, tp: ranks * tp, batch: 4 }).e;
        const epTp = estimate(qwen, {
          gpus: ranks * tp,
          tp: ranks * tp,
          ep: ranks * tp,
          batch: 4,
        }).e;
        expect(at(ranks * 2 > 8 ? ranks : ranks * 2)).toBeLessThanOrEqual(at(ranks));
        // 128 experts divide evenly: whole experts per rank hold the same bytes as TP-split ones.
        expect(epTp.perGpu.breakdown.weights).toBeCloseTo(plainTp.perGpu.breakdown.weights, -3);
      }),
      { numRuns: 6 },
    );
  });
});

describe('expert parallelism and DP attention: time', () => {
  it("a rank's step is its own work, the experts over the group and the gathers; the engine decodes every rank's batch", () => {
    const { e } = estimate(dsv3, {
      weights: 'fp8',
      gpus: 8,
      tp: 1,
      'dp-attention': true,
      ep: 8,
      batch: 64,
      'kv-cache-dtype': 'fp8',
    });
    const x = e.time!.expertParallel!;
    expect(x).toMatchObject({ ep: 8, moeGpus: 8, dataParallelRanks: 8 });
    expect(x.rankSeconds + x.expertSeconds + x.gatherSeconds).toBeCloseTo(e.time!.stepSeconds, 3);
    expect(x.gatherSeconds).toBeGreaterThan(0);
    // Both figures are rounded to four significant digits: equal within that rounding.
    expect(
      Math.abs(x.engineDecodeTokensPerSecond / (e.time!.decodeTokensPerSecond! * 8) - 1),
    ).toBeLessThan(1e-3);
  });

  it('property: a larger batch per rank never lowers the step time', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 63 }), (b) => {
        const step = (batch: number) =>
          estimate(qwen, { gpus: 4, tp: 1, 'dp-attention': true, ep: 4, batch }).e.time!
            .stepSeconds;
        expect(step(b + 1)).toBeGreaterThanOrEqual(step(b));
      }),
      { numRuns: 8 },
    );
  });
});

describe('expert parallelism and DP attention: flags and engines', () => {
  const bad = (flags: Record<string, unknown>) => () =>
    optionsFromFlags({ method: 'inference', framework: 'vllm', ...flags });
  it('refuses an EP degree other than the GPUs the MoE layers span', () => {
    expect(bad({ gpus: 8, tp: 8, ep: 4 })).toThrow(FlagError);
    expect(bad({ gpus: 8, tp: 8, ep: 4 })).toThrow(/--ep: got 4; expected 1 or 8/);
    expect(bad({ gpus: 8, tp: 1, 'dp-attention': true, ep: 4 })).toThrow(/1 or 8/);
    // Experts over the data-parallel ranks without --dp-attention: the message names the flag, not "1 or 1".
    expect(bad({ gpus: 2, tp: 1, ep: 2 })).toThrow(/expected 1, .*need --dp-attention$/);
  });
  it('runs DP attention with one data-parallel rank as plain TP, refuses it with a pipeline and both outside serving', () => {
    // Attention DP of width 1 is tensor parallelism (sglang 0.5.23 server_args.py; vLLM --data-parallel-size 1).
    expect(bad({ gpus: 2, tp: 2, 'dp-attention': true })()).not.toHaveProperty('dpAttention');
    expect(bad({ gpus: 8, tp: 8, ep: 8, 'dp-attention': true })()).toMatchObject({ ep: 8 });
    expect(bad({ gpus: 4, tp: 2, pp: 2, 'dp-attention': true })).toThrow(/--dp-attention/);
    expect(() => optionsFromFlags({ method: 'lora', ep: 2, gpus: 2, tp: 2 })).toThrow(
      /only with --method inference/,
    );
  });
  it('on a dense model vLLM runs --data-parallel-size as replicas (estimated, never written); SGLang refuses it', () => {
    const dense = resolveModel('llama-3.1-8b');
    for (const framework of ['vllm', 'sglang']) {
      const flags = { method: 'inference', framework, gpus: 2, 'dp-attention': true };
      const o = withEngineDefaults(optionsFromFlags(flags), flags);
      if (framework === 'vllm') {
        expect(engineRefusal(dense, o, flags)).toBeNull();
        // The planner and launch keep to what vramplan writes: replicas, not a DP engine.
        const input = { arch: dense, options: o, dp: 2, accum: 1 };
        expect(forbiddenBy(ENGINE_PROFILES.vllm.rules, input)?.id).toBe(
          'vllm-expert-parallel-needs-moe',
        );
      } else expect(engineRefusal(dense, o, flags)).toMatch(/expert-parallel-needs-moe/);
      expect(engineRefusal(qwen, o, flags)).toBeNull();
    }
  });
  it('engines without expert parallelism refuse it (the profile says so)', () => {
    const o = optionsFromFlags({ method: 'inference', gpus: 2, tp: 1, 'dp-attention': true });
    expect(engineRejects('hf-generate', o, 2, 1)).toMatch(/expert parallelism/);
    expect(engineRejects('vllm', { ...o, framework: 'vllm' }, 2, 1)).toBeNull();
  });
});

function serveSh(framework: string): string {
  const { o, e } = estimate(dsv3, {
    framework,
    weights: 'fp8',
    gpus: 8,
    tp: 1,
    'dp-attention': true,
    ep: 8,
    batch: 32,
  });
  return serveShOf(dsv3, o, gpu, e);
}

describe('expert parallelism and DP attention: launch and --from', () => {
  it('vLLM: one server with --data-parallel-size and --enable-expert-parallel, read back', () => {
    const sh = serveSh('vllm');
    expect(sh).toContain('--data-parallel-size 8');
    expect(sh).toContain('--enable-expert-parallel');
    expect(sh.match(/vllm serve/g)).toHaveLength(1);
    expect(readBack(sh).flags).toMatchObject({ 'dp-attention': true, ep: 8, batch: 32 });
  });
  it("SGLang: --tp-size 8 --dp-size 8 --enable-dp-attention --ep-size 8, the engine's total requests, read back", () => {
    const sh = serveSh('sglang');
    expect(sh).toMatch(/--tp-size 8 \\\n {2}--dp-size 8 \\\n {2}--enable-dp-attention/);
    expect(sh).toContain('--ep-size 8');
    expect(sh).toContain('--max-running-requests 256');
    const back = readBack(sh).flags;
    expect(back).toMatchObject({ 'dp-attention': true, ep: 8, batch: 32 });
    expect(back.tp).toBeUndefined();
  });
});

describe('vLLM expert parallelism over tensor-parallel ranks, no DP attention: launch and --from', () => {
  // vllm 0.33.0 FusedMoEParallelConfig.make (model_executor/layers/fused_moe/config.py): --tensor-parallel-size N
  // --enable-expert-parallel runs the MoE layers with ep_size N, whole experts per rank, attention still TP N.
  const figures = (flags: Record<string, unknown>) => {
    const e = estimate(qwen, flags).e;
    return {
      allocated: e.perGpu.allocatedBytes,
      device: e.perGpu.deviceBytes,
      weights: e.perGpu.breakdown.weights,
      kvTokens: e.serving!.kvTokens,
      step: e.time!.stepSeconds,
      phases: e.time!.phases,
    };
  };

  it('serve.sh writes --enable-expert-parallel beside --tensor-parallel-size and reads back to the same plan', () => {
    fc.assert(
      fc.property(fc.constantFrom(2, 4, 8), fc.constantFrom(8, 32, 128), (tp, batch) => {
        const flags = { gpus: tp, tp, ep: tp, batch };
        const { o, e } = estimate(qwen, flags);
        const sh = serveShOf(qwen, o, gpu, e);
        expect(sh).toContain(`--tensor-parallel-size ${tp}`);
        expect(sh).toContain('--enable-expert-parallel');
        expect(sh).not.toContain('--data-parallel-size');
        const back = readBack(sh).flags;
        expect(back).toMatchObject({ tp, ep: tp, batch });
        expect(back['dp-attention']).toBeUndefined();
        expect(figures({ ...back, gpus: tp })).toEqual(figures(flags));
      }),
      { numRuns: 9 },
    );
  });

  it('a TP plan without expert parallelism writes no flag, and its figures differ from the EP plan', () => {
    const { o, e } = estimate(qwen, { gpus: 4, tp: 4, batch: 32 });
    const sh = serveShOf(qwen, o, gpu, e);
    expect(sh).not.toContain('--enable-expert-parallel');
    expect(readBack(sh).flags.ep).toBeUndefined();
    // Whole experts on 128 / 4 ranks time differently from each expert split four ways (time/decode.ts expertWidth):
    // a serve.sh that dropped the flag would read back to a different plan.
    const ep = figures({ gpus: 4, tp: 4, ep: 4, batch: 32 });
    const tp = figures({ gpus: 4, tp: 4, batch: 32 });
    expect(ep.allocated).toBeGreaterThan(0);
    expect(ep.step).not.toBe(tp.step);
  });
});

describe('expert parallelism and DP attention: the serving search', () => {
  it('DeepSeek-V3 at 512 users on 8xH200 ranks DP attention with EP8 first; at 8 users TP8 with MTP', () => {
    const at = (concurrency: number) =>
      plan(
        inputOf('serve-deepseek-v3-8xh200.yaml', (s) => {
          s.job = { ...s.job, concurrency } as typeof s.job;
        }),
      ).plans[0]!.choices;
    // SGLang first: its block-scaled FP8 linears run DeepGEMM, faster at decode M than the CUTLASS blockwise GEMM a
    // pip-installed vLLM runs (time/block-fp8.ts).
    // Its attention tensor parallel over 2 (--tp 8 --dp 4): each prompt prefills on two GPUs, which the lockstep
    // ranks wait for less than one GPU's (the job's tokens/s counts the prefills: serving-step.ts).
    expect(at(512)).toMatchObject({ dpAttention: true, ep: 8, tp: 2, dp: 4, engine: 'sglang' });
    const small = at(8);
    expect(small.dpAttention).toBeUndefined();
    expect(small).toMatchObject({ tp: 8, speculative: { method: 'mtp' } });
    // At 32 users, DP attention with the MTP layer drafting on each rank (the engines' DeepSeek recipes run both),
    // 8 sequences a rank: the search offers speculation up to 8 sequences per engine step.
    expect(at(32)).toMatchObject({ dpAttention: true, ep: 8, speculative: { method: 'mtp' } });
  });
});

describe('expert parallelism and DP attention: the step phases', () => {
  it('the gathers around the MoE layers are the expert-parallel phase, not tensor-parallel (TP 1 has none)', () => {
    const dpa = estimate(dsv3, {
      weights: 'fp8',
      gpus: 8,
      tp: 1,
      'dp-attention': true,
      ep: 8,
      batch: 64,
    }).e.time!;
    const seconds = (name: string) => dpa.phases.find((p) => p.phase === name)?.seconds ?? 0;
    expect(seconds('expert-parallel')).toBeGreaterThan(0);
    expect(seconds('tensor-parallel')).toBe(0);
    const sum = dpa.phases.filter((p) => p.phase !== 'prefill').reduce((a, p) => a + p.seconds, 0);
    expect(sum).toBeCloseTo(dpa.stepSeconds, 3);
    // Plain TP 8 gathers nothing around its experts: no expert-parallel phase listed.
    const tp8 = estimate(dsv3, { weights: 'fp8', gpus: 8, tp: 8, batch: 64 }).e.time!;
    expect(tp8.phases.some((p) => p.phase === 'expert-parallel')).toBe(false);
    expect(tp8.phases.find((p) => p.phase === 'tensor-parallel')!.seconds).toBeGreaterThan(0);
  });
});
