// GRPO rows alike but for vLLM's colocated share share one objective work (plan/objective-works.ts): the time
// model must read nothing of the share, and rows that differ in anything else must not share.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ObjectiveWorks } from '../../src/core/plan/objective-works.js';
import { objectiveStep, objectiveWork, type ObjectiveWork } from '../../src/core/time/objective.js';
import { gpuRates, modelFacts } from '../../src/core/time/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import type { EstimateOptions } from '../../src/schema/estimate.js';
import type { TimeOptions } from '../../src/schema/time.js';
import { grpo } from '../helpers/grpo.js';

const arch = resolveModel('qwen2.5-7b');
const m = modelFacts(arch);
const PARAMS = 7.6e9;

const time = (gradAccum: number): TimeOptions => ({
  gradAccum,
  powerLimit: 1,
  gpusPerNode: 8,
  interconnect: null,
  interNodeGBps: 25,
  quantFormat: null,
});

const colocated = (share: number, over: Partial<EstimateOptions> = {}, sleep = false) =>
  grpo(
    { gpus: 2, batch: 4, ...over },
    {
      rollout: 'vllm-colocate',
      'rollout-memory': share,
      ...(sleep ? { 'rollout-sleep': true } : {}),
    },
  );

const phases = () => ({ rollout: 0, referenceLogprobs: 0, policyTraining: 0, weightSync: 0 });

describe('the time model and vLLM’s colocated share', () => {
  it('makes the same objective work and step at every share', () => {
    const rates = gpuRates(findGpu('h100-sxm'), time(1));
    fc.assert(
      fc.property(
        fc.constantFrom('lora', 'qlora', 'full'),
        fc.constantFrom('hf', 'unsloth'),
        fc.constantFrom(1, 2, 4, 8),
        fc.constantFrom(0, 2, 3),
        fc.boolean(),
        fc.double({ min: 0.05, max: 0.95, noNaN: true }),
        fc.double({ min: 0.05, max: 0.95, noNaN: true }),
        (method, framework, gpus, zero, sleep, a, b) => {
          const over = { method, framework, gpus, zero } as Partial<EstimateOptions>;
          const t = time(2);
          const wa = objectiveWork(m, colocated(a, over, sleep), t, PARAMS);
          const wb = objectiveWork(m, colocated(b, over, sleep), t, PARAMS);
          expect(wb).toEqual(wa);
          const pa = phases();
          const pb = phases();
          expect(objectiveStep(m, wb, t, rates, pb)).toBe(objectiveStep(m, wa, t, rates, pa));
          expect(pb).toEqual(pa);
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('ObjectiveWorks', () => {
  const options = [
    colocated(0.3),
    colocated(0.5),
    colocated(0.5, {}, true), // asleep while the policy trains: another work
    grpo({ gpus: 2, batch: 4 }, { rollout: 'hf' }),
    colocated(0.3, { checkpointing: 'full' }),
  ];
  const bases = options.map((o, i) => ({ options: o, idPart: String(i) }));
  const t = time(2);
  const rates = gpuRates(findGpu('h100-sxm'), time(1));
  /** The work's step and phases against those of a work made alone (the policy work's decode list is shared). */
  const timesAlone = (w: ObjectiveWork, o: EstimateOptions, accum = 2) => {
    const [shared, alone] = [phases(), phases()];
    const t = time(accum);
    expect(objectiveStep(m, w, t, rates, shared)).toBe(
      objectiveStep(m, objectiveWork(m, o, t, PARAMS), t, rates, alone),
    );
    expect(shared).toEqual(alone);
  };

  it('gives the rows of one layout, variant and accumulation at each share one work, as each makes alone', () => {
    const works = new ObjectiveWorks(bases);
    const a = works.of(m, options[0]!, t, PARAMS, 0, 0, 0, 2);
    expect(works.of(m, options[1]!, t, PARAMS, 1, 0, 0, 2)).toBe(a);
    timesAlone(a, options[0]!);
    timesAlone(a, options[1]!);
  });

  it('keeps rows apart that differ in anything but the share', () => {
    const works = new ObjectiveWorks(bases);
    const a = works.of(m, options[0]!, t, PARAMS, 0, 0, 0, 2);
    const apart: [EstimateOptions, number, number, number, number][] = [
      [options[2]!, 2, 0, 0, 2], // sleep mode
      [options[3]!, 3, 0, 0, 2], // transformers generate
      [options[4]!, 4, 0, 0, 2], // checkpointing
      [options[1]!, 1, 1, 0, 2], // another engine variant
      [{ ...options[1]!, gpus: 4 }, 1, 0, 0, 2], // another GPU count
      [{ ...options[1]!, zero: 3 }, 1, 0, 0, 2], // another ZeRO stage
      [{ ...options[1]!, offload: 'optimizer' }, 1, 0, 1, 2], // another offload
      [options[1]!, 1, 0, 0, 4], // another accumulation
    ];
    for (const [o, bi, vi, offload, accum] of apart) {
      const w = works.of(m, o, time(accum), PARAMS, bi, vi, offload, accum);
      expect(w).not.toBe(a);
      timesAlone(w, o, accum);
    }
  });
});
