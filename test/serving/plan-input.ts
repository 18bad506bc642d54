// A shipped scenario as planner input, edited before its hardware is resolved.
import { join } from 'node:path';
import type { Plan, PlanInput } from '../../src/core/plan/index.js';
import type { Arch } from '../../src/core/model/index.js';
import { estimateTime } from '../../src/core/time/index.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { queuesOnPool } from '../../src/core/time/pool-queue.js';
import { outputTokensOf } from '../../src/schema/estimate.js';
import type { Gpu } from '../../src/schema/gpu.js';
import { defaultTimeOptions } from '../../src/schema/time.js';
import { resolveModel } from '../../src/io/load-model.js';
import { loadScenario, resolveHardware } from '../../src/io/load-scenario.js';
import type { Scenario } from '../../src/schema/scenario.js';

export const inputOf = (file: string, edit: (s: Scenario) => void = () => {}): PlanInput => {
  const s = loadScenario(join('scenarios', file));
  edit(s);
  const hw = resolveHardware(s);
  return { scenario: s, arch: resolveModel(s.model), hardware: hw.options, circuits: hw.circuits };
};

/**
 * The tokens/s `estimate` gives a serving plan's options on `gpu`: the decode rate of the sequences that run, or what
 * their unqueued latency allows (Little's law over the prefills: serving-step.ts replicaTokensPerSecond), whichever is
 * lower, times the replicas. Those c timed as they run, unqueued: SGLang's reserve at a burst of c alone would admit
 * fewer of them (time/admission-reserve.ts), the planner times the c its pool runs. The time model queues plain
 * decoding only (pool-queue.ts queuesOnPool: not a DP-attention plan).
 */
export function estimatedRate(arch: Arch, p: Plan, gpu: Gpu): number {
  const c = queuesOnPool(modelFacts(arch), p.options)
    ? Math.min(p.options.batch, p.serving?.sequencesAtMeanContext ?? p.options.batch)
    : p.options.batch;
  const run = estimateTime(
    arch,
    { ...p.options, batch: c },
    gpu,
    defaultTimeOptions(p.options.gpus),
  );
  const out = outputTokensOf(p.options);
  const little = (c * out) / (run.ttftSeconds! + (out - 1) * run.tpotSeconds!);
  return Math.min(run.decodeTokensPerSecond!, little) * p.choices.dp;
}
