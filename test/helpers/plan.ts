// Plans a scenario written inline in a test: parsed as a file of that name would be, on the shipped catalogs.
import { plan, type PlanResult } from '../../src/core/plan/index.js';
import { resolveModel } from '../../src/io/load-model.js';
import { parseScenario, resolveHardware } from '../../src/io/load-scenario.js';

export function planYaml(file: string, yaml: string, top: number): PlanResult {
  const scenario = parseScenario(file, yaml);
  const hw = resolveHardware(scenario);
  return plan({
    scenario,
    arch: resolveModel(scenario.model),
    hardware: hw.options,
    circuits: hw.circuits,
    top,
  });
}
