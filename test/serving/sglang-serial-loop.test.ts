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
