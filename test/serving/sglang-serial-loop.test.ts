// SGLang turns its overlap scheduler off for LFM2's short-conv hybrids while the radix cache is on (mamba no_buffer:
// sglang==0.5.23 arg_groups/overrides.py _mamba_radix_cache_resolution): each decode step then adds the serial
// scheduler's host work; with the cache off (no --prefix-cache) or for a plain transformer it stays overlapped.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { SGLANG_MEMORY } from '../../src/core/engines/sglang/memory.js';
import { serveShOf } from '../helpers/launch.js';
import { buildEstimate } from '../../src/core/estimate.js';
import { estimateTime } from '../../src/core/time/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { timeOptionsFromFlags, type TimeOptions } from '../../src/schema/time.js';

const tpot = (
  model: string,
  flags: Record<string, unknown>,
  time: (t: TimeOptions) => TimeOptions = (t) => t,
) => {
  const f = {
    method: 'inference',
    framework: 'sglang',
    seq: 2048,
    'prompt-tokens': 1024,
    batch: 1,
    ...flags,
  };
  const o = withEngineDefaults(optionsFromFlags(f), f);
  return estimateTime(resolveModel(model), o, findGpu('h100-sxm'), time(timeOptionsFromFlags(f, o)))
    .stepSeconds;
};

describe("SGLang's serial loop for LFM2 under the radix cache", () => {
  it('adds the serial step host work to an LFM2 step with the radix cache on', () => {
    const off = tpot('lfm2-1.2b', {});
    const on = tpot('lfm2-1.2b', { 'prefix-cache': 0 });
    expect(SGLANG_MEMORY.serialLoopModelTypes).toContain('lfm2');
    expect(on - off).toBeGreaterThan(0.5 * SGLANG_MEMORY.serialStepHostSeconds!);
  });

  // event_loop_normal of the 0.5 line runs the overlapped loop's per-request code with the GPU idle between
  // (serialLoopSeqHostSeconds, timed on the sglang==0.5.6 wheel); a pre-v0.4 serial scheduler (a row's `scheduler:
  // serial`, set before the loop is chosen) keeps no per-request figure.
  it("adds the current release's per-request host work a step for each running request", () => {
    const loop = SGLANG_MEMORY.serialLoopSeqHostSeconds!;
    expect(loop).toBeGreaterThan(0);
    for (const batch of [1, 16, 100]) {
      const current = tpot('lfm2-1.2b', { 'prefix-cache': 0, batch });
      const older = tpot('lfm2-1.2b', { 'prefix-cache': 0, batch }, (t) => ({
        ...t,
        serialScheduler: true,
      }));
      const want = batch * (loop - (SGLANG_MEMORY.serialSeqHostSeconds ?? 0));
      // stepSeconds is rounded to the microsecond.
      expect(Math.abs(current - older - want), `batch ${batch}`).toBeLessThan(1.5e-6);
    }
  });

  it('never shortens the serial loop step as running requests are added, nor below the older serial step', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 255 }), (batch) => {
        const step = tpot('lfm2-1.2b', { 'prefix-cache': 0, batch });
        const more = tpot('lfm2-1.2b', { 'prefix-cache': 0, batch: batch + 1 });
        const older = tpot('lfm2-1.2b', { 'prefix-cache': 0, batch }, (t) => ({
          ...t,
          serialScheduler: true,
        }));
        expect(more).toBeGreaterThanOrEqual(step);
        expect(step).toBeGreaterThanOrEqual(older);
      }),
      { numRuns: 25 },
    );
  });

  it('leaves a plain transformer overlapped under the radix cache', () => {
    expect(tpot('llama-3.1-8b', { 'prefix-cache': 0 })).toBeCloseTo(tpot('llama-3.1-8b', {}), 9);
  });

  it('keeps the radix cache on in serve.sh at --prefix-cache 0, off without it', () => {
    const sh = (flags: Record<string, unknown>) => {
      const f = { method: 'inference', framework: 'sglang', seq: 2048, batch: 1, ...flags };
      const o = withEngineDefaults(optionsFromFlags(f), f);
      const arch = resolveModel('lfm2-1.2b');
      const gpu = findGpu('h100-sxm');
      return serveShOf(arch, o, gpu, buildEstimate(arch, o, gpu));
    };
    expect(sh({ 'prefix-cache': 0 })).not.toContain('--disable-radix-cache');
    expect(sh({})).toContain('--disable-radix-cache');
  });
});

// Qwen3-Next's hybrid GDN layers ran the serial loop under the radix cache only in a span of releases: sglang
// 0.5.5.post2 turned the overlap off for Qwen3NextForCausalLM with the radix cache on, 0.5.14 resolves its mamba cache to
// extra_buffer and keeps the overlap (server_args.py of the two wheels; engines/sglang/memory.ts
// serialLoopModelTypeReleases).
describe("SGLang's serial loop for Qwen3-Next in the releases that ran it", () => {
  const step = (
    version: string | undefined,
    flags: Record<string, unknown> = { 'prefix-cache': 0 },
  ) =>
    tpot('qwen3-next-80b-a3b', { gpus: 8, tp: 8, batch: 8, ...flags }, (t) => ({
      ...t,
      engineVersion: version,
    }));

  it('names Qwen3-Next with the span it was read in', () => {
    expect(SGLANG_MEMORY.serialLoopModelTypeReleases).toContainEqual({
      modelType: 'qwen3_next',
      from: '0.5.5.post2',
      before: '0.5.14',
    });
    expect(SGLANG_MEMORY.serialLoopModelTypes).not.toContain('qwen3_next');
  });

  it('adds the serial host work a step inside the span, with the radix cache on', () => {
    const overlapped = step(undefined);
    for (const v of ['0.5.5.post2', '0.5.6', '0.5.8.post1', '0.5.13.post1']) {
      const serial = step(v);
      const want =
        SGLANG_MEMORY.serialStepHostSeconds! + 8 * SGLANG_MEMORY.serialLoopSeqHostSeconds!;
      expect(serial - overlapped, v).toBeGreaterThan(0.5 * want);
    }
  });

  it('keeps the overlapped loop outside the span, without a release, or with the radix cache off', () => {
    const overlapped = step(undefined);
    for (const v of ['0.5.3', '0.5.5.post1', '0.5.14', '0.5.23', '0.5'])
      expect(step(v), v).toBeCloseTo(overlapped, 9);
    expect(step('0.5.6', {})).toBeCloseTo(step(undefined, {}), 9);
  });
});
