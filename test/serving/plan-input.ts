// A shipped scenario as planner input, edited before its hardware is resolved.
import { join } from 'node:path';
import type { PlanInput } from '../../src/core/plan/index.js';
import { resolveModel } from '../../src/io/load-model.js';
import { loadScenario, resolveHardware } from '../../src/io/load-scenario.js';
import type { Scenario } from '../../src/schema/scenario.js';

export const inputOf = (file: string, edit: (s: Scenario) => void = () => {}): PlanInput => {
  const s = loadScenario(join('scenarios', file));
  edit(s);
  const hw = resolveHardware(s);
  return { scenario: s, arch: resolveModel(s.model), hardware: hw.options, circuits: hw.circuits };
};
