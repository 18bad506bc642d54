// MoE fine-tuning timed on each engine's real path (engines/<engine>/memory.ts moeDispatch, expertAdapters;
// time/index.ts expertWork): a per-expert loop pays kernels and under-filled GEMMs per hit expert, a grouped
// GEMM does not; PEFT's ParamWrapper (HF engines, LoRA on fused experts) rebuilds W + ΔW every forward.
import { describe, expect, it } from 'vitest';
import {
  estimateTime,
  modelFacts,
  trainStep,
  trainWork,
  gpuRates,
} from '../../src/core/time/index.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const gpu = findGpu('h100-sxm');
const t = defaultTimeOptions(1);
const lora = (framework: EstimateOptions['framework']): EstimateOptions => ({
  ...defaultOptions('lora'),
  framework,
  loraTargets: ['q', 'k', 'v', 'o', 'gate', 'up', 'down'],
  batch: 4,
  seq: 2048,
  checkpointing: 'full',
});
const step = (model: string, o: EstimateOptions) => estimateTime(resolveModel(model), o, gpu, t);

describe('MoE dispatch by engine', () => {
  it('each engine states its dispatch and expert parallelism', () => {
    // transformers 5.14 (HF_PINS): experts_implementation "grouped_mm" by default (integrations/moe.py @8b584a67).
    expect(FRAMEWORKS.hf.moeDispatch).toBe('grouped');
    expect(FRAMEWORKS.deepspeed.moeDispatch).toBe('grouped');
    expect(FRAMEWORKS.hf.expertAdapters).toBe('param-wrapper');
    expect(FRAMEWORKS.deepspeed.expertAdapters).toBe('param-wrapper');
    expect(FRAMEWORKS.unsloth.expertAdapters).toBeUndefined();
    expect(FRAMEWORKS.torchtune.moeDispatch).toBe('loop');
    expect(FRAMEWORKS.litgpt.moeDispatch).toBe('loop');
    expect(FRAMEWORKS.unsloth.moeDispatch).toBe('grouped');
    expect(FRAMEWORKS.torchtitan.moeDispatch).toBe('grouped');
    expect(FRAMEWORKS.vllm.moeDispatch).toBe('grouped');
    expect(FRAMEWORKS.torchtitan.expertParallel).toBe(true);
    expect(FRAMEWORKS.hf.expertParallel).toBe(false);
  });

  it('a Qwen3-30B-A3B LoRA step on HF (grouped_mm + ParamWrapper) costs about a dense Llama-3-8B step', () => {
    const moe = step('qwen3-30b-a3b', lora('hf'));
    const dense = step('llama-3-8b', lora('hf'));
    expect(moe.moe).toMatchObject({ dispatch: 'grouped', expertParallel: 1, loopSeconds: 0 });
    // 8192 tokens x top-8 over 128 experts: every expert of every layer holds routed tokens.
    expect(moe.moe!.expertsHitPerLayer).toBeCloseTo(128, 3);
    // ParamWrapper builds W + ΔW for all 128 experts of each layer and takes its weight gradient: a
    // large share of the step, paid on the experts' total (not active) weights.
    expect(moe.moe!.adapterDeltaSeconds).toBeGreaterThan(0.2 * moe.stepSeconds);
    // No longer the per-expert loop's ~7x: within 25% of the dense 8B step, not faster than unsloth's.
    expect(moe.stepSeconds).toBeGreaterThan(0.75 * dense.stepSeconds);
    expect(moe.stepSeconds).toBeLessThan(1.25 * dense.stepSeconds);
    expect(dense.moe).toBeUndefined();
  });

  it('without ParamWrapper the same step is faster; the loop is slower still', () => {
    const arch = resolveModel('qwen3-30b-a3b');
    const m = modelFacts(arch);
    const r = gpuRates(gpu, t);
    const o = lora('hf');
    const hf = trainStep(trainWork(m, o, t), r);
    const plain = trainStep(trainWork(m, o, t, 'grouped', false), r);
    const loop = trainStep(trainWork(m, o, t, 'loop', false), r);
    expect(plain).toBeLessThan(hf);
    expect(loop).toBeGreaterThan(3 * hf);
    const unsloth = step('qwen3-30b-a3b', lora('unsloth'));
    const grouped = step('qwen3-30b-a3b', lora('torchtitan'));
    expect(grouped.moe).toMatchObject({
      dispatch: 'grouped',
      loopSeconds: 0,
      adapterDeltaSeconds: 0,
    });
    expect(unsloth.stepSeconds).toBeLessThan(hf);
    // Grouped, the MoE model's 3.3B active parameters cost less than the dense 8B.
    expect(grouped.stepSeconds).toBeLessThan(step('llama-3-8b', lora('torchtitan')).stepSeconds);
  });

  it('attention-only LoRA pays no ParamWrapper cost', () => {
    const o = {
      ...lora('hf'),
      loraTargets: ['q', 'k', 'v', 'o'] as EstimateOptions['loraTargets'],
    };
    expect(step('qwen3-30b-a3b', o).moe!.adapterDeltaSeconds).toBe(0);
  });

  it('the loop term scales with the expert count; grouped only by its per-expert tile padding', () => {
    const arch = resolveModel('qwen3-30b-a3b');
    const base = modelFacts(arch);
    const r = gpuRates(gpu, t);
    const o = lora('hf');
    const loopSeconds = (experts: number) => {
      // Same active work (topK and expert width fixed), E experts to loop over.
      const m = { ...base, experts };
      return (
        trainStep(trainWork(m, o, t, 'loop', false), r) -
        trainStep(trainWork(m, o, t, 'grouped', false), r)
      );
    };
    const d64 = loopSeconds(64);
    const d128 = loopSeconds(128);
    expect(d128).toBeGreaterThan(1.7 * d64);
    expect(d128).toBeLessThan(2.3 * d64);
    const grouped = (experts: number) =>
      trainStep(trainWork({ ...base, experts }, o, t, 'grouped', false), r);
    // torch._grouped_mm rounds each expert's rows up to whole tiles (time/grouped-mm-tiles.ts): more experts at the
    // same routed rows pad a little more, far from the loop's doubling.
    expect(grouped(128)).toBeGreaterThanOrEqual(grouped(64));
    expect(grouped(128) / grouped(64)).toBeLessThan(1.03);
  });

  it('dense models and inference are untouched by the dispatch', () => {
    const arch = resolveModel('llama-3-8b');
    const m = modelFacts(arch);
    const o = lora('hf');
    const r = gpuRates(gpu, t);
    expect(trainStep(trainWork(m, o, t, 'loop'), r)).toBe(
      trainStep(trainWork(m, o, t, 'grouped'), r),
    );
  });
});
