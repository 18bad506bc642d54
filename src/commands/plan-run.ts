/** The plan command's body. Exit 0: plans found; 2: nothing fits; 1: bad input (thrown UserError). */
import { extname } from 'node:path';
import { plan, type PlanInput, type PlanResult } from '../core/plan.js';
import { refineCircuits } from '../core/plan-circuits.js';
import { scenarioStructureIssue } from '../core/structure.js';
import { planFleet } from '../core/plan-fleet.js';
import { detectGpus } from '../io/detect.js';
import { badValue } from '../io/errors.js';
import { loadGpus } from '../io/load-catalog.js';
import { resolveModel } from '../io/load-model.js';
import { inScenario, loadScenario, modelSpecOf, resolveHardware } from '../io/load-scenario.js';
import { writeAtomic } from '../io/write-atomic.js';
import { exportPlan, planJson, type ExportFormat } from '../ui/export-plan.js';
import { renderPlanText } from '../ui/plan-text.js';
import { wantsTui } from './explore.js';
import { parseTop } from './top.js';

/** Load, resolve and plan one scenario file. */
export async function planScenario(
  file: string,
  opts: { top?: number; detect?: boolean } = {},
): Promise<PlanResult> {
  const scenario = loadScenario(file);
  const detected =
    opts.detect || scenario.hardware.detect
      ? (await detectGpus({ gpus: loadGpus() })).flatMap((d) => (d.gpuId ? [d.gpuId] : []))
      : [];
  const { arch, hw } = inScenario(file, () => {
    const arch = resolveModel(modelSpecOf(file, scenario), { flag: 'model' });
    const issue = scenarioStructureIssue(arch, scenario);
    if (issue) throw badValue(issue.field, issue.value, issue.allowed);
    return { arch, hw: resolveHardware(scenario, detected) };
  });
  const input: PlanInput = {
    scenario,
    arch,
    hardware: hw.options,
    circuits: hw.circuits,
    top: opts.top,
  };
  // The search is greedy and sync; the MIPs (≤ 1 s each step, issue #3) refine what it reports.
  const result = await refineCircuits(plan(input), input);
  const fleet = await planFleet(input);
  return fleet ? { ...result, fleet } : result;
}

export function exportFormatOf(file: string): ExportFormat {
  const ext = extname(file).slice(1).toLowerCase();
  if (ext === 'json' || ext === 'csv' || ext === 'md' || ext === 'svg') return ext;
  throw badValue('--export', file, 'a file name ending in .json, .csv, .md or .svg');
}

export async function runPlan(file: string, opts: Record<string, unknown>): Promise<number> {
  if (wantsTui(opts)) return (await import('./explore-run.js')).runExplorer(file, opts);
  const top = parseTop(opts.top);
  const format = typeof opts.export === 'string' ? exportFormatOf(opts.export) : null;
  const result = await planScenario(file, { top, detect: opts.detect === true });
  if (format && typeof opts.export === 'string')
    writeAtomic(opts.export, exportPlan(result, format), { force: opts.force === true });
  process.stdout.write(
    opts.json === true
      ? `${JSON.stringify(planJson(result), null, 2)}\n`
      : `${renderPlanText(result)}\n`,
  );
  return result.fits ? 0 : 2;
}
