/**
 * A transformers 4.x build's per-expert loop (TimeOptions.moeLoop, set by `validate --throughput` for rows whose
 * `moe_dispatch` is 'loop'): the experts run as the loop, and the loop's backward pays the gather gradient of
 * `hidden_states[None, top_x]` (a zero-filled copy of the layer input per expert, added into the input's
 * gradient: four passes over tokens x hidden per hit expert per MoE layer).
 */
import { describe, expect, it } from 'vitest';
import { modelFacts, trainStep, trainWork, gpuRates } from '../../src/core/time/index.js';
import { TRAIN_PHASES } from '../../src/core/time/model-facts.js';
import { EAGER_OP_SECONDS, SYNCED_LOOP_OP_SECONDS } from '../../src/core/time/train-work.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const a100 = findGpu('a100-80gb-sxm');
const full = optionsFromFlags({
  method: 'full',
  batch: 1,
  seq: 4096,
  checkpointing: 'full',
  attention: 'flash',
  framework: 'hf',
});

describe('MoE experts as a per-expert loop (moeLoop)', () => {
  it('switches an MoE model on the transformers engines from the grouped GEMM to the loop', () => {
    const m = modelFacts(resolveModel('qwen3-30b-a3b'));
    const t = defaultTimeOptions(1);
    expect(trainWork(m, full, t).moeDispatch).toBe('grouped');
    const looped = trainWork(m, full, { ...t, moeLoop: true });
    expect(looped.moeDispatch).toBe('loop');
    expect(looped.moeLoopOps).toBeGreaterThan(0);
    const r = gpuRates(a100, t);
    expect(trainStep(looped, r)).toBeGreaterThan(trainStep(trainWork(m, full, t), r));
  });

  it("the loop's backward moves four passes of the layer input per hit expert per MoE layer", () => {
    const m = modelFacts(resolveModel('qwen3-30b-a3b'));
    const w = trainWork(m, full, { ...defaultTimeOptions(1), moeLoop: true });
    // 4,096 tokens x top-8 of 128 experts: every expert is hit in every layer.
    expect(w.expertsHit).toBeCloseTo(m.experts, 6);
    // 4 passes x 4,096 tokens x hidden x 2 bytes (bf16) x 128 experts x MoE layers.
    expect(w.moeLoopBwdBytes).toBeCloseTo(4 * 4096 * m.hidden * 2 * m.experts * m.moeLayers, -3);
    // The grouped GEMM has no per-expert gather in autograd.
    expect(trainWork(m, full, defaultTimeOptions(1)).moeLoopBwdBytes).toBe(0);
  });

  it("prices the loop's forward ops at the synced rate a loop benchmark measures (huggingface/transformers#42697)", () => {
    // Qwen1.5-MoE-A2.7B on an A100 at batch 4 x 16 tokens: the loop's forward 431.87 ms less the layers' other ops
    // (24 x 62 at 10 µs), over 24 layers x 59.3 hit experts x 16 ops a hit expert. (The grouped_mm run is not the
    // layers without experts: on an A100 it is torch's per-group fallback, time/grouped-mm-cost.ts.)
    expect(SYNCED_LOOP_OP_SECONDS * 1e6).toBeCloseTo(18.31, 2);
    expect(SYNCED_LOOP_OP_SECONDS).toBeGreaterThan(EAGER_OP_SECONDS);
    const m = modelFacts(resolveModel('qwen3-30b-a3b'));
    const t = defaultTimeOptions(1);
    const looped = trainWork(m, full, { ...t, moeLoop: true });
    const phases = new Float64Array(TRAIN_PHASES.length);
    trainStep(looped, gpuRates(a100, t), phases);
    // The forward holds at least the loop's ops at the synced rate (the GPU's expert work adds to them).
    expect(phases[TRAIN_PHASES.indexOf('forward')]).toBeGreaterThan(
      looped.moeLoopOps * SYNCED_LOOP_OP_SECONDS,
    );
  });

  it('leaves a dense model and a model that runs densely (Llama-4 on transformers) as they were', () => {
    const t = defaultTimeOptions(1);
    const dense = modelFacts(resolveModel('llama-3.1-8b'));
    expect(trainWork(dense, full, { ...t, moeLoop: true })).toEqual(trainWork(dense, full, t));
    const scout = modelFacts(resolveModel('llama-4-scout-17b-16e'));
    expect(trainWork(scout, full, { ...t, moeLoop: true }).moeDispatch).toBe('dense');
  });
});
