/**
 * The trainer's own generate (`--rollout hf`) of a policy kept in fp32 under 16-bit AMP runs the forward the Trainer's
 * accelerate wrapped in torch.autocast: every decode step is an autocast region of its own, so each fp32 weight, bias
 * and norm-fed input is cast again at every step (time/objective.ts autocastDecodeOps). A bf16 policy, an fp32 run,
 * a vLLM rollout and an engine whose profile has no autocast-wrapped generate carry no such casts. A LoRA policy's fp32
 * adapters (get_peft_model's autocast_adapter_dtype default) are cast the same way: each adapted linear's two weights
 * and PEFT's fp32 input, at every step (time/objective.ts autocastAdapterCastOps).
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

describe('GRPO rollout by the trainer’s generate of a LoRA policy with fp32 adapters under autocast', () => {
  const lora: RawFlags = {
    method: 'lora',
    weights: 'bf16',
    'lora-rank': 16,
    'lora-targets': 'all-linear',
  };
  function loraRollout(flags: RawFlags, inWeightDtype = false): number {
    const f = { ...base, ...lora, ...flags };
    const o = optionsFromFlags(f);
    const t = timeOptionsFromFlags(f, o);
    if (inWeightDtype) t.adaptersInWeightDtype = true;
    return estimateObjectiveTime(arch, o, a100, t, paramCounts(arch).total).objectivePhases.rollout;
  }

  it('each adapted linear casts its two fp32 weights and PEFT’s fp32 input back at every decode step', () => {
    // PEFT's default fp32 adapters against adapters kept in the weights' bf16: three casts an adapted linear a step.
    const steps = longestCompletion(512, 768, 64);
    const layers = arch.groups.find((g) => g.name !== 'vision')!.count;
    const adapted = layers * 7; // q, k, v, o, gate, up, down
    expect(loraRollout({}) - loraRollout({}, true)).toBeCloseTo(
      steps * adapted * 3 * EAGER_DECODE_OP_SECONDS,
      1,
    );
  });

  it('no casts without autocast: an fp32 run, a vLLM rollout, an engine without the wrapped forward', () => {
    expect(loraRollout({ compute: 'fp32', weights: 'fp32' })).toBe(
      loraRollout({ compute: 'fp32', weights: 'fp32' }, true),
    );
    const vllm = { rollout: 'vllm-colocate' };
    expect(loraRollout(vllm)).toBe(loraRollout(vllm, true));
    const ds = { framework: 'deepspeed' };
    expect(loraRollout(ds)).toBe(loraRollout(ds, true));
  });
});
