/**
 * What transformers 4.x's per-expert loop moves around its experts (engines/hf/memory.ts HF_MOE_LOOP_TRAFFIC,
 * time/moe-loop-traffic.ts): per routed row the gather, the routing-weight product and index_add_ in forward (7
 * hidden-wide passes) and their gradients in backward (8), the output's zeros once a token, the router's int64
 * one-hot expert mask written and read once. Engines whose profile does not say (torchtune's, LitGPT's loops) move
 * none of it; grouped experts never do.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { modelFacts, trainStep, trainWork, gpuRates } from '../../src/core/time/index.js';
import { moeLoopTraffic } from '../../src/core/time/moe-loop-traffic.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const flags = {
  method: 'full',
  batch: 1,
  seq: 4096,
  checkpointing: 'full',
  attention: 'flash',
} as const;
const hf = optionsFromFlags({ ...flags, framework: 'hf' });
const qwen3 = modelFacts(resolveModel('qwen3-30b-a3b'));

describe("transformers 4.x's per-expert loop: its traffic around the experts", () => {
  it('moves 7 hidden-wide passes a routed row forward, 1 a token, and the one-hot mask; 8 passes backward', () => {
    const { fwd, bwd } = moeLoopTraffic(qwen3, hf, 4096, qwen3.layers, true, 1);
    const rows = 4096 * qwen3.topK;
    const perLayerFwd = 2 * qwen3.hidden * (7 * rows + 4096) + 16 * rows * qwen3.experts;
    expect(fwd).toBeCloseTo(perLayerFwd * qwen3.moeLayers, -3);
    expect(bwd).toBeCloseTo(2 * qwen3.hidden * 8 * rows * qwen3.moeLayers, -3);
  });

  it('is none for grouped experts and for engines whose loop is other code', () => {
    expect(moeLoopTraffic(qwen3, hf, 4096, qwen3.layers, false, 1)).toEqual({ fwd: 0, bwd: 0 });
    const tune = optionsFromFlags({ ...flags, framework: 'torchtune' });
    expect(moeLoopTraffic(qwen3, tune, 4096, qwen3.layers, true, 1)).toEqual({ fwd: 0, bwd: 0 });
    const dense = modelFacts(resolveModel('qwen2.5-7b'));
    expect(moeLoopTraffic(dense, hf, 4096, dense.layers, true, 1)).toEqual({ fwd: 0, bwd: 0 });
  });

  it('reaches the step: the forward and its recompute pay it in series with the loop, backward at most its bytes', () => {
    const t = { ...defaultTimeOptions(1), moeLoop: true };
    const w = trainWork(qwen3, hf, t);
    expect(w.moeLoopRowFwdBytes).toBeGreaterThan(0);
    const r = gpuRates(findGpu('h100-sxm'), t);
    const added =
      trainStep(w, r) - trainStep({ ...w, moeLoopRowFwdBytes: 0, moeLoopRowBwdBytes: 0 }, r);
    // The loop syncs per expert, so the forward's traffic adds to the step (full recompute: twice); backward's may
    // run under the host's dispatch of the loop's autograd nodes.
    expect(added).toBeGreaterThanOrEqual(((2 * w.moeLoopRowFwdBytes) / r.mem) * 0.999);
    expect(added).toBeLessThanOrEqual(
      ((2 * w.moeLoopRowFwdBytes + w.moeLoopRowBwdBytes) / r.mem) * 1.001,
    );
  });

  it('grows linearly with the tokens (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1 << 16 }),
        fc.integer({ min: 2, max: 8 }),
        (tokens, k) => {
          const one = moeLoopTraffic(qwen3, hf, tokens, qwen3.layers, true, 1);
          const many = moeLoopTraffic(qwen3, hf, tokens * k, qwen3.layers, true, 1);
          expect(many.fwd).toBeCloseTo(k * one.fwd, -2);
          expect(many.bwd).toBeCloseTo(k * one.bwd, -2);
        },
      ),
      { numRuns: 50 },
    );
  });
});
