// vLLM V1's engine core before async scheduling ran its host work in series with the GPU, and that work grows with
// the running requests: Scheduler.schedule, update_from_output and the model runner's input preparation, about 10 µs
// per running request a step in the v0.11.0 wheel's code timed on a CPU (FrameworkProfile.serialSeqHostSeconds;
// fixture test/fixtures/measure/vllm-v1-engine-host.json, scripts/measure/vllm_v1_engine_host.py).
import { describe, expect, it } from 'vitest';
import { estimateTime, gpuRates, modelFacts } from '../../src/core/time/index.js';
import { overlappedHostSeconds } from '../../src/core/time/graph-step.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultOptions, type Framework } from '../../src/schema/estimate.js';
import { defaultTimeOptions, type TimeOptions } from '../../src/schema/time.js';
import { VLLM_MEMORY } from '../../src/core/engines/vllm/memory.js';
import { SGLANG_MEMORY } from '../../src/core/engines/sglang/memory.js';
import { readMeasureFixture } from '../helpers/measured.js';

const step = (framework: Framework, batch: number, time: Partial<TimeOptions> = {}) =>
  estimateTime(
    resolveModel('qwen3-14b'),
    { ...defaultOptions('inference'), framework, batch, seq: 256, promptTokens: 128 },
    findGpu('h100-sxm'),
    { ...defaultTimeOptions(8), gpusPerNode: 1, ...time },
  ).stepSeconds;
const serial = { serialScheduler: true };
interface HostRow {
  running: number;
  total_us: number;
}
const measured = readMeasureFixture('vllm-v1-engine-host.json') as {
  rows: HostRow[];
  summary: { per_request_us_128_to_1024: number };
};
const perStep = VLLM_MEMORY.serialStepHostSeconds ?? 0;
const perSeq = VLLM_MEMORY.serialSeqHostSeconds ?? 0;

describe("vLLM V1's serial scheduler: host work per running request", () => {
  it('is set for vLLM (about 10 µs), and for no engine whose cost was not measured', () => {
    expect(perSeq).toBeGreaterThan(5e-6);
    expect(perSeq).toBeLessThan(2e-5);
    expect(SGLANG_MEMORY.serialSeqHostSeconds).toBeUndefined();
  });

  it("is the fixture's measured cost per running request (vLLM 0.11.0's engine core, within 15%)", () => {
    const slope = measured.summary.per_request_us_128_to_1024 * 1e-6;
    expect(perSeq / slope).toBeGreaterThan(0.85);
    expect(perSeq / slope).toBeLessThan(1.15);
    // The measured work grows about linearly: 1024 requests cost 6-8x what 128 do.
    const at = (n: number) => measured.rows.find((r) => r.running === n)!.total_us;
    expect(at(1024) / at(128)).toBeGreaterThan(6);
    expect(at(1024) / at(128)).toBeLessThan(8);
  });

  it('a step of 512 running requests pays the step cost plus 512 x the per-request cost in series', () => {
    const added = step('vllm', 512, serial) - step('vllm', 512);
    // stepSeconds carries three significant figures: within 2%.
    expect(added / (perStep + 512 * perSeq)).toBeCloseTo(1, 1);
  });

  it('grows with the running requests: 256 more add 256 x the per-request cost', () => {
    const at = (b: number) => step('vllm', b, serial) - step('vllm', b);
    expect((at(512) - at(256)) / (256 * perSeq)).toBeCloseTo(1, 1);
  });

  it("SGLang's serial step keeps its per-step cost alone at any batch", () => {
    const added = step('sglang', 512, serial) - step('sglang', 512);
    expect(added / (SGLANG_MEMORY.serialStepHostSeconds ?? 0)).toBeCloseTo(1, 1);
  });
});

// Async scheduling (the default since vllm-project/vllm#27614) overlaps that work with the GPU but does not shed it:
// the engine core's one thread schedules, prepares and applies every running request each step
// (EngineCore.step_with_batch_queue), so a step lasts at least its step cost and the same per-request cost.
describe("vLLM V1's async scheduler: the same host work per running request bounds the step", () => {
  const t = { ...defaultTimeOptions(8), gpusPerNode: 1 };
  const hostAt = (batch: number) =>
    overlappedHostSeconds(
      modelFacts(resolveModel('qwen3-8b')),
      { ...defaultOptions('inference'), framework: 'vllm', batch, seq: 256, promptTokens: 128 },
      t,
      gpuRates(findGpu('a100-80gb-sxm'), t),
      1,
    );

  it("is the serial scheduler's measured per-request cost", () => {
    expect(VLLM_MEMORY.asyncSeqHostSeconds).toBe(perSeq);
  });

  it('floors a captured step at the step cost plus the running requests x the per-request cost', () => {
    const own = (VLLM_MEMORY.asyncStepHostSeconds ?? 0) + 512 * perSeq;
    expect(hostAt(512)).toBeCloseTo(own, 9);
    expect(hostAt(512) - hostAt(256)).toBeCloseTo(256 * perSeq, 9);
  });
});
