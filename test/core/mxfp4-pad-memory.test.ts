// vLLM allocates an MXFP4 MoE checkpoint's experts at its kernel's padded shape (Mxfp4MoEMethod.create_weights), so
// the resident weights, and the KV pool they leave, follow the same padded shape the time model reads.
import { describe, expect, it } from 'vitest';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { estimateMemory } from '../../src/core/memory/memory.js';
import { gpuContext } from '../../src/core/time/hardware.js';
import { servingGpuContext } from '../../src/core/time/gpu-memory-context.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { mxfp4ExpertPadFactor } from '../../src/core/time/mxfp4-pad.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const roundUp = (x: number, k: number) => Math.ceil(x / k) * k;

/**
 * One GPU's routed-expert bytes as create_weights allocates them, from the config (hidden and expert width 2880):
 * w13 [E, 2 Wp, Hp / 2] and w2 [E, Hp, Wp / 2] uint8 values, scales at Hp / 32 and Wp / 32, bf16 biases [E, 2 Wp]
 * and [E, Hp], over every layer. The memory model splits every expert bias over TP, w2's [E, Hp] included (vLLM adds
 * it on one rank of the row-parallel reduce, but each rank allocates it whole), so w2's bias is taken over TP here.
 */
function expertBytes(layers: number, experts: number, tp: number, hp: number, wp: number) {
  const H = roundUp(2880, hp);
  const W = roundUp(2880 / tp, wp);
  const values = layers * experts * (2 * W * (H / 2) + H * (W / 2));
  const scales = layers * experts * (2 * W * (H / 32) + H * (W / 32));
  const bias = layers * experts * (2 * W + H / tp) * 2;
  return { weights: values + bias, scales };
}

const MODELS = [
  { id: 'gpt-oss-20b', layers: 24, experts: 32 },
  { id: 'gpt-oss-120b', layers: 36, experts: 128 },
];
// Marlin on an A100 (width to 128, hidden to 256); FlashInfer's TensorRT-LLM-gen MoE on a B200 and ROCm on an
// MI300X (both to 256): engines/vllm/mxfp4-pad.ts.
const CARDS = [
  { gpu: 'a100-80gb', hp: 256, wp: 128 },
  { gpu: 'b200', hp: 256, wp: 256 },
  { gpu: 'mi300x', hp: 256, wp: 256 },
];

const opts = (tp: number): EstimateOptions => ({
  ...defaultOptions('inference'),
  weights: 'mxfp4',
  framework: 'vllm',
  tp,
  gpus: tp,
  batch: 8,
  seq: 4096,
});

describe("vLLM's padded MXFP4 experts in memory", () => {
  for (const m of MODELS)
    for (const c of CARDS)
      for (const tp of [1, 2])
        it(`${m.id} on ${c.gpu} at TP ${tp}: resident experts at create_weights' padded shape`, () => {
          const arch = resolveModel(m.id);
          const o = opts(tp);
          const gpu = findGpu(c.gpu);
          const padded = estimateMemory(arch, o, servingGpuContext(gpu, o)).perGpu.breakdown;
          // The same card without the kernel: the checkpoint's shape, and a pool the card's memory sizes.
          const plain = estimateMemory(arch, o, gpuContext(gpu)).perGpu.breakdown;
          const byHand = expertBytes(m.layers, m.experts, tp, c.hp, c.wp);
          const stored = expertBytes(m.layers, m.experts, tp, 1, 1);
          expect(padded.weights - plain.weights).toBeCloseTo(byHand.weights - stored.weights, 0);
          expect(padded.quantConstants - plain.quantConstants).toBeCloseTo(
            byHand.scales - stored.scales,
            0,
          );
          // The pool shrinks by what the pad adds.
          const grew =
            padded.weights + padded.quantConstants - plain.weights - plain.quantConstants;
          expect(grew).toBeGreaterThan(0);
          expect(plain.kvCache - padded.kvCache).toBeCloseTo(grew, -3);
        });

  it('memory holds the experts at the factor the time model reads them', () => {
    const arch = resolveModel('gpt-oss-120b');
    const scales = (tp: number) => expertBytes(36, 128, tp, 1, 1).scales;
    for (const tp of [1, 2, 8])
      for (const c of CARDS) {
        const o = opts(tp);
        const ctx = servingGpuContext(findGpu(c.gpu), o, defaultTimeOptions(tp));
        const k = ctx.mxfp4Kernel!;
        const f = mxfp4ExpertPadFactor(modelFacts(arch), FRAMEWORKS.vllm, o, k, k.kernel);
        const padded = estimateMemory(arch, o, ctx).perGpu.breakdown.quantConstants;
        const plain = estimateMemory(arch, o).perGpu.breakdown.quantConstants;
        expect(f).toBeGreaterThan(1);
        expect((padded - plain) / scales(tp)).toBeCloseTo(f - 1, 12);
      }
  });

  it("Hopper holds Marlin's pad, the kernel vLLM's launch selects there, named or not", () => {
    const arch = resolveModel('gpt-oss-20b');
    const o = opts(1);
    const h100 = findGpu('h100-sxm');
    const plain = estimateMemory(arch, o).perGpu.breakdown.weights;
    const byHand = expertBytes(24, 32, 1, 256, 128);
    const stored = expertBytes(24, 32, 1, 1, 1);
    const marlin = { ...defaultTimeOptions(1), quantFormat: 'marlin' as const };
    for (const t of [undefined, marlin]) {
      const held = estimateMemory(arch, o, servingGpuContext(h100, o, t)).perGpu.breakdown;
      expect(held.weights - plain).toBeCloseTo(byHand.weights - stored.weights, 0);
    }
  });

  it('other engines and weights hold the checkpoint shape', () => {
    const arch = resolveModel('gpt-oss-20b');
    const b200 = findGpu('b200');
    const kernel = servingGpuContext(b200, opts(1)).mxfp4Kernel!;
    for (const o of [
      { ...opts(1), framework: 'sglang' as const },
      { ...opts(1), weights: 'bf16' as const },
    ]) {
      expect(servingGpuContext(b200, o).mxfp4Kernel).toBeUndefined();
      // Even handed the kernel, neither pads.
      const given = { ...gpuContext(b200), mxfp4Kernel: kernel };
      expect(estimateMemory(arch, o, given).perGpu.breakdown).toEqual(
        estimateMemory(arch, o, gpuContext(b200)).perGpu.breakdown,
      );
    }
  });
});
