/**
 * TRL's KTOTrainer estimates the KL term each micro-batch from the batch's mismatched completions: the policy runs a
 * no-grad forward over them, and the reference runs over them beside its forward over the batch unless the reference
 * log-probs were precomputed (kto_trainer.py v1.9.0 _compute_loss, _compute_kl_logps; ObjectiveProfile.klForward).
 * DPO has no such pass.
 */
import { describe, expect, it } from 'vitest';
import type { RawFlags } from '../../src/schema/flags.js';
import { objectiveTimeOf } from '../helpers/objective-time.js';

function phases(flags: RawFlags) {
  const f: RawFlags = {
    batch: 4,
    seq: 512,
    ...flags,
  };
  const { r, forward } = objectiveTimeOf(f);
  const p = r.objectivePhases;
  return {
    training: p.policyTraining,
    reference: p.referenceLogprobs,
    forward,
    step: r.stepSeconds,
  };
}

describe("KTO's KL completions", () => {
  it('the reference runs two forwards (the batch and its KL completions), DPO one', () => {
    const kto = phases({ objective: 'kto', reference: 'model' });
    const dpo = phases({ objective: 'dpo', reference: 'model' });
    expect(kto.forward).toBeGreaterThan(0);
    expect(kto.reference).toBeCloseTo(2 * kto.forward, 3);
    // A DPO pair is two sequences of the batch: its reference forward is over both, once.
    expect(dpo.reference).toBeCloseTo(dpo.forward, 3);
  });

  it('the policy adds a no-grad forward over the KL completions to its training step', () => {
    const kto = phases({ objective: 'kto', reference: 'model' });
    const sft = phases({ objective: 'sft' });
    expect(kto.training - sft.training).toBeCloseTo(kto.forward, 3);
  });

  it('precomputed reference log-probs hold the KL ones too: only the policy pass remains', () => {
    const pre = phases({ objective: 'kto', reference: 'precomputed' });
    const sft = phases({ objective: 'sft' });
    expect(pre.reference).toBe(0);
    expect(pre.training - sft.training).toBeCloseTo(pre.forward, 3);
  });
});
