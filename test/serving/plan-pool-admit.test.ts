// A serving plan on an engine that admits requests from a paged KV pool runs where the pool holds one sequence of
// the job's length, the rest of its users queueing (plan/tps-memo.ts admitsFromPool), and ranks at the queued rate
// `estimate` gives; before, the planner pruned it as out of memory with every user's KV resident at once.
import { afterAll, describe, expect, it } from 'vitest';
import { launchFolder, launchInputOfPlan } from '../../src/commands/launch-run.js';
import { plan, type Plan } from '../../src/core/plan/index.js';
import type { Arch } from '../../src/core/model/index.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { buildEstimate } from '../../src/core/estimate.js';
import { runsQueued } from '../../src/core/plan/tps-memo.js';
import { estimateTime } from '../../src/core/time/index.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { outputTokensOf } from '../../src/schema/estimate.js';
import type { Gpu } from '../../src/schema/gpu.js';
import { defaultTimeOptions } from '../../src/schema/time.js';
import { closeJslpWorkers } from '../../src/solve/index.js';
import { estimatedRate, inputOf } from './plan-input.js';

afterAll(() => closeJslpWorkers());

/** One owned GPU serving `users` at `context` tokens (half of them prompt). */
const oneGpu = (model: string, gpu: string, users: number, context: number) =>
  inputOf('serve-8b-64-users-24gb.yaml', (s) => {
    s.model = model;
    s.job = { kind: 'inference', context, concurrency: users, outputTokens: 100_000_000 };
    s.hardware = { ...s.hardware, owned: [{ gpu, count: 1 }], counts: { min: 1, max: 1 } };
    s.power = { ...s.power, circuits: [] };
    s.expect = undefined;
  });

const poolEngine = (p: Plan) => FRAMEWORKS[p.options.framework].kvCache === 'paged-pool';

/** The tokens/s of the plan's options with all its sequences resident at once (Little-bounded as estimatedRate). */
function residentRate(arch: Arch, p: Plan, gpu: Gpu): number {
  const run = estimateTime(arch, p.options, gpu, defaultTimeOptions(p.options.gpus));
  const out = outputTokensOf(p.options);
  const little = (p.options.batch * out) / (run.ttftSeconds! + (out - 1) * run.tpotSeconds!);
  return Math.min(run.decodeTokensPerSecond!, little) * p.choices.dp;
}

describe.each([
  // 256 users of Llama-3.1-8B at 4k on one L40S: the best pool holds about 160 of them at the mean context.
  { model: 'llama-3.1-8b', gpu: 'l40s', users: 256, context: 4096 },
  // 16 users of Qwen3-32B at 8k on one RTX 5090: int4 weights leave a pool of about 12 at the mean context.
  { model: 'qwen3-32b', gpu: 'rtx-5090', users: 16, context: 8192 },
])('$model for $users users at $context on one $gpu', ({ model, gpu, users, context }) => {
  const input = oneGpu(model, gpu, users, context);
  const r = plan({ ...input, top: 20 });
  const g = findGpu(gpu);

  it('ranks a plan on a pool-admitting engine first, its pool short of the users, within the GPU', () => {
    const best = r.plans[0]!;
    expect(poolEngine(best)).toBe(true);
    expect(best.serving!.sequencesAtMeanContext).toBeLessThan(users);
    expect(best.serving!.sequencesAtMaxContext).toBeGreaterThanOrEqual(1);
    expect(best.memory.deviceBytes).toBeLessThanOrEqual(best.memory.capacityBytes);
  });

  it("leaves estimate's fit verdict as it was; the launch takes the plan by the engine's rule", () => {
    const best = r.plans[0]!;
    const e = buildEstimate(input.arch, best.options, g);
    // 256 users' KV resident at once is over the L40S: estimate still says so.
    if (gpu === 'l40s') expect(e.fits).toBe(false);
    expect(runsQueued(best.options, e.serving, modelFacts(input.arch))).toBe(true);
  });

  it("writes the memory the engine holds into the run plan `check` reads, the plan's own, not every user's", () => {
    const best = r.plans[0]!;
    const x = launchInputOfPlan(best, input.arch, input.arch.hfId ?? input.arch.id, g);
    const file = launchFolder(x).files.find((f) => f.path === 'vramplan-plan.json')!;
    const held = JSON.parse(file.content) as { estimate: { deviceBytes: number } };
    // The full batch's KV resident at once is over the card on the L40S; the run plan carries the pool's share.
    if (gpu === 'l40s')
      expect(x.estimate.perGpu.deviceBytes).toBeGreaterThan(g.memoryMiB * 2 ** 20);
    expect(held.estimate.deviceBytes).toBeLessThanOrEqual(best.memory.capacityBytes);
    expect(held.estimate.deviceBytes).toBe(best.memory.deviceBytes);
  });

  it("ranks each such plan at estimate's queued rate, never above the rate with every user resident", () => {
    const queued = r.plans.filter(
      (p) => poolEngine(p) && p.serving!.sequencesAtMeanContext < p.options.batch,
    );
    expect(queued.length).toBeGreaterThan(0);
    // At board power, as `estimate` times it (an owned GPU's lower power limits time slower).
    const full = r.plans.filter((p) => p.hardware.powerLimitFraction === 1);
    expect(full.some((p) => queued.includes(p))).toBe(true);
    for (const p of full) {
      const rate = estimatedRate(input.arch, p, g);
      expect(Math.abs(p.time.tokensPerSecond / rate - 1)).toBeLessThan(2e-3);
      expect(p.time.tokensPerSecond).toBeLessThanOrEqual(residentRate(input.arch, p, g) * 1.002);
    }
  });
});
