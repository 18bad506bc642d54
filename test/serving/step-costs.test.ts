// Fixed per-step costs by mechanism: an MoE layer's routing kernels (router, top-k, alignment by expert, the
// weighted sum) on the engines that count them; the labels a serving plan prints.
import { afterEach, describe, expect, it } from 'vitest';
import { buildEstimate } from '../../src/core/estimate.js';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { modelFacts } from '../../src/core/time/index.js';
import { plan } from '../../src/core/plan/index.js';
import { renderFactors, renderMemory } from '../../src/ui/plan-text.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';
import { inputOf } from './plan-input.js';
import { SERVING_GRAPH_KERNEL_SECONDS } from '../../src/core/engines/graph-kernel.js';
import { GRAPH_KERNEL_SECONDS, OPS_PER_LAYER_COMPILED } from '../../src/core/time/train-work.js';

const step = (model: string, framework: string): number => {
  const f = { method: 'inference', framework, batch: 1, seq: 2048 };
  const o = withEngineDefaults(optionsFromFlags(f), f);
  return buildEstimate(resolveModel(model), o, findGpu('h100-sxm'), defaultTimeOptions(1)).time!
    .stepSeconds;
};

describe('MoE routing kernels per decode step', () => {
  const saved = {
    vllm: FRAMEWORKS.vllm.moeRoutingKernels,
    sglang: FRAMEWORKS.sglang.moeRoutingKernels,
  };
  afterEach(() => {
    FRAMEWORKS.vllm.moeRoutingKernels = saved.vllm;
    FRAMEWORKS.sglang.moeRoutingKernels = saved.sglang;
  });
  const withoutRouting = (model: string, framework: 'vllm' | 'sglang'): number => {
    FRAMEWORKS[framework].moeRoutingKernels = 0;
    return step(model, framework);
  };

  it('add the same time per MoE layer on every MoE model, nothing on a dense one', () => {
    const perLayer = (model: string, framework: 'vllm' | 'sglang') => {
      const withRouting = step(model, framework);
      const extra = withRouting - withoutRouting(model, framework);
      FRAMEWORKS[framework].moeRoutingKernels = saved[framework];
      return extra / modelFacts(resolveModel(model)).moeLayers;
    };
    const oss = perLayer('gpt-oss-20b', 'vllm');
    expect(oss).toBeGreaterThan(0);
    // stepSeconds carries four significant figures: per MoE layer that is a few hundredths of a µs.
    expect(perLayer('deepseek-v2-lite', 'vllm')).toBeCloseTo(oss, 7);
    expect(perLayer('gpt-oss-20b', 'sglang')).toBeCloseTo(oss, 7);
    expect(step('llama-3.1-8b', 'vllm')).toBe(withoutRouting('llama-3.1-8b', 'vllm'));
  });
});

describe("graph kernels' cost per decode step (engines/graph-kernel.ts)", () => {
  const saved = FRAMEWORKS.vllm.graphKernelSeconds;
  const savedCycles = FRAMEWORKS.vllm.graphKernelCycles;
  afterEach(() => {
    FRAMEWORKS.vllm.graphKernelSeconds = saved;
    FRAMEWORKS.vllm.graphKernelCycles = savedCycles;
  });
  it("vLLM's and SGLang's graph kernels cost the serving price, each kernel of every layer; llama.cpp keeps the gap", () => {
    expect(FRAMEWORKS.vllm.graphKernelSeconds).toBe(SERVING_GRAPH_KERNEL_SECONDS);
    expect(FRAMEWORKS.sglang.graphKernelSeconds).toBe(SERVING_GRAPH_KERNEL_SECONDS);
    expect(SERVING_GRAPH_KERNEL_SECONDS).toBeGreaterThan(GRAPH_KERNEL_SECONDS);
    // llama.cpp's profile spreads vLLM's but its own kernels keep the shared gap.
    expect(FRAMEWORKS['llama.cpp'].graphKernelSeconds).toBeUndefined();
    const priced = step('llama-3.1-8b', 'vllm');
    FRAMEWORKS.vllm.graphKernelSeconds = undefined;
    FRAMEWORKS.vllm.graphKernelCycles = undefined;
    const gap = step('llama-3.1-8b', 'vllm');
    const kernels = modelFacts(resolveModel('llama-3.1-8b')).layers * OPS_PER_LAYER_COMPILED;
    // stepSeconds carries four significant figures.
    expect(priced - gap).toBeCloseTo(
      kernels * (SERVING_GRAPH_KERNEL_SECONDS - GRAPH_KERNEL_SECONDS),
      5,
    );
  });
});

describe('serving plan labels', () => {
  it('the decode step leaves the batch prefill out of its shares; KV is labelled as in use; the kernel is named', () => {
    const r = plan({ ...inputOf('serve-405b-fp8-8xh100.yaml'), top: 3 });
    const best = r.plans[0]!;
    const line = renderFactors(best);
    expect(line).toMatch(/^decode step /);
    expect(line).not.toMatch(/prefill \d+%/);
    expect(line).toMatch(/prefill of the whole batch [\d.]+ s \(apart\)/);
    expect(renderMemory(best)).toContain(`KV cache in use (${best.options.batch} seqs)`);
    // FP8 W8A8 on Hopper runs CUTLASS, as estimate --json reports in time.settings.quantFormat.
    expect(best.choices.quantFormat).toBe('cutlass');
    const fine = plan({ ...inputOf('default.yaml'), top: 1 }).plans[0]!;
    expect(fine.choices.quantFormat).toBeUndefined();
    expect(renderFactors(fine)).toMatch(/^step /);
  });
});
