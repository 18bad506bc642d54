// 4-bit routed experts kept as fused 3-D parameters and dequantized a whole projection at a time (engine profile
// kbitExpertStacks): the forward's k-bit temporary is one layer's gate/up stack over every expert, not one expert's
// linear; engines without the field, model types in its `except` list and 16-bit weights keep the old temporary.
import { describe, expect, it } from 'vitest';
import type { Arch } from '../../src/core/model/index.js';
import { estimateMemory } from '../../src/core/memory/index.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { resolveModel } from '../../src/io/load-model.js';
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';

const opts = (over: Partial<EstimateOptions>): EstimateOptions => ({
  ...defaultOptions(over.method ?? 'qlora'),
  checkpointing: 'offload',
  ...over,
});

const forwardBuffers = (arch: Arch, o: EstimateOptions) =>
  estimateMemory(arch, o).phases.find((p) => p.phase === 'forward')!.parts.buffers;

/** Elements of the largest fused projection (gate + up, or down) over a layer's routed experts. */
function stackElements(arch: Arch): number {
  let m = 0;
  for (const g of arch.groups) {
    const routed = g.linears.filter((l) => l.copies > 1);
    const sum = (roles: string[]) =>
      routed
        .filter((l) => roles.includes(l.role))
        .reduce((a, l) => a + l.copies * l.inFeatures * l.outFeatures, 0);
    m = Math.max(m, sum(['gate', 'up']), sum(['down']));
  }
  return m;
}

describe('whole-stack dequantization of 4-bit fused experts', () => {
  const qwen = resolveModel('qwen3-30b-a3b');

  it('the profile that declares it holds one layer of gate/up experts in bf16 through forward', () => {
    const stacked = Object.values(FRAMEWORKS).find((f) => f.kbitExpertStacks)!;
    expect(stacked).toBeDefined();
    const bytes = stackElements(qwen) * 2;
    expect(bytes).toBeGreaterThan(0.5 * 1024 ** 3);
    expect(forwardBuffers(qwen, opts({ framework: stacked.id }))).toBeGreaterThanOrEqual(bytes);
  });

  it('a profile without it, 16-bit weights and an excepted model type keep far less', () => {
    const stacked = Object.values(FRAMEWORKS).find((f) => f.kbitExpertStacks)!;
    const plain = Object.values(FRAMEWORKS).find(
      (f) => !f.kbitExpertStacks && f.quantFormat === 'bnb' && f.moeDispatch === 'grouped',
    )!;
    const bytes = stackElements(qwen) * 2;
    expect(forwardBuffers(qwen, opts({ framework: plain.id }))).toBeLessThan(bytes / 4);
    const lora = opts({ method: 'lora', weights: 'bf16', framework: stacked.id });
    expect(forwardBuffers(qwen, lora)).toBeLessThan(bytes / 4);
    const excepted = stacked.kbitExpertStacks!.except[0] ?? '';
    expect(excepted).not.toBe('');
    const other: Arch = { ...qwen, modelType: excepted };
    expect(forwardBuffers(other, opts({ framework: stacked.id }))).toBeLessThan(bytes / 4);
  });
});

describe('fused experts a Linear-only quantizer leaves unquantized (unquantizedExperts)', () => {
  const qwen = resolveModel('qwen3-30b-a3b');
  const routed = qwen.groups.reduce(
    (a, g) =>
      a +
      g.count *
        g.linears
          .filter((l) => l.copies > 1)
          .reduce((b, l) => b + l.copies * l.inFeatures * l.outFeatures, 0),
    0,
  );
  const weights = (o: EstimateOptions) => estimateMemory(qwen, o).phases[0]!.parts.weights;
  const leaves = Object.values(FRAMEWORKS).find((f) => f.unquantizedExperts?.includes('nf4'))!;
  const quantizes = Object.values(FRAMEWORKS).find((f) => f.kbitExpertStacks)!;

  it('keeps the routed experts in the float dtype: fp32 after the k-bit upcast, bf16 when serving', () => {
    expect(leaves).toBeDefined();
    const train = weights(opts({ framework: leaves.id }));
    expect(train).toBeGreaterThanOrEqual(routed * (leaves.kbitUpcastsToFp32 ? 4 : 2));
    const serve = weights(opts({ method: 'inference', weights: 'nf4', framework: leaves.id }));
    expect(serve).toBeGreaterThanOrEqual(routed * 2);
    expect(serve).toBeLessThan(routed * 2.5);
  });

  it('an engine that quantizes the fused experts itself stores them at 4 bits', () => {
    expect(weights(opts({ framework: quantizes.id }))).toBeLessThan(routed * 0.75);
  });
});
