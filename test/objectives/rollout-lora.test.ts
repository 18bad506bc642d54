/**
 * The shared-weights GRPO rollout (Unsloth fast_inference) serves the trained adapter unmerged: each decode step
 * reads the adapter and runs vLLM's punica shrink / expand kernels, so the rollout grows with the LoRA rank.
 * Rollouts that decode merged or plain weights (TRL's colocated vLLM, a full fine-tune) carry no adapter term.
 */
import { describe, expect, it } from 'vitest';
import { paramCounts } from '../../src/core/model/params.js';
import { modelFacts, gpuRates } from '../../src/core/time/index.js';
import { estimateObjectiveTime, objectiveWork } from '../../src/core/time/objective.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags, type RawFlags } from '../../src/schema/flags.js';
import { timeOptionsFromFlags } from '../../src/schema/time.js';

const arch = resolveModel('qwen2.5-7b');
const t4 = findGpu('t4');

const base: RawFlags = {
  model: 'qwen2.5-7b',
  gpu: 't4',
  compute: 'fp16',
  objective: 'grpo',
  generations: 8,
  batch: 8,
  'prompt-tokens': 256,
  'completion-tokens': 180,
  rollout: 'vllm-colocate',
  'rollout-memory': 0.5,
  'lora-targets': 'all-linear',
};

function rollout(flags: RawFlags) {
  const o = optionsFromFlags(flags);
  const t = timeOptionsFromFlags(flags, o);
  const m = modelFacts(arch);
  const w = objectiveWork(m, o, t, paramCounts(arch).total);
  const r = estimateObjectiveTime(arch, o, t4, t, paramCounts(arch).total);
  return { w, seconds: r.objectivePhases.rollout, rates: gpuRates(t4, t) };
}

describe('GRPO rollout with the adapter unmerged in vLLM', () => {
  it('Unsloth fast_inference serves one adapter at the LoRA rank', () => {
    const { w } = rollout({ ...base, framework: 'unsloth', method: 'qlora', 'lora-rank': 32 });
    expect(w.rolloutLora).not.toBeNull();
    expect(w.rolloutLora!.maxLoras).toBe(1);
    expect(w.rolloutLora!.loraRank).toBe(32);
  });

  it('a larger rank never shortens the rollout, and a rank-64 adapter costs time', () => {
    const ranks = [8, 16, 32, 64, 128];
    const secs = ranks.map(
      (rank) =>
        rollout({ ...base, framework: 'unsloth', method: 'qlora', 'lora-rank': rank }).seconds,
    );
    for (let i = 1; i < secs.length; i++) expect(secs[i]).toBeGreaterThanOrEqual(secs[i - 1]!);
    expect(secs[4]!).toBeGreaterThan(secs[0]!);
  });

  it('TRL colocated vLLM on the HF path (merged weights synced) carries no adapter term', () => {
    const { w } = rollout({ ...base, framework: 'hf', method: 'lora', 'lora-rank': 32 });
    expect(w.rolloutLora).toBeNull();
  });
});
