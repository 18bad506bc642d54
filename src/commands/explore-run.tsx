/** Mount the explorer (or the compare view) full-screen; plain output paths never import this module. */
import { extname, resolve } from 'node:path';
import { render } from 'ink';
import { plan, type PlanResult } from '../core/plan.js';
import { detectGpus } from '../io/detect.js';
import { UserError } from '../io/errors.js';
import { loadGpus } from '../io/load-catalog.js';
import { resolveModel } from '../io/load-model.js';
import { loadScenario, resolveHardware } from '../io/load-scenario.js';
import { writeAtomic } from '../io/write-atomic.js';
import type { Scenario } from '../schema/scenario.js';
import { exportPlan } from '../ui/export-plan.js';
import { CompareApp } from '../ui/tui/CompareApp.js';
import { Explorer } from '../ui/tui/Explorer.js';
import { parseTop } from './top.js';

/** Background re-plans of the opening scenario that warm the JIT before the first edit. */
const JIT_WARMUP_PLANS = 2;

/** Plans ranked for the explorer's table when --top is not given (it only draws the visible window). */
export const EXPLORER_TOP = 1000;

/** Resolve and plan an in-memory scenario (the explorer's re-plan after an edit). */
export function planFor(scenario: Scenario, detected: readonly string[], top: number): PlanResult {
  const arch = resolveModel(scenario.model, { flag: 'model' });
  const hw = resolveHardware(scenario, detected);
  return plan({ scenario, arch, hardware: hw.options, circuits: hw.circuits, top });
}

/** Write an export; the extension names the format. Returns the absolute path. */
export function exportTo(path: string, result: PlanResult): string {
  const ext = extname(path).slice(1).toLowerCase();
  if (ext !== 'json' && ext !== 'csv' && ext !== 'md' && ext !== 'svg')
    throw new UserError(`${path}: expected a name ending in .json, .csv, .md or .svg`);
  writeAtomic(path, exportPlan(result, ext));
  return resolve(path);
}

const size = () => ({
  width: Math.max(60, process.stdout.columns ?? 100),
  height: Math.max(20, (process.stdout.rows ?? 30) - 1),
});

/** Full screen in the alternate buffer, restored however the app ends. */
async function fullScreen(
  mount: () => { waitUntilExit: () => Promise<unknown>; cleanup?: () => void },
): Promise<void> {
  process.stdout.write('\u001b[?1049h\u001b[H');
  const restore = () => process.stdout.write('\u001b[?1049l');
  process.once('exit', restore);
  try {
    await mount().waitUntilExit();
  } finally {
    process.off('exit', restore);
    restore();
  }
}

export async function runExplorer(file: string, opts: Record<string, unknown>): Promise<number> {
  const top = opts.top === undefined ? EXPLORER_TOP : parseTop(opts.top);
  const scenario = loadScenario(file);
  const detected =
    opts.detect === true || scenario.hardware.detect
      ? (await detectGpus({ gpus: loadGpus() })).flatMap((d) => (d.gpuId ? [d.gpuId] : []))
      : [];
  const result = planFor(scenario, detected, top);
  const replan = (s: Scenario) => planFor(s, detected, top);
  const app = (w: { width: number; height: number }) => (
    <Explorer
      file={file}
      scenario={scenario}
      result={result}
      width={w.width}
      height={w.height}
      replan={replan}
      exportTo={exportTo}
    />
  );
  await fullScreen(() => {
    const inst = render(app(size()), { exitOnCtrlC: true, patchConsole: true });
    const onResize = () => inst.rerender(app(size()));
    process.stdout.on('resize', onResize);
    // Warm the planner's JIT while the user reads the first table, so the first knob edit re-ranks as fast
    // as later ones (a cold plan() takes 3-4x longer on V8).
    const warm = setTimeout(() => {
      for (let i = 0; i < JIT_WARMUP_PLANS; i++) replan(scenario);
    }, 100);
    warm.unref();
    const off = () => void process.stdout.off('resize', onResize);
    inst.waitUntilExit().then(off, off);
    return inst;
  });
  return 0;
}

export async function runCompareTui(
  results: readonly { file: string; result: PlanResult }[],
): Promise<number> {
  const snapshots = results.map((r) => ({ name: r.result.scenario.name, result: r.result }));
  await fullScreen(() =>
    render(<CompareApp snapshots={snapshots} width={size().width} />, { exitOnCtrlC: true }),
  );
  return 0;
}
