// The serving search's tensor-parallel attention with expert-parallel MoE layers (vLLM --tensor-parallel-size N
// --enable-expert-parallel, EP = TP x DP with DP 1): offered on the engines whose profile has it, at its own TP degree,
// written by launch and read back by --from to the plan's figures.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { buildEstimate } from '../../src/core/estimate.js';
import { ENGINE_PROFILES } from '../../src/core/engines/engines.js';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { expertLayout, tpExpertDegrees } from '../../src/core/plan/expert-parallel.js';
import { plan, type Plan } from '../../src/core/plan/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { serveShOf } from '../helpers/launch.js';
import { inputOf } from './plan-input.js';
import { readBack } from './serve-line.js';
import type { Engine } from '../../src/schema/engine.js';
import type { Scenario } from '../../src/schema/scenario.js';

const SCENARIO = 'serve-deepseek-v3-8xh200.yaml';
const gpu = findGpu('h200-sxm');

/** The scenario's plans (its top 40), the engines narrowed by `edit`. */
function plansOf(edit: (s: Scenario) => void): {
  plans: Plan[];
  input: ReturnType<typeof inputOf>;
} {
  const input = inputOf(SCENARIO, edit);
  return { plans: plan({ ...input, top: 40 }).plans, input };
}

const tpEp = (p: Plan) => p.choices.dpAttention === undefined && (p.choices.ep ?? 1) > 1;

describe('TP + EP in the serving search', () => {
  const { plans, input } = plansOf(() => {});

  it('offers vLLM plans with the MoE layers expert parallel over the TP group, never on an engine without it', () => {
    const offered = plans.filter(tpEp);
    expect(offered.map((p) => p.choices.engine)).toContain('vllm');
    for (const p of offered) {
      expect(ENGINE_PROFILES[p.choices.engine as Engine].tpExpertParallel).toBeDefined();
      // EP = TP x DP with DP 1: the expert-parallel degree is the TP degree, no pipeline.
      expect(p.choices).toMatchObject({ ep: p.choices.tp, pp: 1 });
      expect(p.options).toMatchObject({ ep: p.options.tp, pp: 1 });
      expect(p.options.dpAttention).toBeUndefined();
    }
    // SGLang runs --tp N --ep-size N too, but its profile does not offer it: no SGLang plan has EP without DP attention.
    expect(plans.filter((p) => p.choices.engine === 'sglang').some(tpEp)).toBe(false);
  });

  it('a TP + EP plan launches --enable-expert-parallel beside --tensor-parallel-size and reads back to its figures', () => {
    const p = plans.find(tpEp)!;
    const e = buildEstimate(input.arch, p.options, gpu);
    const sh = serveShOf(input.arch, p.options, gpu, e);
    expect(sh).toContain(`--tensor-parallel-size ${p.options.tp}`);
    expect(sh).toContain('--enable-expert-parallel');
    expect(sh).not.toContain('--data-parallel-size');
    const back = readBack(sh).flags;
    expect(back).toMatchObject({ tp: p.options.tp, ep: p.options.tp });
    expect(back['dp-attention']).toBeUndefined();
    // What serve.sh does not carry: the checkpoint's FP8 (vLLM reads it from the model's config; --from resolves the
    // model) and the prompt length (the plan beside serve.sh in a launch folder).
    const all = {
      ...back,
      gpus: p.options.gpus,
      weights: p.options.weights,
      'prompt-tokens': p.options.promptTokens,
    };
    const again = buildEstimate(input.arch, withEngineDefaults(optionsFromFlags(all), all), gpu);
    expect(again.perGpu.allocatedBytes).toBe(e.perGpu.allocatedBytes);
    expect(again.time!.stepSeconds).toBe(e.time!.stepSeconds);
  });

  it('without an engine that offers it the search makes no TP + EP configuration', () => {
    const sglang = plansOf((s) => {
      s.search = { ...s.search, engines: ['sglang'] };
    }).plans;
    expect(sglang.length).toBeGreaterThan(0);
    expect(sglang.some(tpEp)).toBe(false);
    const s = inputOf(SCENARIO).scenario;
    expect(tpExpertDegrees(s, input.arch, ['sglang'])).toEqual([]);
    expect(tpExpertDegrees(s, input.arch, ['vllm'])).toEqual([2, 4, 8]);
  });

  it('property: a TP + EP configuration runs only at its own TP degree, without a pipeline; others anywhere', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(2, 4, 8),
        fc.constantFrom(1, 2, 4, 8),
        fc.constantFrom(1, 2),
        fc.constantFrom(1, 2, 4),
        (ep, tp, pp, dp) => {
          const base = plans[0]!.options;
          const withEp = { ...base, dpAttention: undefined, ep };
          const plain = { ...base, dpAttention: undefined, ep: undefined };
          expect(expertLayout(input.arch, withEp, tp, pp, dp)).toBe(tp === ep && pp === 1);
          expect(expertLayout(input.arch, plain, tp, pp, dp)).toBe(true);
        },
      ),
      { numRuns: 40 },
    );
  });
});
