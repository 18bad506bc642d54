/**
 * generate's per-step attention masks through torch.vmap (TimeOptions.generateMasks) and a sliding cache layer's
 * blocking copy (TimeOptions.generateLayer.sync) belong to the builds the gpt-oss GRPO rows ran (transformers 4.56.2):
 * the rows carry them. At the transformers the engines pin (5.14.1 for TRL 1.9.0, 5.5.0 for Unsloth 2026.10.9) the
 * masks are built without vmap, and TRL's rollout keeps the dynamic cache, so no engine profile sets either: an
 * estimate of a GRPO run whose rollout goes through transformers' generate pays neither, while a row's fields still
 * move the same estimate (docs/time-model.md "gpt-oss rollouts: generate's masks").
 */
import { describe, expect, it } from 'vitest';
import '../../src/core/engines/index.js';
import { paramCounts } from '../../src/core/model/params.js';
import { estimateObjectiveTime } from '../../src/core/time/objective.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags, type RawFlags } from '../../src/schema/flags.js';
import { timeOptionsFromFlags, type TimeOptions } from '../../src/schema/time.js';

const arch = resolveModel('gpt-oss-20b');
const gpu = findGpu('h100-sxm');

const base: RawFlags = {
  model: 'gpt-oss-20b',
  gpu: 'h100-sxm',
  compute: 'bf16',
  objective: 'grpo',
  generations: 4,
  batch: 4,
  'prompt-tokens': 128,
  'completion-tokens': 512,
  rollout: 'hf',
  method: 'lora',
  'lora-rank': 16,
};

function rollout(framework: string, extra: Partial<TimeOptions> = {}): number {
  const f = { ...base, framework };
  const o = optionsFromFlags(f);
  const t = { ...timeOptionsFromFlags(f, o), ...extra };
  return estimateObjectiveTime(arch, o, gpu, t, paramCounts(arch).total).objectivePhases.rollout;
}

describe("GRPO rollout through transformers' generate at the engines' pinned transformers", () => {
  for (const framework of ['hf', 'unsloth']) {
    it(`${framework}: the flags set no vmap'd masks and no sliding-layer sync`, () => {
      const f = { ...base, framework };
      const t = timeOptionsFromFlags(f, optionsFromFlags(f));
      expect(t.generateMasks).toBeUndefined();
      expect(t.generateLayer).toBeUndefined();
    });

    it(`${framework}: the estimate pays no masks; a 4.56.2 row's two masks lengthen the same rollout`, () => {
      const estimate = rollout(framework);
      expect(estimate).toBeGreaterThan(0);
      expect(rollout(framework, { generateMasks: 0 })).toBe(estimate);
      const row = rollout(framework, { generateMasks: 2 });
      expect(row).toBeGreaterThan(estimate);
      // Each mask adds alike: the masks are in series with the step, not hidden under the GPU's work (to the phases'
      // four significant figures).
      const one = rollout(framework, { generateMasks: 1 }) - estimate;
      expect(row - estimate).toBeCloseTo(2 * one, 1);
    });
  }
});
