/**
 * vLLM V0's host work by release (time/v0-host.ts): the 0.5 builds ran `_process_model_outputs` in series with every
 * decode step; from v0.6.0 (vllm-project/vllm#7049) it runs while the next step's forward runs, so its 0.2 ms a step
 * (vllm-project/vllm#6913, batch 1) leaves the serial 4 ms, unless the run was eager (enforce_eager) or pipelined.
 */
import { describe, expect, it } from 'vitest';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { decodeStep, gpuRates, modelFacts } from '../../src/core/time/index.js';
import { releaseAtLeast } from '../../src/core/compare-releases.js';
import { v0HostSeconds } from '../../src/core/time/v0-host.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { defaultOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions, type TimeOptions } from '../../src/schema/time.js';

const vllm = FRAMEWORKS.vllm;
const t = defaultTimeOptions(1);
const v0 = (engineVersion?: string): TimeOptions => ({ ...t, v0Scheduler: true, engineVersion });

describe("vLLM V0's host work by release", () => {
  it('reads releases as numbers: 0.6.0 on has asynchronous output processing, 0.5.5 and an unreadable one do not', () => {
    expect(releaseAtLeast('0.6.3.post1', '0.6.0')).toBe(true);
    expect(releaseAtLeast('0.6', '0.6.0')).toBe(true);
    expect(releaseAtLeast('0.10.1', '0.6.0')).toBe(true);
    expect(releaseAtLeast('0.5.5', '0.6.0')).toBe(false);
    expect(releaseAtLeast('0.5.3+main-2024-07', '0.6.0')).toBe(false);
    expect(releaseAtLeast('main', '0.6.0')).toBe(false);
  });

  it("a 0.5.5 step keeps 4 ms + 0.08 ms a sequence in series; a 0.6.3 step moves output processing's 0.2 ms beside the GPU", () => {
    expect(vllm.v0OutputHost).toEqual({ since: '0.6.0', stepSeconds: 2e-4, seqSeconds: 0 });
    const serial = 4e-3 + 8e-5 * 32;
    expect(v0HostSeconds(vllm, v0('0.5.5'), 32, 1)).toEqual({ serial, beside: 0 });
    expect(v0HostSeconds(vllm, v0(), 32, 1)).toEqual({ serial, beside: 0 }); // release not known: today's cost
    const async = v0HostSeconds(vllm, v0('0.6.3.post1'), 32, 1);
    expect(async.serial).toBeCloseTo(serial - 2e-4, 12);
    expect(async.beside).toBeCloseTo(2e-4, 12);
    // enforce_eager (no CUDA graph at any batch) and pipeline stages turn it off (ModelConfig.verify_async_output_proc).
    expect(v0HostSeconds(vllm, { ...v0('0.6.3.post1'), graphMaxBatch: 0 }, 32, 1)).toEqual({
      serial,
      beside: 0,
    });
    expect(v0HostSeconds(vllm, v0('0.6.3.post1'), 32, 2)).toEqual({ serial, beside: 0 });
    // V1 reads none of it.
    expect(v0HostSeconds(vllm, { ...t, engineVersion: '0.6.3' }, 32, 1)).toEqual({
      serial: 0,
      beside: 0,
    });
  });

  it('the same Llama 3.1 8B decode step on an A100 is 0.2 ms shorter on 0.6.3 than on 0.5.5 (the GPU outlasts 0.2 ms)', () => {
    const m = modelFacts(resolveModel('llama-3.1-8b'));
    const o = { ...defaultOptions('inference'), framework: 'vllm' as const, batch: 1, seq: 1024 };
    const a100 = gpuRates(findGpu('a100-80gb-sxm'), t, true);
    const step = (tt: TimeOptions) => decodeStep(m, o, tt, a100, true, 1024).stepSeconds;
    expect(step(v0('0.5.5')) - step(v0('0.6.3.post1'))).toBeCloseTo(2e-4, 9);
    expect(step(v0())).toBe(step(v0('0.5.5')));
  });
});
