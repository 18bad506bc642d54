/** The comparison and its reasons on hand-built records: bands from uncertainty.ts and TIME_UNCERTAINTY. */
import { describe, expect, it } from 'vitest';
import {
  checkRun,
  observe,
  TIME_UNCERTAINTY,
  versionDrift,
  type Observed,
} from '../../src/core/check/index.js';
import { UNCERTAINTY } from '../../src/core/memory/uncertainty.js';
import type { Measured, RunPlan } from '../../src/schema/measured.js';

const GB = 1e9;
const plan: RunPlan = {
  schema: 'vramplan-plan/1',
  model: { id: 'llama-3.1-8b', hfId: 'meta-llama/Llama-3.1-8B', ref: 'meta-llama/Llama-3.1-8B' },
  engine: 'hf-trainer',
  flags: { method: 'lora', seq: 4096, gpu: 'h100-sxm' },
  gradAccum: 2,
  gpusPerNode: 1,
  powerLimitW: null,
  pins: { torch: '2.12.1', transformers: '5.14.1' },
  estimate: {
    allocatedBytes: 30 * GB,
    reservedBytes: 32 * GB,
    deviceBytes: 34 * GB,
    tokensPerStep: 8192,
    stepSeconds: 1,
    tokensPerSecondPerGpu: 8192,
    ttftSeconds: null,
    tpotSeconds: null,
    concurrency: null,
  },
};
const seen = (o: Partial<Observed>): Observed => ({
  allocatedBytes: null,
  reservedBytes: null,
  deviceBytes: null,
  stepSeconds: null,
  tokensPerSecondPerGpu: null,
  ttftSeconds: null,
  tpotSeconds: null,
  concurrency: null,
  baselineBytes: null,
  gpuName: null,
  versions: {},
  fallbacks: [],
  exitCode: null,
  ...o,
});

describe('checkRun', () => {
  it('memory band: 7% under to 1 / (1 - 0.11) over the planned figure', () => {
    const r = checkRun(plan, seen({ allocatedBytes: 30 * GB * 0.93 + 1 }), 'H100 SXM5 80GB');
    expect(r.rows[0]!.band.low).toBeCloseTo(30 * GB * (1 - UNCERTAINTY.p90AbsError), 0);
    expect(r.rows[0]!.band.high).toBeCloseTo((30 * GB) / (1 - UNCERTAINTY.maxUnderError), 0);
    expect(r.inside).toBe(true);
    const under = checkRun(plan, seen({ allocatedBytes: 30 * GB * 0.9 }), 'H100 SXM5 80GB');
    expect(under.inside).toBe(false);
    expect(under.rows[0]!.reasons[0]).toContain('shorter than the planned 4096 tokens');
  });

  it('only components both sides have are compared', () => {
    const r = checkRun(plan, seen({ stepSeconds: 1.2 }), 'H100 SXM5 80GB');
    expect(r.rows.map((x) => x.component)).toEqual(['step time']);
    // Training speed band: measured step within planned / (1 ± the training band).
    const u = TIME_UNCERTAINTY.training;
    expect(r.rows[0]!.band.low).toBeCloseTo(1 / (1 + u), 12);
    expect(r.rows[0]!.band.high).toBeCloseTo(1 / (1 - u), 12);
  });

  it("a GRPO plan's step takes the RL steps' band, not training's", () => {
    const grpo: RunPlan = { ...plan, flags: { ...plan.flags, objective: 'grpo' } };
    const r = checkRun(grpo, seen({ stepSeconds: 1.2 }), 'H100 SXM5 80GB');
    expect(r.rows[0]!.band.low).toBeCloseTo(1 / (1 + TIME_UNCERTAINTY.rl), 12);
    expect(r.rows[0]!.band.high).toBeCloseTo(1 / (1 - TIME_UNCERTAINTY.rl), 12);
    expect(TIME_UNCERTAINTY.rl).not.toBe(TIME_UNCERTAINTY.training);
    // A step between the two bands' slow ends is inside the wider one's and outside the narrower one's: the band a
    // plan takes follows its objective.
    const planned = r.rows[0]!.planned;
    const slow = (1 / (1 - TIME_UNCERTAINTY.rl) + 1 / (1 - TIME_UNCERTAINTY.training)) / 2;
    const rlWider = TIME_UNCERTAINTY.rl > TIME_UNCERTAINTY.training;
    expect(checkRun(plan, seen({ stepSeconds: planned * slow }), 'H100 SXM5 80GB').inside).toBe(
      !rlWider,
    );
    expect(checkRun(grpo, seen({ stepSeconds: planned * slow }), 'H100 SXM5 80GB').inside).toBe(
      rlWider,
    );
  });

  it('names the GPU, the versions, other processes, a fallback and the exit code when over the band', () => {
    const r = checkRun(
      plan,
      seen({
        deviceBytes: 45 * GB,
        baselineBytes: 6 * 1024 ** 3,
        gpuName: 'NVIDIA A100-SXM4-80GB',
        versions: { torch: '2.9.0', Transformers: '5.14.1' },
        fallbacks: ['flash_attn is not installed, falling back to eager'],
        exitCode: 1,
      }),
      'H100 SXM5 80GB',
    );
    const why = r.rows[0]!.reasons;
    expect(why[0]).toBe('the run was on NVIDIA A100-SXM4-80GB, the plan on H100 SXM5 80GB');
    expect(why[1]).toBe('library versions differ from the pins: torch 2.9.0 (pinned 2.12.1)');
    expect(why[2]).toBe('other processes held 6.0 GiB on the GPU before the run started');
    expect(why[3]).toContain('a kernel fell back to a slower path');
    expect(why[4]).toContain('exited with code 1');
    expect(r.notes).toEqual([
      'the run exited with code 1',
      'versions differ from the pins: torch 2.9.0 (pinned 2.12.1)',
    ]);
  });

  it('says so when nothing in the record explains a miss', () => {
    const r = checkRun(plan, seen({ reservedBytes: 40 * GB }), 'H100 SXM5 80GB');
    expect(r.rows[0]!.reasons).toEqual([
      expect.stringContaining('nothing in the record explains it'),
    ]);
  });
});

