/**
 * The trainer's own generate (`--rollout hf`) of a policy kept in fp32 under 16-bit AMP runs the forward the Trainer's
 * accelerate wrapped in torch.autocast: every decode step is an autocast region of its own, so each fp32 weight, bias
 * and norm-fed input is cast again at every step (time/objective.ts autocastDecodeOps). A bf16 policy, an fp32 run,
 * a vLLM rollout and an engine whose profile has no autocast-wrapped generate carry no such casts.
 */
import { describe, expect, it } from 'vitest';
import '../../src/core/engines/index.js';
import { paramCounts } from '../../src/core/model/params.js';
import { estimateObjectiveTime } from '../../src/core/time/objective.js';
import { autocastCastOps } from '../../src/core/time/autocast.js';
import { EAGER_DECODE_OP_SECONDS } from '../../src/core/time/decode-host.js';
import { longestCompletion } from '../../src/core/time/completion-length.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags, type RawFlags } from '../../src/schema/flags.js';
import { timeOptionsFromFlags } from '../../src/schema/time.js';

const arch = resolveModel('qwen2.5-0.5b');
const a100 = findGpu('a100-80gb-sxm');

// A small model on a fast card: the eager decode step is bound by its dispatch, so the casts show in full.
const base: RawFlags = {
  model: 'qwen2.5-0.5b',
  gpu: 'a100-80gb-sxm',
  method: 'full',
  weights: 'fp32',
  compute: 'bf16',
  objective: 'grpo',
  generations: 8,
  batch: 8,
  'grad-accum': 8,
  'prompt-tokens': 120,
  'completion-tokens': 512,
  'max-completion-tokens': 768,
  rollout: 'hf',
  framework: 'hf',
};

function rollout(flags: RawFlags): number {
  const f = { ...base, ...flags };
  const o = optionsFromFlags(f);
  const t = timeOptionsFromFlags(f, o);
  return estimateObjectiveTime(arch, o, a100, t, paramCounts(arch).total).objectivePhases.rollout;
}

describe('GRPO rollout by the trainer’s generate over fp32 weights under autocast', () => {
  it('each decode step dispatches every layer’s casts and the LM head’s two again', () => {
    // Host-bound: the fp32 policy's rollout is the bf16 policy's plus the casts' dispatch at every decode step.
    const steps = longestCompletion(512, 768, 64);
    const layers = arch.groups.find((g) => g.name !== 'vision')!.count;
    const casts = layers * autocastCastOps(arch, false) + 2;
    expect(rollout({}) - rollout({ weights: 'bf16' })).toBeCloseTo(
      steps * casts * EAGER_DECODE_OP_SECONDS,
      1,
    );
    // Computing in fp32 there is no autocast: no casts.
    expect(rollout({ compute: 'fp32' })).toBe(rollout({ weights: 'bf16' }));
  });

  it('a vLLM rollout and an engine without the wrapped forward (DeepSpeed) cast nothing', () => {
    const vllm = { rollout: 'vllm-colocate' };
    expect(rollout(vllm)).toBe(rollout({ ...vllm, weights: 'bf16' }));
    const ds = { framework: 'deepspeed' };
    expect(rollout(ds)).toBe(rollout({ ...ds, weights: 'bf16' }));
  });
});
