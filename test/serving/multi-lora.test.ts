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
    expect(engineRejects('llama.cpp', o, 1, 1)).toMatch(/no multi-LoRA serving/);
    const flags = { method: 'inference', framework: 'vllm', 'max-loras': 2, 'lora-rank': 20 };
    const bad = withEngineDefaults(optionsFromFlags(flags), flags);
    expect(engineRefusal(llama, bad, flags)).toMatch(/vllm-max-lora-rank/);
  });
  for (const framework of ['vllm', 'sglang'])
    it(`${framework}: serve.sh enables LoRA and reads back to the same slots`, () => {
      const { o, e } = estimate({ framework, 'max-loras': 4, 'lora-rank': 32 });
      const out = buildLaunch({
        arch: llama,
        options: o,
        gpu: h100,
        gradAccum: 1,
        powerLimitW: null,
        estimate: e,
        modelRef: llama.hfId ?? llama.id,
      });
      const sh = out.outputs
        .flatMap((x) => (x.ok ? x.files : []))
        .find((f) => f.path === 'serve.sh')!.content;
      expect(sh).toContain('--enable-lora');
      expect(readBack(sh).flags).toMatchObject({ 'max-loras': 4, 'lora-rank': 32 });
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
