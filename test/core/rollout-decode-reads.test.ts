// GRPO policies that differ only in training fields no rollout decode reads (time/objective.ts DECODE_UNREAD) share
// their decodes (RolloutDecodes). This holds the list to what decodeStep and loraStepTime read: the fields they read
// over hf, colocated, shared-weight and server decodes of dense and MoE models, LoRA, QLoRA and full policies; the
// rollout's seconds when one of the listed fields alone differs; and shared decodes against decodes made alone.
import { describe, expect, it } from 'vitest';
import {
  DECODE_UNREAD,
  RolloutDecodes,
  objectiveStep,
  objectiveWork,
  policyWork,
  type ObjectivePhases,
  type ObjectiveWork,
} from '../../src/core/time/objective.js';
import { gpuRates, modelFacts } from '../../src/core/time/index.js';
import { NO_FETCH } from '../../src/core/time/trainer-fetch.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { grpo } from '../helpers/grpo.js';
import type { EstimateOptions } from '../../src/schema/estimate.js';
import type { RawFlags } from '../../src/schema/flags.js';
import type { TimeOptions } from '../../src/schema/time.js';

const time = (gradAccum: number): TimeOptions => ({
  gradAccum,
  powerLimit: 1,
  gpusPerNode: 8,
  interconnect: null,
  interNodeGBps: 25,
  quantFormat: null,
});
const t = time(2);
const h100 = findGpu('h100-sxm');

const ROLLOUTS: RawFlags[] = [
  { rollout: 'hf' },
  { rollout: 'vllm-colocate', 'rollout-memory': 0.5 },
  { rollout: 'vllm-server', 'rollout-gpus': 2 },
];

/** Policies of each model, method, engine, attention and rollout the planner searches for GRPO. */
function policies(): { model: string; o: EstimateOptions }[] {
  const out: { model: string; o: EstimateOptions }[] = [];
  for (const model of ['qwen2.5-7b', 'llama-3.1-8b', 'qwen3-30b-a3b-instruct-2507'])
    for (const method of ['lora', 'qlora', 'full'] as const)
      for (const framework of ['hf', 'unsloth', 'deepspeed'] as const)
        for (const attention of ['sdpa', 'eager'] as const)
          for (const flags of ROLLOUTS) {
            const gpus = flags.rollout === 'vllm-server' ? 4 : 2;
            out.push({ model, o: grpo({ method, framework, attention, gpus, batch: 4 }, flags) });
          }
  return out;
}

/** Another value of each DECODE_UNREAD field. */
const VARIED: {
  [K in (typeof DECODE_UNREAD)[number]]: (o: EstimateOptions) => EstimateOptions[K];
} = {
  checkpointing: (o) => (o.checkpointing === 'full' ? 'none' : 'full'),
  zero: (o) => (o.zero === 3 ? 0 : 3),
  offload: (o) => (o.offload === 'none' ? 'optimizer' : 'none'),
  liger: (o) => !o.liger,
  masterWeights: (o) => !o.masterWeights,
};

const newPhases = (): ObjectivePhases => ({
  rollout: 0,
  referenceLogprobs: 0,
  policyTraining: 0,
  weightSync: 0,
});

/** Options that record each field read (a spread or key listing counts every field as read). */
function recording(o: EstimateOptions, read: Set<string>): EstimateOptions {
  return new Proxy(o, {
    get(target, k, receiver) {
      if (typeof k === 'string') read.add(k);
      return Reflect.get(target, k, receiver) as unknown;
    },
    ownKeys(target) {
      for (const k of Object.keys(target)) read.add(k);
      return Reflect.ownKeys(target);
    },
  });
}

