/** ZeRO-3's backward under full recompute: which gathered parameters it finds kept (stage3_max_reuse_distance). */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { modelFacts, trainWork } from '../../src/core/time/index.js';
import {
  backwardRegatherShare,
  backwardRegatherShares,
} from '../../src/core/time/zero-collectives.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { linearModules } from '../../src/core/model/trainable.js';
import { resolveModel } from '../../src/io/load-model.js';
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

// DeepSpeed's default stage3_max_reuse_distance (deepspeed/runtime/zero/config.py), the engine profile's field.
const REUSE = FRAMEWORKS.deepspeed.zeroHooks!.maxReuseDistance!;
const full = (framework: 'deepspeed' | 'hf', checkpointing: 'full' | 'none'): EstimateOptions => ({
  ...defaultOptions('full'),
  framework,
  weights: 'bf16',
  compute: 'bf16',
  batch: 1,
  seq: 4096,
  checkpointing,
  attention: 'flash',
  zero: 3,
  gpus: 8,
});
const llama7b = modelFacts(resolveModel('meta-llama/Llama-2-7b-hf'));
const qwen72b = modelFacts(resolveModel('Qwen/Qwen2.5-72B'));

/** The elements of the model's decoder layers' linears (the groups the share walks, vision aside). */
function layerLinearElements(m: typeof llama7b): number {
  let n = 0;
  for (const g of m.arch.groups)
    if (g.name !== 'vision')
      for (const l of linearModules(g)) n += g.count * l.inFeatures * l.outFeatures * l.copies;
  return n;
}

describe("ZeRO-3's backward reuse of the recompute's gathers", () => {
  it("the profile carries DeepSpeed's 1e9-element default; FSDP has none", () => {
    expect(REUSE).toBe(1e9);
    expect(FRAMEWORKS.hf.zeroHooks?.maxReuseDistance).toBeUndefined();
  });

  it('a Llama-2-7B layer (202M elements) stays gathered whole: only the embeddings and head come again', () => {
    const share = backwardRegatherShare(llama7b, full('deepspeed', 'full'), REUSE);
    const outside = 1 - layerLinearElements(llama7b) / llama7b.total;
    expect(share).toBeCloseTo(outside, 6);
    expect(share).toBeLessThan(0.2);
  });

  it("a per-expert loop keeps only the experts near its end: Qwen3-30B-A3B's last 106 of 128", () => {
    const qwen3moe = modelFacts(resolveModel('qwen3-30b-a3b'));
    const o = full('deepspeed', 'full');
    const layer = qwen3moe.arch.groups.find((g) => g.name !== 'vision')!;
    const experts = linearModules(layer).filter((l) => l.copies > 1);
    const expert = experts.reduce((s, l) => s + l.inFeatures * l.outFeatures, 0);
    // An expert's gate, up and down (4.7M elements) stay gathered from the recompute to the backward while twice the
    // later experts' elements (and its own later linears) stay within 1e9: experts 22 to 127.
    const keptExperts = Array.from({ length: 128 }, (_, e) => e).filter(
      (e) => 2 * (127 - e) * expert < REUSE,
    ).length;
    expect(keptExperts).toBe(106);
    const loop = backwardRegatherShare(qwen3moe, o, REUSE, true);
    const grouped = backwardRegatherShare(qwen3moe, o, REUSE, false);
    // Grouped, each projection of all 128 experts (201M) is one module and all three are kept; looped, fewer.
    expect(loop).toBeGreaterThan(grouped);
    const lost = (layer.count * (128 - keptExperts) * expert) / qwen3moe.total;
    // Every expert linear within the window but the first expert's own gate is kept with its later linears counted.
    expect(loop - grouped).toBeGreaterThan(lost - (layer.count * expert) / qwen3moe.total);
    expect(loop - grouped).toBeLessThanOrEqual(lost + (layer.count * expert) / qwen3moe.total);
    const shares = backwardRegatherShares(qwen3moe, o, REUSE, true);
    expect(shares.loop).toBeCloseTo((128 - keptExperts) / 128, 1);
    // Without a loop there are no looped collectives.
    expect(backwardRegatherShares(qwen3moe, o, REUSE, false).loop).toBe(0);
  });

  it("a Qwen2.5-72B layer (0.88B) gathers q, k, v and o again: twice the MLP's 727M is past 1e9", () => {
    const share = backwardRegatherShare(qwen72b, full('deepspeed', 'full'), REUSE);
    const layer = qwen72b.arch.groups.find((g) => g.name !== 'vision')!;
    const attn = linearModules(layer)
      .filter((l) => l.roles.some((r) => ['q', 'k', 'v', 'o'].includes(r)))
      .reduce((s, l) => s + l.inFeatures * l.outFeatures, 0);
    const outside = 1 - layerLinearElements(qwen72b) / qwen72b.total;
    expect(share).toBeCloseTo(outside + (layer.count * attn) / qwen72b.total, 6);
  });

  it('a longer reuse distance never gathers more again; none keeps nothing', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 1e10, noNaN: true }),
        fc.double({ min: 1, max: 10, noNaN: true }),
        (d, k) => {
          const o = full('deepspeed', 'full');
          const a = backwardRegatherShare(qwen72b, o, d);
          const b = backwardRegatherShare(qwen72b, o, d * k);
          return a >= 0 && a <= 1 && b <= a + 1e-12;
        },
      ),
    );
    expect(backwardRegatherShare(llama7b, full('deepspeed', 'full'), 0)).toBe(1);
  });

  it('DeepSpeed under full recompute moves two passes and the share; reentrant FSDP three; without recompute both two', () => {
    const t = defaultTimeOptions(2);
    const ds = trainWork(llama7b, full('deepspeed', 'full'), t);
    const share = backwardRegatherShare(llama7b, full('deepspeed', 'full'), REUSE);
    expect(ds.gatherBytes / ds.gatherPassBytes).toBeCloseTo(2 + share, 9);
    const fsdp = trainWork(llama7b, full('hf', 'full'), { ...t, reentrantCheckpoint: true });
    expect(fsdp.gatherBytes / fsdp.gatherPassBytes).toBeCloseTo(3, 9);
    for (const f of ['deepspeed', 'hf'] as const) {
      const w = trainWork(llama7b, full(f, 'none'), t);
      expect(w.gatherBytes / w.gatherPassBytes).toBeCloseTo(2, 9);
    }
  });
});
