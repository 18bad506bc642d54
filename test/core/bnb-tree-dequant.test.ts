/**
 * The pre-0.48 bitsandbytes tree kernel's dequantization pass on the P100, A100 and H100 (time/bnb-dequant.ts) is
 * read off bitsandbytes' own timing of a 0.45.0.dev build (bitsandbytes-foundation/bitsandbytes@1b7b9bb4
 * benchmarking/README.md, "Results (as of v0.45.0)", H100 80GB SXM): NF4 Llama 3.1 70B decodes at 234.8 ms a token at
 * batch 8, where each linear dequantizes its weight and then multiplies it. The estimate of that run with the tree
 * build must land on it. The pass's factor is tied to the build (TimeOptions.bnbTreeDequant), so the same run on the
 * lookup-table kernel is faster, and batch 1 (gemv_4bit, no dequantized copy) does not move. The lookup kernel's
 * own pass is the tree factor over the middle of bitsandbytes-foundation/bitsandbytes#1747's gain on sm60/80/90.
 */
import { describe, expect, it } from 'vitest';
import {
  bnbDequantSlowdown,
  bnbLookupDequantSlowdown,
  bnbTreeDequantSlowdown,
} from '../../src/core/time/bnb-dequant.js';
import {
  decodeStep,
  gpuRates,
  modelFacts,
  trainStep,
  trainWork,
} from '../../src/core/time/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { defaultOptions } from '../../src/schema/estimate.js';
import { optionsFromFlags, type RawFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions, timeOptionsFromFlags } from '../../src/schema/time.js';

// bitsandbytes-foundation/bitsandbytes@1b7b9bb4 benchmarking/README.md: H100, Llama 3.1 70B, NF4, batch 8.
const MEASURED_70B_B8_SECONDS = 0.2348;

function step(batch: number, tree: boolean): number {
  const f: RawFlags = {
    model: 'llama-3.1-70b',
    gpu: 'h100-sxm',
    method: 'inference',
    framework: 'hf',
    weights: 'nf4',
    'quant-format': 'bnb',
    batch: String(batch),
    seq: '96',
  };
  const o = optionsFromFlags(f);
  const t = { ...timeOptionsFromFlags(f, o), bnbTreeDequant: tree };
  const gpu = findGpu('h100-sxm');
  return decodeStep(modelFacts(resolveModel('llama-3.1-70b')), o, t, gpuRates(gpu, t)).stepSeconds;
}

describe('bitsandbytes tree-kernel dequantization on sm90', () => {
  it("reproduces bitsandbytes' H100 timing of NF4 Llama 3.1 70B at batch 8 within 3%", () => {
    const s = step(8, true);
    expect(Math.abs(s / MEASURED_70B_B8_SECONDS - 1)).toBeLessThanOrEqual(0.03);
  });

  it('the lookup-table build (no tree) is faster; batch 1 (gemv_4bit) does not move', () => {
    expect(step(8, false)).toBeLessThan(0.8 * step(8, true));
    expect(step(1, true)).toBe(step(1, false));
  });

  it('one factor for sm60/80/90, the T4 its own, none on sm86/sm89', () => {
    expect(bnbTreeDequantSlowdown(8.0)).toBe(bnbTreeDequantSlowdown(9.0));
    expect(bnbTreeDequantSlowdown(6.0)).toBe(bnbTreeDequantSlowdown(9.0));
    expect(bnbTreeDequantSlowdown(7.5)).toBeGreaterThan(1);
    expect(bnbTreeDequantSlowdown(8.6)).toBe(1);
    expect(bnbTreeDequantSlowdown(8.9)).toBe(1);
  });

  it("prices the lookup kernel at the tree factor over bitsandbytes-foundation/bitsandbytes#1747's middle gain", () => {
    const gain = Math.sqrt(1.36 * 2.07); // bitsandbytes-foundation/bitsandbytes#1747, P100/A100/H100
    for (const cc of [6.0, 8.0, 9.0]) {
      expect(bnbLookupDequantSlowdown(cc)).toBeCloseTo(bnbTreeDequantSlowdown(cc) / gain, 9);
      expect(bnbLookupDequantSlowdown(cc)).toBeGreaterThan(1);
      expect(bnbDequantSlowdown(cc, false)).toBe(bnbLookupDequantSlowdown(cc));
      expect(bnbDequantSlowdown(cc, true)).toBe(bnbTreeDequantSlowdown(cc));
    }
    for (const cc of [7.5, 8.6, 8.9]) expect(bnbLookupDequantSlowdown(cc)).toBe(1);
  });

  it("a QLoRA step's 4-bit passes on an A100 take the lookup factor, not the memory rate", () => {
    const m = modelFacts(resolveModel('llama-2-13b'));
    const o = { ...defaultOptions('qlora'), weights: 'nf4' as const, batch: 2, seq: 2048 };
    const gpu = findGpu('a100-80gb-sxm');
    const run = (tree: boolean) => {
      const t = { ...defaultTimeOptions(8), bnbTreeDequant: tree };
      const w = trainWork(m, o, t);
      return { w, s: trainStep(w, gpuRates(gpu, t)), mem: gpuRates(gpu, t).mem };
    };
    const lookup = run(false);
    const tree = run(true);
    expect(lookup.w.bnb4DequantBytes).toBeGreaterThan(0);
    expect(lookup.w.bnb4DequantBytes).toBe(tree.w.bnb4DequantBytes);
    expect([lookup.w.bnbTreeDequant, tree.w.bnbTreeDequant]).toEqual([false, true]);
    // The two builds differ only in the factor on the same bytes: tree minus lookup.
    const gap = (bnbTreeDequantSlowdown(8.0) - bnbLookupDequantSlowdown(8.0)) / lookup.mem;
    expect(tree.s - lookup.s).toBeCloseTo(
      lookup.w.microBatches * lookup.w.bnb4DequantBytes * gap,
      6,
    );
  });
});
