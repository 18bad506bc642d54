// A finished plan's memory is its own options' estimate on its GPU. Finishing a result (core/plan/results.ts
// planEstimate) makes one estimate per (row, GPU option) and shares it between the near-tie order and the plans
// of that row on that option at each power level: the estimate reads the options and the GPU only.
import { describe, expect, it } from 'vitest';
import { plan, type Plan } from '../../src/core/plan/index.js';
import { estimateMemory } from '../../src/core/memory/memory.js';
import { OPTIMIZER_PROFILES } from '../../src/core/engines/optimizers.js';
import { loadLaunchers } from '../../src/core/engines/registry.js';
import { gpuContext } from '../../src/core/time/hardware.js';
import { planInputOf } from '../../src/io/plan-scenario.js';
import { loadScenario } from '../../src/io/load-scenario.js';
import type { Scenario } from '../../src/schema/scenario.js';

/** default.yaml on a 24 GB and a 48 GB card with paged optimizer states, whose estimate reads the card's memory. */
function pagedOnTwoCards(): Scenario {
  const s = loadScenario('scenarios/default.yaml');
  return {
    ...s,
    hardware: {
      ...s.hardware,
      owned: [
        { gpu: 'rtx-4090', count: 1 },
        { gpu: 'rtx-a6000', count: 1 },
      ],
    },
    search: { ...s.search, optimizers: ['paged-adamw-8bit', 'paged-adamw'] },
  } as Scenario;
}

// Scenarios with several power levels, several GPUs and offers, and a rollout (its estimate reads the GPU).
const CASES: [string, number, Scenario?][] = [
  ['scenarios/default.yaml', 1000, pagedOnTwoCards()],
  ['scenarios/default.yaml', 1000],
  ['scenarios/70b-qlora-rent-cheapest.yaml', 1000],
  ['scenarios/grpo-qwen2.5-7b.yaml', 60],
];

describe('plans share memory estimates by row and GPU option', () => {
  for (const [file, top, edited] of CASES)
    it(
      `${file}${edited ? ' (edited)' : ''}: each plan's memory is its own estimate`,
      { timeout: 120_000 },
      async () => {
        await loadLaunchers();
        const input = planInputOf(file, edited ?? loadScenario(file), { top });
        const r = plan(input);
        const gpuOf = (p: Plan) =>
          input.hardware.find(
            (h) => h.gpu.id === p.hardware.gpuId && (h.offer?.id ?? null) === p.hardware.offerId,
          )!.gpu;
        const shared = new Map<string, number>();
        for (const p of [...r.plans, ...r.front]) {
          const o = p.options;
          const paged = o.rollout || OPTIMIZER_PROFILES[o.optimizer].paged;
          const m = estimateMemory(input.arch, o, paged ? gpuContext(gpuOf(p)) : {});
          expect(p.memory.deviceBytes).toBe(m.perGpu.deviceBytes);
          expect(p.memory.allocatedBytes).toBe(m.perGpu.allocatedBytes);
          expect(p.memory.reservedBytes).toBe(m.perGpu.reservedBytes);
          expect(p.memory.hostBytesPerGpu).toBe(m.hostBytesPerGpu);
          expect(p.memory.peakPhase).toBe(m.peakPhase);
          expect(p.memory.breakdown).toEqual(m.perGpu.breakdown);
          const key = `${JSON.stringify(o)}|${p.hardware.gpuId}|${p.hardware.offerId}`;
          shared.set(key, (shared.get(key) ?? 0) + 1);
        }
        // Plans of one row and option at several power levels (or ranked and on the front) are there to share.
        expect([...shared.values()].some((n) => n > 1)).toBe(true);
      },
    );
});
