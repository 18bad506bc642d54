// PEFT's ParamWrapper inside a per-expert loop (time/param-wrapper.ts expertParamLoraWork): a parametrized weight is
// rebuilt at each access (torch/nn/utils/parametrize.py get_parametrized, no cached() context open), and
// transformers 4.55's GptOssExperts reads gate_up_proj[expert_idx] and down_proj[expert_idx] once per hit expert, so
// W + ΔW over the layer's experts is written once per hit expert, and its index gradient summed once per hit expert.
import { describe, expect, it } from 'vitest';
import { gpuRates, modelFacts, trainStep, trainWork } from '../../src/core/time/index.js';
import { deltaWork, expertParamLoraWork } from '../../src/core/time/param-wrapper.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const arch = resolveModel('gpt-oss-20b');
const m = modelFacts(arch);
const o: EstimateOptions = {
  ...defaultOptions('lora'),
  framework: 'hf',
  loraRank: 8,
  loraTargets: ['q', 'k', 'v', 'o'],
  batch: 4,
  seq: 2048,
  checkpointing: 'full',
};
const r = gpuRates(findGpu('h100-sxm'), defaultTimeOptions(1));

describe("ParamWrapper on some layers' experts, inside the per-expert loop", () => {
  it('one access a pass is deltaWork over the adapted layers with gate, up and down adapted', () => {
    const once = expertParamLoraWork(m, o, 1, m.moeLayers, 2, 3, 1);
    const d = deltaWork(
      m,
      { ...o, loraTargets: ['q', 'k', 'v', 'o', 'gate', 'up', 'down'] },
      true,
      1,
      3,
      2,
    );
    expect(once.fwdBytes).toBeCloseTo(d.fwdBytes, 0);
    expect(once.bwdBytes).toBeCloseTo(d.bwdBytes, 0);
    // The weight gradient of W' covers the adapted layers only.
    expect(once.share).toBeCloseTo(3 / m.moeLayers, 9);
  });

  it('each further access rebuilds W + ΔW (3 passes) and sums another index gradient (4 passes)', () => {
    const weights = m.experts * m.expertWeightsPerLayer * 3;
    const once = expertParamLoraWork(m, o, 1, m.moeLayers, 2, 3, 1);
    const hit = expertParamLoraWork(m, o, 1, m.moeLayers, 2, 3, m.experts);
    expect(hit.fwdBytes - once.fwdBytes).toBeCloseTo((m.experts - 1) * 3 * 2 * weights, -3);
    expect(hit.bwdBytes - once.bwdBytes).toBeCloseTo((m.experts - 1) * 4 * 2 * weights, -3);
    expect(hit.fwdFlops).toBe(once.fwdFlops);
  });

  it('the loop pays it per hit expert, grouped experts once; none without the field', () => {
    const t = { ...defaultTimeOptions(1), moeLoop: true, expertParamLoraLayers: 3 };
    const loop = trainWork(m, o, t, 'loop');
    const grouped = trainWork(m, o, t, 'grouped');
    // 8,192 tokens x top-4 over 32 experts: every expert of every layer is hit.
    expect(loop.expertsHit).toBeCloseTo(m.experts, 3);
    expect(loop.deltaFwdBytes).toBeGreaterThan(20 * grouped.deltaFwdBytes);
    const without = trainWork(m, o, { ...t, expertParamLoraLayers: undefined }, 'loop');
    expect(without.deltaFwdBytes).toBe(0);
    expect(trainStep(loop, r)).toBeGreaterThan(trainStep(without, r) + 0.3);
  });
});
