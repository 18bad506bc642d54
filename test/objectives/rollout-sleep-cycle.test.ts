/**
 * A colocated vLLM put to sleep between generation batches (--rollout-sleep) wakes before each batch and sleeps
 * after it; Unsloth's standby allocator runs full garbage collections and caching-allocator flushes in both
 * (FrameworkProfile.rolloutSleepCycle, time/sleep-cycle.ts): host work a GRPO step pays per generation batch,
 * however short its decode.
 */
import { describe, expect, it } from 'vitest';
import { paramCounts } from '../../src/core/model/params.js';
import { estimateObjectiveTime } from '../../src/core/time/objective.js';
import {
  EMPTY_CACHE_SECONDS,
  GC_COLLECT_SECONDS,
  sleepCycleSeconds,
} from '../../src/core/time/sleep-cycle.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags, type RawFlags } from '../../src/schema/flags.js';
import { timeOptionsFromFlags } from '../../src/schema/time.js';

const arch = resolveModel('qwen2.5-1.5b');

/** `perMicroBatch`: TRL before steps_per_generation, one generation batch per micro-step (validate's trl_generation). */
function step(flags: RawFlags, perMicroBatch = false) {
  const f: RawFlags = {
    model: 'qwen2.5-1.5b',
    gpu: 'h100-sxm',
    method: 'lora',
    objective: 'grpo',
    generations: 4,
    batch: 4,
    'completion-tokens': 8,
    'prompt-tokens': 16,
    rollout: 'vllm-colocate',
    ...flags,
  };
  const o = optionsFromFlags(f);
  if (perMicroBatch) o.stepsPerGeneration = 1;
  const t = timeOptionsFromFlags(f, o);
  return estimateObjectiveTime(arch, o, findGpu('h100-sxm'), t, paramCounts(arch).total);
}

describe("a sleeping colocated vLLM's wake / sleep cycle", () => {
  const cycle = sleepCycleSeconds(FRAMEWORKS.unsloth);

  it("Unsloth's standby: two gc.collect and two empty_cache per generation batch", () => {
    expect(cycle).toBeCloseTo(2 * GC_COLLECT_SECONDS + 2 * EMPTY_CACHE_SECONDS, 9);
    expect(cycle).toBeGreaterThan(0.4);
  });

  it('is paid once per generation batch, in the rollout phase', () => {
    // One generation batch for the whole step (steps_per_generation = gradient_accumulation_steps): one cycle.
    const one = step({ framework: 'unsloth', 'grad-accum': 4 });
    const oneAsleep = step({ framework: 'unsloth', 'grad-accum': 4, 'rollout-sleep': true });
    expect(oneAsleep.stepSeconds - one.stepSeconds).toBeCloseTo(cycle, 3);
    for (const accum of [1, 4]) {
      const awake = step({ framework: 'unsloth', 'grad-accum': accum }, true);
      const asleep = step(
        { framework: 'unsloth', 'grad-accum': accum, 'rollout-sleep': true },
        true,
      );
      expect(asleep.objectivePhases.rollout - awake.objectivePhases.rollout).toBeCloseTo(
        accum * cycle,
        3,
      );
      expect(asleep.stepSeconds - awake.stepSeconds).toBeCloseTo(accum * cycle, 3);
    }
  });

  it('a GRPO step is never shorter than its fixed per-step host work, however short its decode', () => {
    const r = step({ framework: 'unsloth', 'rollout-sleep': true, 'completion-tokens': 1 });
    expect(r.stepSeconds).toBeGreaterThanOrEqual(cycle);
    expect(r.objectivePhases.rollout).toBeGreaterThanOrEqual(cycle);
  });

  it('an engine whose profile names no such cycle, or no sleep, pays none', () => {
    expect(sleepCycleSeconds(FRAMEWORKS.hf)).toBe(0);
    const trlAwake = step({ framework: 'hf' });
    const trlAsleep = step({ framework: 'hf', 'rollout-sleep': true });
    expect(trlAsleep.objectivePhases.rollout).toBeCloseTo(trlAwake.objectivePhases.rollout, 9);
  });
});
