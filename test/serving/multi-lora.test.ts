// Multi-LoRA serving (--max-loras with --lora-rank as the engine's max rank): adapter slots in memory, the
// adapters' reads and kernels in time, the engines that run it, and serve.sh read back by --from.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { buildEstimate } from '../../src/core/estimate.js';
import { buildLaunch } from '../../src/core/launch/index.js';
import { engineRefusal, withEngineDefaults } from '../../src/core/engines/defaults.js';
import { engineRejects } from '../../src/core/engines/engines.js';
import { adapterBytesPerGpu } from '../../src/core/memory/multi-lora.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { readBack } from './serve-line.js';
import { serveShOf } from '../helpers/launch.js';
import { plan } from '../../src/core/plan/index.js';
import { inputOf } from './plan-input.js';

const h100 = findGpu('h100-sxm');
const llama = resolveModel('llama-3.1-8b');

function estimate(flags: Record<string, unknown>) {
  const all = { method: 'inference', framework: 'vllm', seq: 4096, batch: 16, ...flags };
  const o = withEngineDefaults(optionsFromFlags(all), all);
  return { o, e: buildEstimate(llama, o, h100) };
}

describe('multi-LoRA serving', () => {
  it('one rank-16 Llama-3.1-8B adapter over every linear is 42M elements (84 MB in bf16)', () => {
    // Per layer: q, o 16 x 8192; k, v 16 x 5120; gate, up, down 16 x 18432 → 1,310,720; x 32 layers.
    expect(adapterBytesPerGpu(llama, 16, 1, 2)).toBe(1_310_720 * 32 * 2);
    // TP shards A of row-parallel and B of column-parallel layers: less per GPU, never more.
    expect(adapterBytesPerGpu(llama, 16, 2, 2)).toBeLessThan(adapterBytesPerGpu(llama, 16, 1, 2));
  });
  it('holds max-loras slots in adapters and reads the adapters in use each step', () => {
    const plain = estimate({}).e;
    const lora = estimate({ 'max-loras': 4 }).e;
    expect(lora.perGpu.breakdown.adapters).toBe(4 * 1_310_720 * 32 * 2);
    expect(lora.serving!.kvTokens).toBeLessThan(plain.serving!.kvTokens);
    expect(lora.time!.lora).toMatchObject({ adaptersPerStep: 4 });
    expect(lora.time!.decodeTokensPerSecond!).toBeLessThan(plain.time!.decodeTokensPerSecond!);
  });
  it('property: more adapter slots never lower memory nor raise tokens/s', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 31 }), (n) => {
        const a = estimate({ 'max-loras': n }).e;
        const b = estimate({ 'max-loras': n + 1 }).e;
        expect(b.perGpu.breakdown.adapters).toBeGreaterThan(a.perGpu.breakdown.adapters);
        expect(b.time!.decodeTokensPerSecond!).toBeLessThanOrEqual(a.time!.decodeTokensPerSecond!);
      }),
      { numRuns: 8 },
    );
  });
  it('refusals: outside serving, engines without it, and a rank vLLM does not take', () => {
    expect(() => optionsFromFlags({ method: 'lora', 'max-loras': 2 })).toThrow(
      /only with --method inference/,
    );
    const o = optionsFromFlags({ method: 'inference', 'max-loras': 2 });
    expect(engineRejects('hf-generate', o, 1, 1)).toMatch(/no multi-LoRA serving/);
    expect(engineRejects('llama.cpp', o, 1, 1)).toBeNull();
    const flags = { method: 'inference', framework: 'vllm', 'max-loras': 2, 'lora-rank': 20 };
    const bad = withEngineDefaults(optionsFromFlags(flags), flags);
    expect(engineRefusal(llama, bad, flags)).toMatch(/vllm-max-lora-rank/);
  });
  for (const framework of ['vllm', 'sglang'])
    it(`${framework}: serve.sh enables LoRA and reads back to the same slots`, () => {
      const { o, e } = estimate({ framework, 'max-loras': 4, 'lora-rank': 32 });
      const sh = serveShOf(llama, o, h100, e);
      expect(sh).toContain('--enable-lora');
      expect(readBack(sh).flags).toMatchObject({ 'max-loras': 4, 'lora-rank': 32 });
    });
});

