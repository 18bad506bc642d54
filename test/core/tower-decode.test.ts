// A multimodal checkpoint's vision tower runs once per image in the encoder phase (time/vision.ts): a decode step,
// a text-token prefill and a text-only fine-tune read the language model's linears only.
import { describe, expect, it } from 'vitest';
import { estimateTime, modelFacts } from '../../src/core/time/index.js';
import { visionTokens, type Arch } from '../../src/core/model/index.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const arch = resolveModel('google/gemma-3-27b-it');
/** The same model with its vision tower taken out of the config. */
const textOnly: Arch = { ...arch, groups: arch.groups.filter((g) => g.name !== 'vision') };
const h100 = findGpu('h100-sxm');
const t = defaultTimeOptions(1);
const phase = (r: ReturnType<typeof estimateTime>, p: string) =>
  r.phases.find((x) => x.phase === p)?.seconds ?? 0;
const withImages = (o: EstimateOptions, images: number): EstimateOptions => ({
  ...o,
  seq: o.seq + visionTokens(arch, images)!.tokens,
  images,
});

describe('vision tower outside the per-token linears', () => {
  it('the facts keep the tower apart: stored in total, not in linearTotal', () => {
    const m = modelFacts(arch);
    const n = modelFacts(textOnly);
    expect(m.towerLinear).toBeGreaterThan(3e8);
    expect(n.towerLinear).toBe(0);
    expect(m.linearTotal).toBe(n.linearTotal);
    expect(m.total - n.total).toBeGreaterThanOrEqual(m.towerLinear);
    expect(m.active - n.active).toBeLessThan(m.towerLinear / 100);
  });

  const serve: EstimateOptions = { ...defaultOptions('inference'), batch: 8, seq: 2048 };
  it('a decode step reads what the tower-less model reads', () => {
    const a = estimateTime(arch, serve, h100, t);
    const b = estimateTime(textOnly, serve, h100, t);
    expect(phase(a, 'decode-weights')).toBeGreaterThan(0);
    expect(phase(a, 'decode-weights')).toBeCloseTo(phase(b, 'decode-weights'), 12);
    expect(a.stepSeconds).toBeCloseTo(b.stepSeconds, 12);
  });

  it('with images the tower is charged once, in the encoder phase, and decode is unchanged', () => {
    const o = withImages(serve, 1);
    const a = estimateTime(arch, o, h100, t);
    const b = estimateTime(arch, { ...o, images: 0 }, h100, t);
    expect(phase(a, 'vision-encoder')).toBeGreaterThan(0);
    expect(phase(b, 'vision-encoder')).toBe(0);
    expect(phase(a, 'decode-weights')).toBeCloseTo(phase(b, 'decode-weights'), 12);
  });

  const qlora: EstimateOptions = { ...defaultOptions('qlora'), batch: 1, seq: 1024 };
  it('a text-only QLoRA step dequantizes the language model only', () => {
    const a = estimateTime(arch, qlora, h100, t);
    const b = estimateTime(textOnly, qlora, h100, t);
    expect(phase(a, 'dequantize')).toBeGreaterThan(0);
    expect(phase(a, 'dequantize')).toBeCloseTo(phase(b, 'dequantize'), 12);
    expect(phase(a, 'forward')).toBeCloseTo(phase(b, 'forward'), 12);
  });

  it('with images the tower runs: its linears dequantize and its forward is the encoder phase', () => {
    const o = withImages(qlora, 1);
    const a = estimateTime(arch, o, h100, t);
    const b = estimateTime(arch, { ...o, images: 0 }, h100, t);
    expect(phase(a, 'vision-encoder')).toBeGreaterThan(0);
    expect(phase(a, 'dequantize')).toBeGreaterThan(phase(b, 'dequantize'));
  });
});
