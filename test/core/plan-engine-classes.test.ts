// The planner checks engines and quality once per engine class (plan/rows.ts engineClassesOf): configurations
// alike but for the objective's rollout keys (GRPO's rollout mode, vLLM share, server GPUs) and the micro-batch
// share one answer. That holds only while engineRejects and qualityOf read none of those keys: here every
// configuration of the shipped GRPO scenario gets, on every engine and a few layouts, the same engine verdict
// and quality as the first configuration of its class. Launcher verdicts are shared only between vLLM's colocated
// shares (plan/rows.ts launchGroupsOf): no launcher check may read the share.
import { beforeAll, describe, expect, it } from 'vitest';
import { baseConfigs } from '../../src/core/plan/configs.js';
import {
  engineFieldsInto,
  engineRejects,
  onEngine,
  ENGINE_PROFILES,
} from '../../src/core/engines/engines.js';
import { loadLaunchers } from '../../src/core/engines/registry.js';
import { launchBlocker } from '../../src/core/launch/index.js';
import { samePolicyOptions } from '../../src/core/memory/objective.js';
import { qualityOf } from '../../src/core/plan/quality.js';
import { resolveModel } from '../../src/io/load-model.js';
import { loadScenario } from '../../src/io/load-scenario.js';
import type { Engine } from '../../src/schema/engine.js';
import type { EstimateOptions } from '../../src/schema/estimate.js';

const s = loadScenario('scenarios/grpo-qwen2.5-7b.yaml');
const arch = resolveModel(s.model);
const bases = baseConfigs(s, arch);
const engines = Object.keys(ENGINE_PROFILES) as Engine[];
// (dp, accum, tp, ZeRO): one GPU, data parallel with accumulation, tensor parallel under ZeRO-3.
const LAYOUTS = [
  [1, 1, 1, 0],
  [4, 8, 1, 2],
  [2, 1, 2, 3],
] as const;

/** What the planner's engine and quality checks answer for `o` on every engine and layout. */
function answers(o: EstimateOptions): string[] {
  const out: string[] = [];
  for (const engine of engines) {
    for (const [dp, accum, tp, zero] of LAYOUTS)
      out.push(`${engineRejects(engine, { ...o, tp, zero }, dp, accum)}`);
    out.push(JSON.stringify(qualityOf(onEngine(o, engine), arch.modelType)));
  }
  return out;
}

beforeAll(loadLaunchers);

describe('engine classes of a GRPO search', () => {
  it('the configurations of one class get the same engine and quality answers', () => {
    const classes: { first: EstimateOptions; answers: string[]; members: number }[] = [];
    const rollouts = new Set<string>();
    for (const b of bases.slice(0, 1400)) {
      const o = b.options;
      rollouts.add(`${o.rollout}/${o.rolloutMemory}/${o.rolloutGpus}`);
      const c = classes.find((k) => samePolicyOptions(k.first, o, true));
      if (!c) classes.push({ first: o, answers: answers(o), members: 1 });
      else {
        expect(answers(o)).toEqual(c.answers);
        c.members++;
      }
    }
    // Every rollout mode and micro-batch of a configuration fell in its class: 7 rollouts x 5 micro-batches.
    expect(rollouts.size).toBe(7);
    expect(classes.length).toBe(40);
    for (const c of classes) expect(c.members).toBe(35);
  });
  it('configurations that differ in a key the checks read are in different classes', () => {
    const o = bases[0]!.options;
    expect(samePolicyOptions(o, { ...o, batch: o.batch * 2, rolloutGpus: 3 }, true)).toBe(true);
    expect(samePolicyOptions(o, { ...o, optimizer: 'sgd' }, true)).toBe(false);
    expect(samePolicyOptions(o, { ...o, batch: o.batch * 2 })).toBe(false);
  });
  it("a colocated vLLM share changes no launcher's verdict", () => {
    // Two of every 12 colocated configurations: both methods, shares, optimizers, checkpointing, attention.
    const colocated = bases
      .filter((b) => b.options.rollout === 'vllm-colocate')
      .filter((_, i) => i % 12 === 0 || i % 12 === 5);
    expect(new Set(colocated.map((b) => b.options.rolloutMemory))).toEqual(new Set([0.3, 0.5]));
    const seen = new Set<boolean>();
    for (const b of colocated)
      for (const engine of engines)
        for (const [dp, accum, tp, zero] of LAYOUTS) {
          const runs = (share: number) =>
            launchBlocker(
              {
                arch,
                options: engineFieldsInto(
                  { ...b.options, rolloutMemory: share, gpus: dp * tp, tp, zero },
                  engine,
                ),
                accum,
              },
              engine,
            ) === null;
          expect(runs(0.3)).toBe(runs(0.5));
          seen.add(runs(0.3));
        }
    expect(seen).toEqual(new Set([true, false])); // some launch, some are refused
  });
});
