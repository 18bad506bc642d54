/** Mount the explorer (or the compare view) full-screen; plain output paths never import this module. */
import { basename, extname, resolve } from 'node:path';
import { render } from 'ink';
import type { Plan, PlanResult } from '../core/plan/index.js';
import { UserError } from '../io/errors.js';
import { modelRepo } from '../core/model/arch.js';
import { loadScenario } from '../io/load-scenario.js';
import { PlanClient } from '../io/plan-client.js';
import {
  detectedFor,
  planInputOf,
  planScenarioObject,
  scenarioError,
} from '../io/plan-scenario.js';
import { stderrProgress } from '../io/progress.js';
import { writeAtomic } from '../io/write-atomic.js';
import { writeLaunchFolder } from '../io/write-dir-atomic.js';
import type { Scenario } from '../schema/scenario.js';
import { exportPlan } from '../ui/export-plan.js';
import { CompareApp } from '../ui/tui/CompareApp.js';
import { Explorer } from '../ui/tui/Explorer.js';
import { haveCheckpointsOf, launchFolder, launchInputOfPlan } from './launch-run.js';
import { plannedTokens } from '../core/launch/common.js';
import { parseTop } from './top.js';

/** Plans ranked for the explorer's table when --top is not given (it only draws the visible window). */
export const EXPLORER_TOP = 1000;

/** What the explorer opens on: the scenario, its first plan (the same pipeline as `plan`), and a re-planner. */
export interface ExplorerSession {
  file: string;
  scenario: Scenario;
  result: PlanResult;
  /** GPU ids nvidia-smi found (owned hardware beside the scenario's). */
  detected: readonly string[];
  /** Re-plans edits in a worker thread; close() when the explorer exits. */
  planner: PlanClient;
}

/** What commands/explore.ts openTui starts before this module loads: the parsed scenario and the planner. */
export interface Started {
  scenario: Scenario;
  planner: PlanClient;
}

export async function openExplorer(
  file: string,
  opts: Record<string, unknown>,
  started?: Started,
): Promise<ExplorerSession> {
  const top = opts.top === undefined ? EXPLORER_TOP : parseTop(opts.top);
  const scenario = started?.scenario ?? loadScenario(file);
  const planner = started?.planner ?? new PlanClient();
  let progress: ReturnType<typeof stderrProgress> | undefined;
  try {
    const detected = await detectedFor(scenario, opts.detect === true);
    // Warm the workers (started by the caller, or now) while the first plan runs here, with a progress
    // line on stderr.
    planner.begin({ file, top, detected, warmWith: scenario });
    progress = stderrProgress(file);
    const result = await planScenarioObject(file, scenario, {
      top,
      detected,
      onProgress: progress?.update,
    });
    return { file, scenario, result, detected, planner };
  } catch (e) {
    planner.close(); // bad input: the workers started for this session go too
    throw e;
  } finally {
    progress?.done();
  }
}

/**
 * `l` in the explorer: the selected plan's launch folder, `launch-<rank>` in the working folder (what
 * `vramplan launch <scenario> --plan N` writes). An existing folder is refused. Returns the folder.
 */
export function launchTo(file: string, plan: Plan, scenario: Scenario, dir = '.'): string {
  const arch = planInputOf(file, scenario).arch;
  const tokens = plannedTokens(scenario.job);
  const input = launchInputOfPlan(
    plan,
    arch,
    modelRepo(arch) ?? scenario.model,
    undefined,
    tokens,
    haveCheckpointsOf(scenario),
  );
  const { files } = launchFolder(input);
  return writeLaunchFolder(files, resolve(dir, `launch-${plan.rank}`)).dir;
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

export async function runExplorer(
  file: string,
  opts: Record<string, unknown>,
  started?: Started,
): Promise<number> {
  const session = await openExplorer(file, opts, started);
  let code = session.result.fits ? 0 : 2;
  let summary = '';
  const app = (w: { width: number; height: number }) => (
    <Explorer
      file={file}
      scenario={session.scenario}
      result={session.result}
      width={w.width}
      height={w.height}
      replan={(s, onProgress) => session.planner.plan(s, onProgress)}
      check={(s) => scenarioError(file, s, session.detected)}
      exportTo={exportTo}
      launchTo={(plan, scenario) => launchTo(file, plan, scenario)}
      onQuit={(c, text) => {
        code = c;
        summary = text;
      }}
      onKey={() => session.planner.hold()}
      onDrawn={() => session.planner.drawn()}
    />
  );
  try {
    await fullScreen(() => {
      // Ctrl-C is a key in raw mode: the explorer quits with 130 itself (exitOnCtrlC would exit 0).
      const inst = render(app(size()), { exitOnCtrlC: false, patchConsole: true });
      const onResize = () => inst.rerender(app(size()));
      process.stdout.on('resize', onResize);
      const off = () => void process.stdout.off('resize', onResize);
      inst.waitUntilExit().then(off, off);
      return inst;
    });
  } finally {
    session.planner.close();
  }
  // The alternate screen is gone: leave the selected plan on the terminal, not an empty screen.
  if (summary) process.stdout.write(summary);
  return code;
}

export async function runCompareTui(
  results: readonly { file: string; result: PlanResult }[],
): Promise<number> {
  // Each side is titled with its scenario's name; two scenarios of one name add their file's.
  const names = results.map((r) => r.result.scenario.name);
  const snapshots = results.map((r, i) => ({
    name:
      names.indexOf(names[i]!) === names.lastIndexOf(names[i]!)
        ? names[i]!
        : `${names[i]!} (${basename(r.file)})`,
    result: r.result,
    job: loadScenario(r.file).job,
  }));
  await fullScreen(() =>
    render(<CompareApp snapshots={snapshots} width={size().width} height={size().height} />, {
      exitOnCtrlC: true,
    }),
  );
  return 0;
}
