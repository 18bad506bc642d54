// MoE fine-tuning timed on each engine's real path (engines/<engine>/memory.ts moeDispatch; time/index.ts
// expertWork): a per-expert loop pays kernels and under-filled GEMMs per hit expert, a grouped GEMM does not.
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
    expect(FRAMEWORKS.hf.moeDispatch).toBe('loop');
    expect(FRAMEWORKS.deepspeed.moeDispatch).toBe('loop');
    expect(FRAMEWORKS.torchtune.moeDispatch).toBe('loop');
    expect(FRAMEWORKS.litgpt.moeDispatch).toBe('loop');
    expect(FRAMEWORKS.unsloth.moeDispatch).toBe('grouped');
    expect(FRAMEWORKS.torchtitan.moeDispatch).toBe('grouped');
    expect(FRAMEWORKS.vllm.moeDispatch).toBe('grouped');
    expect(FRAMEWORKS.torchtitan.expertParallel).toBe(true);
    expect(FRAMEWORKS.hf.expertParallel).toBe(false);
  });

  it('a Qwen3-30B-A3B LoRA step on the HF loop is slower than a dense Llama-3-8B LoRA step', () => {
    const moe = step('qwen3-30b-a3b', lora('hf'));
    const dense = step('llama-3-8b', lora('hf'));
    expect(moe.stepSeconds).toBeGreaterThan(dense.stepSeconds);
    expect(moe.moe).toMatchObject({ dispatch: 'loop', expertParallel: 1 });
    // 8192 tokens x top-8 over 128 experts: every expert of every layer holds routed tokens.
    expect(moe.moe!.expertsHitPerLayer).toBeCloseTo(128, 3);
    expect(moe.moe!.loopSeconds).toBeGreaterThan(0.5 * moe.stepSeconds);
    expect(dense.moe).toBeUndefined();
  });

  it('the same step on a grouped-GEMM engine is faster than on the loop', () => {
    const loop = step('qwen3-30b-a3b', lora('hf'));
    const grouped = step('qwen3-30b-a3b', lora('torchtitan'));
    const unsloth = step('qwen3-30b-a3b', lora('unsloth'));
    expect(grouped.moe).toMatchObject({ dispatch: 'grouped', loopSeconds: 0 });
    expect(grouped.stepSeconds).toBeLessThan(loop.stepSeconds / 3);
    expect(unsloth.stepSeconds).toBeLessThan(loop.stepSeconds / 3);
    // Grouped, the MoE model's 3.3B active parameters cost less than the dense 8B.
    expect(grouped.stepSeconds).toBeLessThan(step('llama-3-8b', lora('torchtitan')).stepSeconds);
  });

  it('the loop term scales with the expert count; grouped it does not', () => {
    const arch = resolveModel('qwen3-30b-a3b');
    const base = modelFacts(arch);
    const r = gpuRates(gpu, t);
    const o = lora('hf');
    const loopSeconds = (experts: number) => {
      // Same active work (topK and expert width fixed), E experts to loop over.
      const m = { ...base, experts };
      return trainStep(trainWork(m, o, t, 'loop'), r) - trainStep(trainWork(m, o, t, 'grouped'), r);
    };
    const d64 = loopSeconds(64);
    const d128 = loopSeconds(128);
    expect(d128).toBeGreaterThan(1.7 * d64);
    expect(d128).toBeLessThan(2.3 * d64);
    const grouped = (experts: number) =>
      trainStep(trainWork({ ...base, experts }, o, t, 'grouped'), r);
    expect(grouped(128)).toBeCloseTo(grouped(64), 2);
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
