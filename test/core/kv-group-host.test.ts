// vLLM's hybrid KV-cache allocator keeps one block table a KV-cache group and runs one single-type manager a group
// for every running request and step (vllm/v1/core/kv_cache_coordinator.py, vllm/v1/worker/block_table.py). A
// serial scheduler pays that per request in series with the GPU: gpt-oss's full and sliding-window layers make two
// groups, and vLLM 0.10.1's engine core timed on a CPU with both layouts gives the second group's cost
// (CacheLayoutProfile.hybridPages.groupSeqHostSeconds; fixture test/fixtures/measure/vllm-0101-hybrid-engine-host.json,
// scripts/measure/vllm_0101_hybrid_engine_host.py).
import { describe, expect, it } from 'vitest';
import { estimateTime } from '../../src/core/time/index.js';
import { kvCacheGroups } from '../../src/core/memory/kv-layout.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions, type TimeOptions } from '../../src/schema/time.js';
import { VLLM_MEMORY } from '../../src/core/engines/vllm/memory.js';
import { SGLANG_MEMORY } from '../../src/core/engines/sglang/memory.js';
import { readMeasureFixture } from '../helpers/measured.js';

interface HostRow {
  layout: string;
  prompt: number;
  running: number;
  total_us: number;
}
const measured = readMeasureFixture('vllm-0101-hybrid-engine-host.json') as {
  rows: HostRow[];
  summary: Record<string, number>;
};
const perGroup = VLLM_MEMORY.cacheLayout?.hybridPages?.groupSeqHostSeconds ?? 0;
const perSeq = VLLM_MEMORY.serialSeqHostSeconds ?? 0;
const perStep = VLLM_MEMORY.serialStepHostSeconds ?? 0;

const step = (model: string, batch: number, time: Partial<TimeOptions> = {}) =>
  estimateTime(
    resolveModel(model),
    { ...defaultOptions('inference'), framework: 'vllm', weights: 'bf16', batch, seq: 1024 },
    findGpu('h100-sxm'),
    { ...defaultTimeOptions(8), gpusPerNode: 1, ...time },
  ).stepSeconds;
const serial = { serialScheduler: true };

describe('KV-cache groups of a hybrid layout', () => {
  it("gives one group to a model of one layer kind and gpt-oss's two kinds of 12 and 18 layers two", () => {
    expect(kvCacheGroups(resolveModel('qwen3-14b'))).toBe(1);
    expect(kvCacheGroups(resolveModel('gpt-oss-20b'))).toBe(2);
    expect(kvCacheGroups(resolveModel('gpt-oss-120b'))).toBe(2);
  });

  it("splits Gemma 3's 5:1 pattern into groups of its global layers' count", () => {
    // 62 layers: 52 sliding-window and 10 global, groups of 10: six sliding groups and one global group.
    expect(kvCacheGroups(resolveModel('gemma-3-27b-it'))).toBe(7);
  });
});

describe("vLLM 0.10.1's serial scheduler: the second KV-cache group's host work per running request", () => {
  it('is set for vLLM alone, a few µs', () => {
    expect(perGroup).toBeGreaterThan(2e-6);
    expect(perGroup).toBeLessThan(perSeq);
    expect(SGLANG_MEMORY.cacheLayout?.hybridPages?.groupSeqHostSeconds).toBeUndefined();
  });

  it("is the fixture's hybrid-less-one-group growth per request at both prompt lengths (within 40%)", () => {
    for (const p of [90, 1067]) {
      const us = measured.summary[`second_group_prompt${p}_per_request_us`]! * 1e-6;
      expect(perGroup / us).toBeGreaterThan(0.6);
      expect(perGroup / us).toBeLessThan(1.4);
    }
    // One group's growth agrees with v0.11.0's engine core (serialSeqHostSeconds, vllm_v1_engine_host.py).
    const one = measured.summary['one-group_prompt1067_per_request_us_16_to_256']! * 1e-6;
    expect(perSeq / one).toBeGreaterThan(0.6);
    expect(perSeq / one).toBeLessThan(1.4);
  });

  it('adds the per-group cost to every running request of a serial step of gpt-oss, and none to Qwen3', () => {
    const added = (m: string, b: number) => step(m, b, serial) - step(m, b);
    expect(added('gpt-oss-20b', 256) / (perStep + 256 * (perSeq + perGroup))).toBeCloseTo(1, 1);
    expect(added('qwen3-14b', 256) / (perStep + 256 * perSeq)).toBeCloseTo(1, 1);
  });
});
