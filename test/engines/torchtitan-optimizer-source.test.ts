// torchtitan 0.3.0 builds its optimizers by name in OptimizersContainer._resolve_optimizer_factory (Adam, AdamW,
// DistMuon; NotImplementedError for any other) and steps them after backward only (OptimizersInBackwardContainer
// left in pytorch/torchtitan#3269, before 0.3.0): its refusals of another optimizer and of optimizer-in-backward cite
// that file in the 0.3.0 wheel, not train.py at a later commit.
import { describe, expect, it } from 'vitest';
import '../../src/core/engines/registry.js';
import { runEstimate } from '../../src/commands/estimate-run.js';
import { resolveModel } from '../../src/io/load-model.js';
import type { RawFlags } from '../../src/schema/flags.js';
import { stdoutOf } from '../helpers/published-configs.js';

const TITAN = { framework: 'torchtitan', method: 'full', zero: 3, gpus: 8, gpu: 'h100-sxm' };

function refusal(flags: Record<string, string | number | boolean>): string | null {
  try {
    stdoutOf(() =>
      runEstimate(resolveModel('llama-3.1-8b'), { ...TITAN, ...flags } as RawFlags, true),
    );
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}

const WHEEL =
  /pypi\.org\/project\/torchtitan\/0\.3\.0\/ \(wheel\) torchtitan\/components\/optimizer\/optimizer\.py/;

describe('torchtitan optimizer refusals cite the 0.3.0 optimizer container', () => {
  it('an optimizer outside Adam, AdamW and DistMuon', () => {
    for (const optimizer of ['lion', 'sgd', 'adafactor', 'adamw-8bit', 'adam-mini']) {
      const r = refusal({ optimizer });
      expect(r, optimizer).toMatch(new RegExp(`torchtitan no ${optimizer} optimizer`));
      expect(r, optimizer).toMatch(WHEEL);
      expect(r, optimizer).toMatch(
        /:141-151 \(_resolve_optimizer_factory builds Adam, AdamW and DistMuon/,
      );
      expect(r, optimizer).not.toMatch(/train\.py/);
    }
  });

  it('optimizer-in-backward, removed before 0.3.0', () => {
    const r = refusal({ 'optimizer-in-backward': true });
    expect(r).toMatch(/torchtitan no optimizer-in-backward here/);
    expect(r).toMatch(WHEEL);
    expect(r).toMatch(/pytorch\/torchtitan#3269/);
  });

  it('AdamW still estimates', () => {
    expect(refusal({ optimizer: 'adamw' })).toBeNull();
  });
});
