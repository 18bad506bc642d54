// Launch groups (plan/rows.ts launchGroupsOf) are found among the configurations of one engine class by comparing
// only the keys that can differ there (LAUNCH_KEYS: the objective's keys and `gpus`, less vLLM's colocated share and
// the micro-batch), where every option key was compared (alikeBut): both answer alike on configurations of one
// class, here pairs of the shipped GRPO scenario's configurations with their objective keys and GPUs redrawn.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { alikeBut, alikeOn } from '../../src/core/plan/alike.js';
import { baseConfigs } from '../../src/core/plan/configs.js';
import { LAUNCH_KEYS } from '../../src/core/plan/rows.js';
import { RL_KEYS, samePolicyOptions } from '../../src/core/memory/objective.js';
import { resolveModel } from '../../src/io/load-model.js';
import { loadScenario } from '../../src/io/load-scenario.js';
import type { EstimateOptions } from '../../src/schema/estimate.js';

const s = loadScenario('scenarios/grpo-qwen2.5-7b.yaml');
const bases = baseConfigs(s, resolveModel(s.model));
const SKIPPED = new Set(['rolloutMemory', 'batch']);
const KEYS = [...RL_KEYS, 'gpus', 'batch'];

/** `o` with some of the objective's keys, `gpus` or the micro-batch dropped or set to one of a few values. */
const redrawn = fc.array(
  fc.record({
    key: fc.constantFrom(...KEYS),
    value: fc.oneof(
      fc.constant(undefined),
      fc.constantFrom(0.3, 0.5, 1, 2, 4, 'vllm-server', 'vllm-colocate', true, false),
      fc.constant([1, 2]),
    ),
  }),
  { maxLength: 6 },
);

function redraw(o: EstimateOptions, edits: { key: string; value: unknown }[]): EstimateOptions {
  const out = { ...o } as Record<string, unknown>;
  for (const e of edits) {
    if (e.value === undefined) delete out[e.key];
    else out[e.key] = Array.isArray(e.value) ? [...e.value] : e.value;
  }
  return out as unknown as EstimateOptions;
}

describe('launch keys', () => {
  it('name the objective keys and GPUs, less the colocated share and micro-batch', () => {
    expect(LAUNCH_KEYS).toContain('rollout');
    expect(LAUNCH_KEYS).toContain('rolloutGpus');
    expect(LAUNCH_KEYS).toContain('gpus');
    expect(LAUNCH_KEYS).not.toContain('rolloutMemory');
    expect(LAUNCH_KEYS).not.toContain('batch');
  });

  it('alikeOn over them answers as alikeBut on configurations of one engine class', () => {
    let alike = 0;
    let apart = 0;
    fc.assert(
      fc.property(
        fc.nat({ max: bases.length - 1 }),
        fc.nat({ max: 34 }),
        redrawn,
        redrawn,
        (i, step, ea, eb) => {
          // Configurations of one class sit within 35 of each other (7 rollouts x 5 micro-batches).
          const j = Math.min(bases.length - 1, i - (i % 35) + step);
          const a = redraw(bases[i]!.options, ea);
          const b = redraw(bases[j]!.options, eb);
          if (!samePolicyOptions(a, b, true)) return;
          const want = alikeBut(a, b, SKIPPED);
          if (want) alike++;
          else apart++;
          expect(alikeOn(a, b, LAUNCH_KEYS)).toBe(want);
        },
      ),
      { numRuns: 2000 },
    );
    // Both answers were exercised.
    expect(alike).toBeGreaterThan(20);
    expect(apart).toBeGreaterThan(20);
  });
});
