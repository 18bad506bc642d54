/**
 * TRL's GRPOTrainer (from v0.23.0, the pinned v1.9.0) scores each generation batch with the policy before training on
 * it when it generates with vLLM (the importance-sampling correction, on by default) or when generation does not line
 * up with the optimizer step: one more no-grad forward over the step's sequences, in policy training
 * (FrameworkProfile.grpoOldLogprobs). Engines whose profile does not say so pay none.
 */
import { describe, expect, it } from 'vitest';
import type { RawFlags } from '../../src/schema/flags.js';
import { objectiveTimeOf } from '../helpers/objective-time.js';
import { paramCounts } from '../../src/core/model/params.js';
import { estimateObjectiveTime } from '../../src/core/time/objective.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { timeOptionsFromFlags } from '../../src/schema/time.js';

function phases(flags: RawFlags) {
  const f: RawFlags = {
    objective: 'grpo',
    generations: 8,
    batch: 8,
    'completion-tokens': 256,
    'prompt-tokens': 128,
    ...flags,
  };
  const { r, forward } = objectiveTimeOf(f);
  return { training: r.objectivePhases.policyTraining, forward };
}

describe("GRPO's old log-probs forward", () => {
  it('TRL with a vLLM rollout: one forward more than with generate(), in policy training', () => {
    // Server mode trains on the GPU vLLM leaves (--gpus 2, one for vLLM): the same one-GPU policy as generate()'s.
    const server: RawFlags = { rollout: 'vllm-server', gpus: 2, 'rollout-gpus': 1 };
    for (const rollout of [{ rollout: 'vllm-colocate' }, server]) {
      const v = phases({ framework: 'hf', ...rollout });
      const hf = phases({ framework: 'hf', rollout: 'hf' });
      expect(v.forward).toBeGreaterThan(0);
      expect(v.training - hf.training).toBeCloseTo(v.forward, 3);
    }
  });

  it('generate() pays it too when generation does not line up with the optimizer step', () => {
    const aligned = phases({ framework: 'hf', rollout: 'hf', 'grad-accum': 4 });
    const offset = phases({
      framework: 'hf',
      rollout: 'hf',
      'grad-accum': 4,
      'steps-per-generation': 8,
    });
    expect(offset.training - aligned.training).toBeCloseTo(aligned.forward, 3);
  });

  it('an engine whose profile has no such pass (Unsloth) pays none', () => {
    const v = phases({ framework: 'unsloth', rollout: 'vllm-colocate' });
    const hf = phases({ framework: 'unsloth', rollout: 'hf' });
    expect(v.training).toBeCloseTo(hf.training, 6);
  });

  it('a build that forces it under vLLM (Unsloth 2026.3.17: TimeOptions.vllmOldLogprobs) pays one forward more; generate() none', () => {
    const f: RawFlags = {
      model: 'qwen2.5-1.5b',
      gpu: 'h100-sxm',
      method: 'lora',
      framework: 'unsloth',
      objective: 'grpo',
      generations: 8,
      batch: 8,
      'completion-tokens': 256,
      'prompt-tokens': 128,
    };
    const run = (rollout: string, forced: boolean) => {
      const flags: RawFlags = { ...f, rollout };
      const arch = resolveModel(String(flags.model));
      const o = optionsFromFlags(flags);
      const t = timeOptionsFromFlags(flags, o);
      if (forced) t.vllmOldLogprobs = true;
      const r = estimateObjectiveTime(arch, o, findGpu('h100-sxm'), t, paramCounts(arch).total);
      return {
        training: r.objectivePhases.policyTraining,
        forward: r.phases.find((p) => p.phase === 'forward')!.seconds,
      };
    };
    const plain = run('vllm-colocate', false);
    const forced = run('vllm-colocate', true);
    expect(plain.forward).toBeGreaterThan(0);
    expect(forced.training - plain.training).toBeCloseTo(plain.forward, 3);
    expect(run('hf', true).training).toBeCloseTo(run('hf', false).training, 6);
  });
});
