// NVFP4 in the serving search: offered where the hardware has FP4 tensor cores (Blackwell), never elsewhere,
// and launched from a published NVFP4 checkpoint where one is known.
import { describe, expect, it } from 'vitest';
import { plan } from '../../src/core/plan/index.js';
import { weightDtypes, hasFp4Cores } from '../../src/core/plan/candidates.js';
import { checkpointFor } from '../../src/core/launch/checkpoints.js';
import { inputOf } from './plan-input.js';

describe('NVFP4 in the serving search', () => {
  it('is a candidate weight format only with FP4 tensor cores', () => {
    const names = (fp4: boolean) =>
      weightDtypes('inference', undefined, null, fp4).map((w) => w.weights);
    expect(names(true)).toContain('nvfp4');
    expect(names(false)).not.toContain('nvfp4');
    expect(hasFp4Cores('10.0')).toBe(true);
    expect(hasFp4Cores('12.0')).toBe(true);
    expect(hasFp4Cores('9.0')).toBe(false);
  });
  it('NVFP4 plans run on an RTX 5090 (Blackwell), never on an RTX 4090 (weight-only FP4 there)', () => {
    const nvfp4 = (gpu: string) =>
      plan(
        inputOf('serve-8b-64-users-24gb.yaml', (s) => {
          s.hardware.owned = [{ gpu, count: 1 }];
          s.job = { ...s.job, concurrency: 8 } as typeof s.job;
          s.search = { ...s.search, weights: ['nvfp4'] };
        }),
      );
    const b = nvfp4('rtx-5090');
    expect(b.plans.length).toBeGreaterThan(0);
    expect(b.plans[0]!.choices).toMatchObject({ weights: 'nvfp4', quantFormat: 'cutlass' });
    expect(nvfp4('rtx-4090').plans).toHaveLength(0);
  });
  it('launches a published NVFP4 checkpoint where one is known', () => {
    expect(checkpointFor('meta-llama/Llama-3.1-8B', 'x', 'nvfp4')).toEqual({
      ref: 'nvidia/Llama-3.1-8B-Instruct-FP4',
      published: true,
      steps: [],
    });
  });
});