describe('versionDrift', () => {
  it('compares normalised names; packages the probe did not look up are left out', () => {
    expect(versionDrift(plan, { TRANSFORMERS: '5.14.1' })).toEqual([]);
    expect(versionDrift(plan, { torch: null })).toEqual(['torch not installed (pinned 2.12.1)']);
  });
});

describe('observe', () => {
  const measured = (gpus: Measured['gpus']): Measured => ({
    schema: 'vramplan-measured/1',
    probe: 'run',
    startedAt: 'a',
    endedAt: 'b',
    gpus,
    versions: {},
  });

  it('device = the largest rise over the GPUs; other processes only on the GPUs the run used', () => {
    const o = observe(plan, {
      measured: measured([
        { index: 0, name: 'g', totalBytes: 80 * GB, baselineBytes: 1 * GB, peakBytes: 31 * GB },
        { index: 1, name: 'g', totalBytes: 80 * GB, baselineBytes: 50 * GB, peakBytes: 50 * GB },
      ]),
      ranks: [],
      log: null,
      serving: null,
    });
    expect(o.deviceBytes).toBe(30 * GB);
    expect(o.baselineBytes).toBe(1 * GB);
  });

  it('tokens/s from the plan tokens per step over the measured step where no engine counter is logged', () => {
    const o = observe(plan, {
      measured: null,
      ranks: [
        {
          schema: 'vramplan-measured/1',
          probe: 'trainer-callback',
          rank: 0,
          worldSize: 2,
          gpuName: 'g',
          allocatedBytes: 20 * GB,
          reservedBytes: 22 * GB,
          steps: 10,
          stepSeconds: 0.5,
          versions: {},
        },
        {
          schema: 'vramplan-measured/1',
          probe: 'trainer-callback',
          rank: 1,
          worldSize: 2,
          gpuName: 'g',
          allocatedBytes: 21 * GB,
          reservedBytes: 21 * GB,
          steps: 10,
          stepSeconds: 0.55,
          versions: {},
        },
      ],
      log: null,
      serving: null,
    });
    // The largest rank per component; 8192 tokens / 0.55 s.
    expect(o).toMatchObject({ allocatedBytes: 21 * GB, reservedBytes: 22 * GB, stepSeconds: 0.55 });
    expect(o.tokensPerSecondPerGpu).toBeCloseTo(8192 / 0.55, 9);
  });
});
