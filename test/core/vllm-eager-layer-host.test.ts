// vLLM's decoder layer run eagerly (`--enforce-eager`, or a batch above its largest captured graph) spends host time in
// its own Python beside the ops it issues: the modules' calls, CustomOp dispatch, the attention's opaque custom ops and
// their forward-context lookups, views and slices. Timed on a CPU with the vllm 0.15.1 wheel's Llama and Qwen3 layers,
// kernels stubbed (FrameworkProfile.eagerLayerHostSeconds; fixture test/fixtures/measure/vllm-eager-layer-host.json,
// scripts/measure/vllm_eager_layer_host.py). The engine core's thread issues that forward after its step work
// (FrameworkProfile.forwardOnStepThread), so the two add.
import { describe, expect, it } from 'vitest';
import { estimateTime } from '../../src/core/time/index.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultOptions, type Framework } from '../../src/schema/estimate.js';
import { defaultTimeOptions } from '../../src/schema/time.js';
import { VLLM_MEMORY } from '../../src/core/engines/vllm/memory.js';
import { SGLANG_MEMORY } from '../../src/core/engines/sglang/memory.js';
import { VLLM_EAGER_LAYER_PYTHON_SECONDS } from '../../src/core/engines/vllm/eager-ops.js';
import { EAGER_DECODE_OP_SECONDS } from '../../src/core/time/decode-host.js';
import { OPS_PER_LAYER_COMPILED } from '../../src/core/time/train-work.js';
import { readMeasureFixture } from '../helpers/measured.js';

interface LayerRow {
  batch: number;
  layer_us: number;
  stubbed_calls: number;
}
const measured = readMeasureFixture('vllm-eager-layer-host.json') as {
  vllm: string;
  empty_alloc_us: number;
  layers: { llama: LayerRow[]; qwen3: LayerRow[] };
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const step = (framework: Framework, batch: number, graphMaxBatch?: number) =>
  estimateTime(
    resolveModel('qwen3-14b'),
    { ...defaultOptions('inference'), framework, batch, seq: 256, promptTokens: 128 },
    findGpu('h100-sxm'),
    { ...defaultTimeOptions(8), gpusPerNode: 1, graphMaxBatch },
  ).stepSeconds;

describe("vLLM's eager decoder layer: the Python around its ops", () => {
  it('is the fixture: the Llama layer less its two allocations (vllm 0.15.1, within 10%)', () => {
    expect(measured.vllm).toBe('0.15.1');
    const us = median(measured.layers.llama.map((r) => r.layer_us)) - 2 * measured.empty_alloc_us;
    expect(VLLM_EAGER_LAYER_PYTHON_SECONDS / (us * 1e-6)).toBeGreaterThan(0.9);
    expect(VLLM_EAGER_LAYER_PYTHON_SECONDS / (us * 1e-6)).toBeLessThan(1.1);
    expect(VLLM_MEMORY.eagerLayerHostSeconds).toBe(VLLM_EAGER_LAYER_PYTHON_SECONDS);
  });

  it('stubs the kernels the counted ops hold, at every batch: the compiled count less its two allocations', () => {
    for (const r of measured.layers.llama) expect(r.stubbed_calls).toBe(OPS_PER_LAYER_COMPILED - 2);
    // Qwen3's q and k norms: one rms_norm kernel each.
    for (const r of measured.layers.qwen3) expect(r.stubbed_calls).toBe(OPS_PER_LAYER_COMPILED);
    // Nearly flat in the batch: the Python does not loop over sequences.
    const l = measured.layers.llama.map((r) => r.layer_us);
    expect(Math.max(...l) / Math.min(...l)).toBeLessThan(1.15);
  });

  it("is SGLang's too (its layers are adapted from vLLM's), whose overlap loop also issues the forward itself", () => {
    expect(SGLANG_MEMORY.eagerLayerHostSeconds).toBe(VLLM_EAGER_LAYER_PYTHON_SECONDS);
    expect(SGLANG_MEMORY.forwardOnStepThread).toBe(true);
    expect(VLLM_MEMORY.forwardOnStepThread).toBe(true);
  });

  it("an eager step is at least the step work plus each layer's ops and Python, issued from one thread", () => {
    // Qwen3-14B: 40 layers of 12 counted ops and 6 q/k-norm ops above one sequence.
    const host =
      (VLLM_MEMORY.asyncStepHostSeconds ?? 0) +
      40 *
        ((OPS_PER_LAYER_COMPILED + 6) * EAGER_DECODE_OP_SECONDS + VLLM_EAGER_LAYER_PYTHON_SECONDS);
    expect(step('vllm', 16, 0)).toBeGreaterThanOrEqual(host * 0.995);
    // The captured step at that batch is the GPU's, well under it.
    expect(step('vllm', 16)).toBeLessThan(host);
  });
});