describe('multi-LoRA serving with speculative decoding and DP attention', () => {
  it('the verify pass runs the adapters (the drafts run unadapted): one LoRA cost per engine step', () => {
    const spec = estimate({ speculative: 'eagle3' }).e.time!;
    const both = estimate({ speculative: 'eagle3', 'max-loras': 4 }).e.time!;
    expect(both.lora).toMatchObject({ adaptersPerStep: 4 });
    expect(both.stepSeconds).toBeCloseTo(spec.stepSeconds + both.lora!.seconds, 5);
    const kept = both.speculative!.tokensPerStep;
    expect(both.decodeTokensPerSecond!).toBeCloseTo((16 * kept) / both.stepSeconds, -1);
    expect(both.tpotSeconds!).toBeCloseTo(spec.tpotSeconds! + both.lora!.seconds / kept, 4);
  });
  it("DP attention: each rank reads its sequences' adapters, the experts' adapters spread as the experts", () => {
    const dsv3 = resolveModel('deepseek-v3');
    const gpu = findGpu('h200-sxm');
    const flags = (extra: Record<string, unknown>) => ({
      method: 'inference',
      framework: 'sglang',
      weights: 'fp8',
      gpus: 8,
      tp: 1,
      'dp-attention': true,
      ep: 8,
      batch: 32,
      seq: 4096,
      ...extra,
    });
    const run = (extra: Record<string, unknown>) => {
      const all = flags(extra);
      const o = withEngineDefaults(optionsFromFlags(all), all);
      return { o, e: buildEstimate(dsv3, o, gpu) };
    };
    const plain = run({}).e.time!;
    const { o, e } = run({ 'max-loras': 2 });
    // Two rank-16 adapters: the experts' 1/8 of them on each GPU, far below the unsplit adapters.
    const whole = 2 * adapterBytesPerGpu(dsv3, 16, 1, 2);
    expect(e.perGpu.breakdown.adapters).toBeLessThan(0.2 * whole);
    // The adapters' kernels add on; their read also joins the step's blended weight read (decode-attention.ts
    // ridgeBlend), a few µs of a 50 ms step.
    expect(e.time!.stepSeconds / (plain.stepSeconds + e.time!.lora!.seconds)).toBeCloseTo(1, 3);
    const sh = serveShOf(dsv3, o, gpu, e);
    // SGLang's default csgmv LoRA backend refuses DP attention; its triton backend runs it.
    expect(sh).toContain('--enable-dp-attention');
    expect(sh).toContain('--lora-backend triton');
  });
});

describe('multi-LoRA serving on llama-server (--lora per adapter, never batched together)', () => {
  const rtx = findGpu('rtx-4090');
  const onLlamaCpp = (flags: Record<string, unknown>) => {
    const all = {
      method: 'inference',
      framework: 'llama.cpp',
      weights: 'q4_k_m',
      seq: 4096,
      batch: 8,
      ...flags,
    };
    const o = withEngineDefaults(optionsFromFlags(all), all);
    return { o, e: buildEstimate(llama, o, rtx) };
  };
  it('loads every adapter beside the layers it adapts (on the GPU with them, on the host past -ngl)', () => {
    const all = onLlamaCpp({ 'max-loras': 4, 'lora-rank': 16 }).e.perGpu.breakdown.adapters;
    expect(all).toBe(4 * 1_310_720 * 32 * 2);
    const half = onLlamaCpp({ 'max-loras': 4, 'lora-rank': 16, 'gpu-layers': 16 }).e.perGpu
      .breakdown;
    expect(half.adapters).toBeCloseTo(all / 2, 0);
  });
  it('runs one engine iteration per adapter in use: 8 sequences on 8 adapters decode as 8 batches of one', () => {
    const plain8 = onLlamaCpp({}).e.time!;
    const plain1 = onLlamaCpp({ batch: 1 }).e.time!;
    const one = onLlamaCpp({ 'max-loras': 1 }).e.time!;
    const eight = onLlamaCpp({ 'max-loras': 8 }).e.time!;
    // One adapter: the batch stays whole, plus one adapter's read and kernels.
    expect(one.decodeTokensPerSecond!).toBeGreaterThan(0.85 * plain8.decodeTokensPerSecond!);
    // Eight: eight steps of one sequence each (and eight adapters' reads), about batch 1's tokens/s.
    expect(eight.lora!.adaptersPerStep).toBe(8);
    expect(eight.stepSeconds).toBeGreaterThan(8 * plain1.stepSeconds);
    expect(eight.decodeTokensPerSecond!).toBeLessThan(plain1.decodeTokensPerSecond!);
    expect(eight.decodeTokensPerSecond!).toBeGreaterThan(0.8 * plain1.decodeTokensPerSecond!);
  });
  it('estimated, not launched: the launcher writes no adapter files', () => {
    const { o, e } = onLlamaCpp({ 'max-loras': 2 });
    const out = buildLaunch({
      arch: llama,
      options: o,
      gpu: rtx,
      gradAccum: 1,
      powerLimitW: null,
      estimate: e,
      modelRef: llama.hfId ?? llama.id,
    });
    expect(out.outputs.some((x) => x.ok)).toBe(false);
  });
});

describe('multi-LoRA serving in the search', () => {
  it('a job with adapters plans only engines that serve them, with their slots counted', () => {
    const r = plan(
      inputOf('serve-8b-64-users-24gb.yaml', (s) => {
        s.job = { ...s.job, lora: { adapters: 4, rank: 32 } } as typeof s.job;
      }),
    );
    expect(r.plans.length).toBeGreaterThan(0);
    for (const p of r.plans) {
      expect(['vllm', 'sglang']).toContain(p.choices.engine);
      expect(p.options).toMatchObject({ maxLoras: 4, loraRank: 32 });
      expect(p.memory.breakdown.adapters).toBeGreaterThan(0);
    }
  });
});
