// SGLang's overlap scheduler (event_loop_overlap, managers/scheduler.py, sglang==0.5.6) schedules, launches and
// processes each decode step's tokens while the GPU runs the step before: its host work per running request
// (FrameworkProfile.asyncSeqHostSeconds; fixture test/fixtures/measure/sglang-scheduler-host.json,
// scripts/measure/sglang_scheduler_host.py) bounds the step only where it outlasts the GPU's work.
import { describe, expect, it } from 'vitest';
import { estimateTime, gpuRates, modelFacts } from '../../src/core/time/index.js';
import { overlappedHostSeconds } from '../../src/core/time/graph-step.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultOptions, type Framework } from '../../src/schema/estimate.js';
import { defaultTimeOptions } from '../../src/schema/time.js';
import { SGLANG_MEMORY } from '../../src/core/engines/sglang/memory.js';
import { VLLM_MEMORY } from '../../src/core/engines/vllm/memory.js';
import { readMeasureFixture } from '../helpers/measured.js';

const step = (model: string, framework: Framework, batch: number) =>
  estimateTime(
    resolveModel(model),
    { ...defaultOptions('inference'), framework, batch, seq: 256, promptTokens: 128 },
    findGpu('h100-sxm'),
    { ...defaultTimeOptions(8), gpusPerNode: 1 },
  ).stepSeconds;
interface Row {
  running_requests: number;
  median_per_step: { scheduler_us: number; detokenize_us: number };
}
const measured = readMeasureFixture('sglang-scheduler-host.json') as {
  results: Row[];
  slope_us_per_request: { scheduler_us: number };
  versions: { sglang: string };
};
const perSeq = SGLANG_MEMORY.asyncSeqHostSeconds ?? 0;
const perStep = SGLANG_MEMORY.asyncStepHostSeconds ?? 0;

describe("SGLang's overlap scheduler: host work per running request", () => {
  it("is the fixture's measured slope (sglang 0.5.6's scheduler, within 15%); vLLM carries its own", () => {
    expect(measured.versions.sglang).toBe('0.5.6');
    const slope = measured.slope_us_per_request.scheduler_us * 1e-6;
    expect(perSeq / slope).toBeGreaterThan(0.85);
    expect(perSeq / slope).toBeLessThan(1.15);
    expect(VLLM_MEMORY.asyncSeqHostSeconds).toBe(VLLM_MEMORY.serialSeqHostSeconds);
  });

  it('is hidden behind the GPU where the step is longer: a 14B model at 64 running requests does not move', () => {
    // 64 x 15.5 µs + the per-step part is about 1.1 ms, well under the GPU's step for 14B on one H100.
    expect(perStep + 64 * perSeq).toBeLessThan(step('qwen3-14b', 'sglang', 64) / 4);
    expect(step('qwen3-14b', 'sglang', 64)).toBeGreaterThan(0);
  });

  it("has a per-step part of its own: the fixture's one-request step less one request's share", () => {
    const one = measured.results.find((r) => r.running_requests === 1)!.median_per_step
      .scheduler_us;
    const own = (one - measured.slope_us_per_request.scheduler_us) * 1e-6;
    expect(perStep / own).toBeGreaterThan(0.95);
    expect(perStep / own).toBeLessThan(1.05);
    expect(perStep).toBeLessThan((VLLM_MEMORY.asyncStepHostSeconds ?? 0) / 10); // not vLLM's 1.4 ms
  });

  it('floors the step with it: a 0.6B model at 256 requests, the most its H100 graphs take', () => {
    const t = { ...defaultTimeOptions(8), gpusPerNode: 1 };
    const o = {
      ...defaultOptions('inference'),
      framework: 'sglang' as const,
      batch: 256,
      seq: 256,
      promptTokens: 128,
    };
    const m = modelFacts(resolveModel('qwen3-0.6b'));
    const host = overlappedHostSeconds(m, o, t, gpuRates(findGpu('h100-sxm'), t), 1);
    expect(host).toBeCloseTo(perStep + 256 * perSeq, 9);
    // 4.05 ms of host work: the step is at least that long (the GPU's own work, 4.4 ms, is longer here).
    expect(step('qwen3-0.6b', 'sglang', 256)).toBeGreaterThanOrEqual(host);
  });
});
