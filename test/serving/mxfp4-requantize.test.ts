// A checkpoint that ships MXFP4 (gpt-oss) is not served in fp8 or int8: the engines' online --quantization fp8
// refuses a checkpoint whose config names mxfp4, and there is no 16-bit original to make an FP8 or W8A8 copy from.
import { describe, expect, it } from 'vitest';
import { plan } from '../../src/core/plan/index.js';
import { weightDtypes } from '../../src/core/plan/candidates.js';
import { inputOf } from './plan-input.js';

describe('MXFP4 checkpoints are not requantized to fp8 or int8', () => {
  it('offers neither beside the native format, and keeps them for a 16-bit checkpoint', () => {
    const names = weightDtypes('inference', undefined, 'mxfp4').map((w) => w.weights);
    expect(names[0]).toBe('mxfp4');
    expect(names).not.toContain('fp8');
    expect(names).not.toContain('int8');
    const float = weightDtypes('inference', undefined, null).map((w) => w.weights);
    expect(float).toContain('fp8');
    expect(float).toContain('int8');
  });
  it('plans gpt-oss-20b on one MI300X in its own MXFP4, never fp8', () => {
    const input = inputOf('serve-8b-64-users-24gb.yaml', (s) => {
      s.model = 'gpt-oss-20b';
      s.hardware.owned = [{ gpu: 'mi300x', count: 1 }];
      if (s.job.kind !== 'inference') throw new Error('a serving scenario');
      s.job = { ...s.job, context: 4096, promptTokens: 1024, concurrency: 64, slo: undefined };
    });
    const out = plan({ ...input, top: 20 });
    expect(out.plans.length).toBeGreaterThan(0);
    expect(out.plans[0]!.choices.weights).toBe('mxfp4');
    expect(out.plans.map((p) => p.choices.weights)).not.toContain('fp8');
  });
});