describe('DECODE_UNREAD', () => {
  it('lists only fields no rollout decode reads', () => {
    const read = new Set<string>();
    let decodes = 0;
    for (const { model, o } of policies()) {
      const m = modelFacts(resolveModel(model));
      const w: ObjectiveWork = objectiveWork(m, o, t, m.total);
      for (const ro of [w.rollout, w.rolloutAlone]) {
        if (!ro) continue;
        decodes++;
        ro.decode = recording(ro.decode, read);
        if (ro.lora) ro.lora = recording(ro.lora, read);
      }
      // Fresh rates: every decode is timed here, not found.
      objectiveStep(m, w, t, gpuRates(h100, t), newPhases());
    }
    expect(decodes).toBeGreaterThan(100);
    // What the decodes read (a sanity check that the recording sees them), and none of the listed fields.
    for (const k of ['batch', 'seq', 'tp', 'weights', 'framework', 'compute'])
      expect(read).toContain(k);
    for (const k of DECODE_UNREAD) expect(read).not.toContain(k);
  });

  it('the rollout takes the same seconds whichever value a listed field has', () => {
    const rates = gpuRates(h100, t);
    // The decode alone: what the trainer's generate waits on fetching a sharded or offloaded policy reads the policy's
    // ZeRO stage and offload by design (time/trainer-fetch.ts), not the decode's options.
    const decodeOnly = (m: ReturnType<typeof modelFacts>, x: EstimateOptions): ObjectiveWork => ({
      ...objectiveWork(m, x, t, m.total),
      fetch: NO_FETCH,
    });
    for (const { model, o } of policies().filter((_, i) => i % 3 === 0)) {
      const m = modelFacts(resolveModel(model));
      const base = newPhases();
      objectiveStep(m, decodeOnly(m, o), t, rates, base);
      for (const k of DECODE_UNREAD) {
        const other = { ...o, [k]: VARIED[k](o) };
        const phases = newPhases();
        objectiveStep(m, decodeOnly(m, other), t, rates, phases);
        expect(phases.rollout, `${model} ${o.method} ${o.framework} ${o.rollout} ${k}`).toBe(
          base.rollout,
        );
      }
    }
  });
});

describe('RolloutDecodes over the training fields', () => {
  const m = modelFacts(resolveModel('qwen2.5-7b'));
  const colocate = grpo({ gpus: 2, batch: 4 }, { rollout: 'vllm-colocate', 'rollout-memory': 0.5 });
  const hf = grpo({ gpus: 2, batch: 4, attention: 'eager' }, { rollout: 'hf' });
  const rates = gpuRates(h100, t);

  it('shares a decode between policies that differ in a listed field, timed as each alone', () => {
    for (const base of [colocate, hf]) {
      const decodes = new RolloutDecodes();
      const a = objectiveWork(m, base, t, 7e9, policyWork(m, base, t, decodes)).rollout;
      expect(a).not.toBeNull();
      for (const k of DECODE_UNREAD) {
        const o = { ...base, [k]: VARIED[k](base) };
        const shared = objectiveWork(m, o, t, 7e9, policyWork(m, o, t, decodes));
        expect(shared.rollout, k).toBe(a);
        const phases = newPhases();
        const alone = newPhases();
        expect(objectiveStep(m, shared, t, rates, phases)).toBe(
          objectiveStep(m, objectiveWork(m, o, t, 7e9), t, rates, alone),
        );
        expect(phases.rollout).toBe(alone.rollout);
      }
    }
  });

  it('keeps decodes apart when a field the decode reads differs', () => {
    const decodes = new RolloutDecodes();
    const of = (o: EstimateOptions) =>
      objectiveWork(m, o, t, 7e9, policyWork(m, o, t, decodes)).rollout;
    const a = of(hf);
    const read: Partial<EstimateOptions>[] = [
      { attention: 'sdpa' },
      { compute: 'fp16' },
      { loraRank: 64 },
      { loraTargets: ['q', 'k', 'v'] },
      { kvCacheDtype: 'fp8' },
    ];
    for (const over of read) expect(of({ ...hf, ...over }), JSON.stringify(over)).not.toBe(a);
  });
});
