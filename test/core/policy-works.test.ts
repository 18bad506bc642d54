// GRPO rows that differ only in the rollout share the policy's work (plan/policy-works.ts): what they share
// must be what each would make alone, and rows that train differently must not share.
import { describe, expect, it } from 'vitest';
import { samePolicyOptions } from '../../src/core/memory/objective.js';
import { PolicyWorks } from '../../src/core/plan/policy-works.js';
import {
  RolloutDecodes,
  objectiveStep,
  objectiveWork,
  policyWork,
} from '../../src/core/time/objective.js';
import { gpuRates, modelFacts } from '../../src/core/time/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { grpo } from '../helpers/grpo.js';
import type { TimeOptions } from '../../src/schema/time.js';

const arch = resolveModel('qwen2.5-7b');
const m = modelFacts(arch);

const time = (gradAccum: number): TimeOptions => ({
  gradAccum,
  powerLimit: 1,
  gpusPerNode: 8,
  interconnect: null,
  interNodeGBps: 25,
  quantFormat: null,
});

const hf = grpo({ gpus: 2, batch: 4 }, { rollout: 'hf' });
const colocate = grpo({ gpus: 2, batch: 4 }, { rollout: 'vllm-colocate', 'rollout-memory': 0.5 });
// Two server GPUs beside the same two trainers.
const server = grpo({ gpus: 4, batch: 4 }, { rollout: 'vllm-server', 'rollout-gpus': 2 });

describe('samePolicyOptions', () => {
  it('tells rollout modes of one configuration alike, and other configurations apart', () => {
    expect(samePolicyOptions(hf, colocate)).toBe(true);
    expect(samePolicyOptions(hf, server)).toBe(true);
    expect(samePolicyOptions(hf, { ...colocate, batch: 2 })).toBe(false);
    expect(samePolicyOptions(hf, { ...colocate, loraTargets: ['q', 'k', 'v'] })).toBe(false);
    expect(samePolicyOptions(hf, { ...colocate, checkpointing: 'full' })).toBe(false);
    expect(samePolicyOptions(hf, { ...colocate, objective: 'ppo' })).toBe(false);
    expect(samePolicyOptions(hf, { ...colocate, liger: undefined as unknown as boolean })).toBe(
      false,
    );
  });
});

describe('PolicyWorks', () => {
  const bases = [hf, colocate, server, { ...hf, checkpointing: 'full' as const }].map(
    (options, i) => ({ options, idPart: String(i) }),
  );
  const rates = gpuRates(findGpu('h100-sxm'), time(1));

  it('shares one work between rollout modes, the same figures as each alone', () => {
    const works = new PolicyWorks(bases);
    const t = time(2);
    const a = works.of(m, hf, t, 0, 0, 0, 2);
    expect(works.of(m, colocate, t, 1, 0, 0, 2)).toBe(a);
    expect(works.of(m, server, t, 2, 0, 0, 2)).toBe(a);
    for (const o of [hf, colocate, server]) {
      const phases = { rollout: 0, referenceLogprobs: 0, policyTraining: 0, weightSync: 0 };
      const alone = { ...phases };
      const shared = objectiveStep(m, objectiveWork(m, o, t, 7e9, a), t, rates, phases);
      const own = objectiveStep(m, objectiveWork(m, o, t, 7e9), t, rates, alone);
      expect(shared).toBe(own);
      expect(phases).toEqual(alone);
    }
    expect(a.train).toEqual(policyWork(m, hf, t).train);
  });

  it('works of one class at other GPU counts, accumulations, ZeRO stages, offloads and TP are each their own', () => {
    // They share a count-free part where only the GPU count and accumulation differ (train-work.ts
    // countFreeWork), and none across the rest: each must equal the work made alone, whichever came first.
    const full = grpo({ method: 'full', gpus: 2, batch: 4 }, { rollout: 'hf' });
    const works = new PolicyWorks([{ options: full, idPart: '0' }]);
    const layouts: [Partial<typeof full>, number, number][] = [
      [{ gpus: 2, zero: 0 }, 0, 2],
      [{ gpus: 4, zero: 0 }, 0, 1],
      [{ gpus: 8, zero: 3 }, 0, 4],
      [{ gpus: 2, zero: 3 }, 0, 2],
      [{ gpus: 4, zero: 3, offload: 'optimizer' }, 1, 1],
      [{ gpus: 8, zero: 3, offload: 'optimizer' }, 1, 2],
      [{ gpus: 4, zero: 3, tp: 2 }, 0, 1],
      [{ gpus: 8, zero: 1 }, 0, 1],
      [{ gpus: 4, zero: 3 }, 0, 1],
    ];
    for (const [over, offload, accum] of layouts) {
      const o = { ...full, ...over };
      expect(works.of(m, o, time(accum), 0, 0, offload, accum).train).toEqual(
        policyWork(m, o, time(accum)).train,
      );
    }
  });

  it('does not share across configurations, engine variants, layouts or accumulation', () => {
    const works = new PolicyWorks(bases);
    const a = works.of(m, hf, time(2), 0, 0, 0, 2);
    expect(works.of(m, bases[3]!.options, time(2), 3, 0, 0, 2)).not.toBe(a);
    expect(works.of(m, colocate, time(2), 1, 1, 0, 2)).not.toBe(a);
    expect(works.of(m, { ...colocate, zero: 2 }, time(2), 1, 0, 0, 2)).not.toBe(a);
    expect(works.of(m, colocate, time(4), 1, 0, 0, 4)).not.toBe(a);
    expect(works.of(m, { ...colocate, gpus: 4 }, time(2), 1, 0, 0, 2)).not.toBe(a);
  });
});

describe('RolloutDecodes', () => {
  const rates = gpuRates(findGpu('h100-sxm'), time(1));
  const t = time(2);
  const colocated = (o: typeof colocate) =>
    objectiveWork(m, o, t, 7e9, policyWork(m, o, t, decodes)).rollout;
  const decodes = new RolloutDecodes();

  it('gives policies that differ only in what the decode sets one decode, timed as each alone', () => {
    const a = colocated(colocate);
    // The optimizer and the GPU count are the policy's, which the decode overwrites (a colocated rollout
    // decodes each process's share: the same chunk on 2 or 4 GPUs).
    const others = [
      { ...colocate, optimizer: 'adamw-8bit' as const },
      { ...colocate, gpus: 4 },
      { ...colocate, optimizer: 'lion' as const, gpus: 4 },
    ];
    for (const o of others) {
      expect(colocated(o)).toBe(a);
      const phases = { rollout: 0, referenceLogprobs: 0, policyTraining: 0, weightSync: 0 };
      const alone = { ...phases };
      const shared = objectiveStep(
        m,
        objectiveWork(m, o, t, 7e9, policyWork(m, o, t, decodes)),
        t,
        rates,
        phases,
      );
      expect(shared).toBe(objectiveStep(m, objectiveWork(m, o, t, 7e9), t, rates, alone));
      expect(phases.rollout).toBe(alone.rollout);
    }
  });

  it('keeps decodes apart when a field the decode keeps differs', () => {
    const a = colocated(colocate);
    expect(colocated({ ...colocate, compute: 'fp16' })).not.toBe(a);
    expect(colocated({ ...colocate, attention: 'flash' })).not.toBe(a);
    expect(colocated({ ...colocate, loraRank: 64 })).not.toBe(a);
    // Same values, another key order: apart (a decode's keys follow its policy's).
    const { optimizer, ...rest } = colocate;
    expect(colocated({ ...rest, optimizer } as typeof colocate)).not.toBe(a);
  });
});
