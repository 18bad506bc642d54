// explain's time verdict: the dominant phase is the largest one, and the advice follows its mechanism.
import { describe, expect, it } from 'vitest';
import { explainFit } from '../../src/core/plan/index.js';
import { estimateTime } from '../../src/core/time/index.js';
import { timeVerdict } from '../../src/core/time/verdict.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions } from '../../src/schema/time.js';
import { renderExplainText } from '../../src/ui/explain-text.js';

const arch = resolveModel('llama-2-7b');

function verdict(o: EstimateOptions, gpuId: string) {
  const t = estimateTime(arch, o, findGpu(gpuId), defaultTimeOptions(o.gpus));
  return { t, v: timeVerdict(t) };
}

describe('time verdict', () => {
  it('names the largest phase with its share of the step', () => {
    const { t, v } = verdict({ ...defaultOptions('full'), gpus: 8, zero: 3 }, 'a100-80gb-sxm');
    const max = Math.max(...t.phases.map((p) => p.seconds));
    expect(t.phases.find((p) => p.phase === v.dominant.phase)!.seconds).toBe(max);
    expect(v.dominant.share).toBeGreaterThan(0);
    expect(v.dominant.share).toBeLessThanOrEqual(1);
    expect(v.bound).toBe(t.bound);
  });

  it('eager HF decode of a 4-bit model is overhead-bound: CUDA graphs lift it', () => {
    const o = { ...defaultOptions('inference'), weights: 'int4' as const };
    const { v } = verdict(o, 'rtx-4090');
    expect(v.dominant.phase).toBe('overhead');
    expect(v.lift).toMatch(/--compile|vllm/);
    // compiled decoding is faster, as the advice claims
    const c = verdict({ ...o, compile: true }, 'rtx-4090').v;
    expect(c.decodeTokensPerSecond!).toBeGreaterThan(v.decodeTokensPerSecond!);
  });

  it('explain shows the verdict for a fitting and an overflowing configuration', () => {
    const fits = explainFit(
      arch,
      { ...defaultOptions('qlora'), batch: 1, seq: 512 },
      findGpu('rtx-4090'),
    );
    expect(fits.fits).toBe(true);
    expect(renderExplainText(fits)).toMatch(
      /time: .* dominates \(\d+% of the step\); to lift it: /,
    );
    const over = explainFit(arch, defaultOptions('full'), findGpu('rtx-4090'));
    expect(over.fits).toBe(false);
    expect(renderExplainText(over)).toMatch(/^as given, time: /m);
  });
});
