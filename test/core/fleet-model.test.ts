// The fleet MIP goes to solveMip as trusted (plan/plan-fleet.ts fleetModel): every model its builder makes must pass
// the MIP schema, and the schema's parse must hand the solver the same model.
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fleetModel } from '../../src/core/plan/plan-fleet.js';
import { fleetCandidates, fleetLimits, type FleetCandidate } from '../../src/core/plan/index.js';
import { resolveModel } from '../../src/io/load-model.js';
import { loadScenario, resolveHardware } from '../../src/io/load-scenario.js';
import { closeJslpWorkers, MipModelSchema } from '../../src/solve/index.js';

afterAll(() => closeJslpWorkers());

const cand = (
  planId: string,
  kind: 'owned' | 'rent',
  gpuId: string,
  gpus: number,
  tps: number,
  usd: number,
  rps?: number,
): FleetCandidate => ({
  kind,
  gpuId,
  offerId: kind === 'rent' ? `${gpuId}-offer` : null,
  gpusPerReplica: gpus,
  concurrency: 2,
  powerLimitFraction: 1,
  tokensPerSecond: tps,
  usdPerHour: usd,
  planId,
  ...(rps === undefined ? {} : { requestsPerSecond: rps }),
});

/** The model parses, and to the same model (what the solver would have read after the check). */
const holds = (model: ReturnType<typeof fleetModel>) => {
  expect('unbounded' in model).toBe(false);
  const parsed = MipModelSchema.safeParse(model);
  expect(parsed.success).toBe(true);
  expect(parsed.data).toEqual(model);
};

describe('fleetModel', () => {
  const cands = [
    cand('a1', 'owned', 'gpu-a', 1, 100, 0.05, 0.5),
    cand('a2', 'owned', 'gpu-a', 2, 210, 0.1, 1.1),
    cand('b', 'rent', 'gpu-b', 1, 300, 1.5, 1.4),
    cand('c', 'rent', 'gpu-c', 4, 500, 2.4, 2.5),
  ];
  const owned = { 'gpu-a': 2 };

  it('builds models the MIP schema accepts under each kind of limit', () => {
    holds(fleetModel(cands, { budgetUsdPerHour: 3.1, maxGpus: null, owned }));
    holds(fleetModel(cands, { budgetUsdPerHour: null, maxGpus: 6, owned }));
    holds(fleetModel(cands, { budgetUsdPerHour: 5, maxGpus: 4, owned, concurrency: 8 }));
    holds(fleetModel(cands, { budgetUsdPerHour: 5, maxGpus: null, owned, requestsPerSecond: 3 }));
    holds(fleetModel(cands.slice(0, 2), { budgetUsdPerHour: null, maxGpus: null, owned }));
  });

  it('builds the shipped serve-mixed-fleet example’s model the MIP schema accepts', () => {
    const s = loadScenario(
      join(import.meta.dirname, '..', '..', 'scenarios', 'serve-mixed-fleet.yaml'),
    );
    const hw = resolveHardware(s);
    const input = {
      scenario: s,
      arch: resolveModel(s.model),
      hardware: hw.options,
      circuits: hw.circuits,
    };
    holds(fleetModel(fleetCandidates(input), fleetLimits(input)));
  });
});
