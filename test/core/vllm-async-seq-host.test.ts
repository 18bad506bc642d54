// vLLM V1 under async scheduling still runs its engine core's per-request work on the step's thread:
// EngineCore.step_with_batch_queue (vllm/v1/engine/core.py) schedules step n+1 (Scheduler.schedule, the model runner's
// input preparation) and applies step n's output (update_from_output) in the thread that issues the forward. That work,
// about 10 µs a running request in the v0.11.0 wheel's code timed on a CPU (test/fixtures/measure/vllm-v1-engine-host.json),
// is FrameworkProfile.asyncSeqHostSeconds: hidden behind a captured step's GPU work, added to an eager step's launches.
import { describe, expect, it } from 'vitest';
import { estimateTime, gpuRates, modelFacts } from '../../src/core/time/index.js';
import { overlappedHostSeconds } from '../../src/core/time/graph-step.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions, type TimeOptions } from '../../src/schema/time.js';
import { VLLM_MEMORY } from '../../src/core/engines/vllm/memory.js';

const t: TimeOptions = { ...defaultTimeOptions(1), gpusPerNode: 1 };
const eager: TimeOptions = { ...t, graphMaxBatch: 0 };
const opts = (batch: number) => ({
  ...defaultOptions('inference'),
  framework: 'vllm' as const,
  batch,
  seq: 778,
  promptTokens: 227,
});
const perSeq = VLLM_MEMORY.asyncSeqHostSeconds ?? 0;

describe("vLLM's async scheduler: host work per running request on the step's thread", () => {
  it("is the serial scheduler's measured figure, the same code (about 10 µs)", () => {
    expect(perSeq).toBe(VLLM_MEMORY.serialSeqHostSeconds);
    expect(perSeq).toBeGreaterThan(5e-6);
    expect(perSeq).toBeLessThan(2e-5);
  });

  it("adds to an eager step's host floor a running request at a time", () => {
    const m = modelFacts(resolveModel('llama-3.1-8b'));
    const r = gpuRates(findGpu('a100-80gb-sxm'), eager);
    const host = (b: number) => overlappedHostSeconds(m, opts(b), eager, r, 1);
    // The launches do not grow with the batch (the layer's Python and its ops are per layer); the requests' work does.
    expect(host(50) - host(20)).toBeCloseTo(30 * perSeq, 9);
  });

  it('is hidden behind the GPU where the step is captured: a 14B model at 64 running requests on an H100', () => {
    const m = modelFacts(resolveModel('qwen3-14b'));
    const h100 = findGpu('h100-sxm');
    const host = overlappedHostSeconds(m, opts(64), t, gpuRates(h100, t), 1);
    expect(host).toBeCloseTo((VLLM_MEMORY.asyncStepHostSeconds ?? 0) + 64 * perSeq, 9);
    expect(estimateTime(resolveModel('qwen3-14b'), opts(64), h100, t).stepSeconds).toBeGreaterThan(
      2 * host,
    );
  });
});
