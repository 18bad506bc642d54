// A request without images skips a decoder's cross-attention layers over a vision tower (Llama 3.2 Vision), while an
// encoder-decoder's cross layers always run (time/model-facts.ts textOnlyArch, servedArch).
import { describe, expect, it } from 'vitest';
import { visionTokens, type Arch } from '../../src/core/model/index.js';
import { buildEstimate } from '../../src/core/estimate.js';
import { modelFacts, servedArch, textOnlyArch } from '../../src/core/time/model-facts.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';
import { archOf, catalogConfig } from '../helpers/model-configs.js';

const catalog = (id: string): Arch => archOf(catalogConfig(id));
const mllama = catalog('llama-3.2-11b-vision');
const t5 = catalog('t0-3b');
const llama = catalog('llama-3.1-8b');
const l4 = findGpu('l4');
const serve: EstimateOptions = { ...defaultOptions('inference'), seq: 1024, batch: 8 };

describe('textOnlyArch', () => {
  it('Llama 3.2 Vision: the eight cross-attention layers leave, the 32 self-attention layers and the tower stay', () => {
    const a = textOnlyArch(mllama);
    expect(mllama.groups.map((g) => [g.name, g.count])).toEqual([
      ['decoder', 32],
      ['cross', 8],
      ['vision', 40],
    ]);
    expect(a.groups.map((g) => [g.name, g.count])).toEqual([
      ['decoder', 32],
      ['vision', 40],
    ]);
    expect(modelFacts(a).layers).toBe(32);
    expect(modelFacts(mllama).layers).toBe(40);
    expect(textOnlyArch(mllama)).toBe(a);
  });

  it('keeps an encoder-decoder (no vision tower) and a decoder-only model as they are', () => {
    expect(t5.groups.some((g) => g.crossAttention)).toBe(true);
    expect(textOnlyArch(t5)).toBe(t5);
    expect(textOnlyArch(llama)).toBe(llama);
  });

  it('servedArch: serving without images runs the text-only layers; with images, or training, all of them', () => {
    expect(servedArch(mllama, serve)).toBe(textOnlyArch(mllama));
    // Llama 3.2 Vision's image reaches the decoder through the cross layers, not as tokens of the sequence.
    expect(visionTokens(mllama, 1)).toBeNull();
    expect(servedArch(mllama, { ...serve, images: 1 })).toBe(mllama);
    expect(servedArch(mllama, { ...defaultOptions('lora'), seq: 1024 })).toBe(mllama);
  });

  it('a text-only decode step of Llama 3.2 Vision reads what its 32 Llama layers read, not 40', () => {
    const step = (a: Arch, o: EstimateOptions) => buildEstimate(a, o, l4).time!.tpotSeconds!;
    const text = step(mllama, serve);
    const withImage = step(mllama, { ...serve, images: 1 });
    expect(text).toBeLessThan(withImage);
    // Llama 3.1 8B has the same 32 layers and vocabulary: the text-only step is within 2% of its step.
    expect(Math.abs(text / step(llama, serve) - 1)).toBeLessThan(0.02);
  });
});
