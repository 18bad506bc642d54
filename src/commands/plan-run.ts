/** The plan command's body. Exit 0: plans found; 2: nothing fits; 1: bad input (thrown UserError). */
import { extname, resolve as resolvePath } from 'node:path';
import type { PlanResult } from '../core/plan/index.js';
import { badValue } from '../io/errors.js';
import { planScenarioFile } from '../io/plan-scenario.js';
import { stderrProgress } from '../io/progress.js';
import { writeAtomic } from '../io/write-atomic.js';
import type { ExportFormat } from '../ui/export-plan.js';
import { planCountText } from '../ui/plan-count.js';
import { planJson } from '../ui/plan-json.js';
import { openTui, wantsTui } from './explore.js';
import { parseTop } from './top.js';

/** Load, resolve and plan one scenario file (the one pipeline, io/plan-scenario.ts). */
export async function planScenario(
  file: string,
  opts: { top?: number; detect?: boolean } = {},
): Promise<PlanResult> {
  const progress = stderrProgress(file);
  try {
    return await planScenarioFile(file, { ...opts, onProgress: progress?.update });
  } finally {
    progress?.done();
  }
}

export function exportFormatOf(file: string): ExportFormat {
  const ext = extname(file).slice(1).toLowerCase();
  if (ext === 'json' || ext === 'csv' || ext === 'md' || ext === 'svg') return ext;
  throw badValue('--export', file, 'a file name ending in .json, .csv, .md or .svg');
}

/** What an export holds: its plans, and the count they come from (ui/plan-count.ts). */
function exportedCount(r: PlanResult): string {
  if (r.plans.length === 0) return 'no plan fits; run without --export for the nearest fixes';
  return `${r.plans.length.toLocaleString('en-US')} plans of ${planCountText(r)}`;
}

export async function runPlan(file: string, opts: Record<string, unknown>): Promise<number> {
  if (wantsTui(opts)) return openTui(file, opts);
  const top = parseTop(opts.top);
  const format = typeof opts.export === 'string' ? exportFormatOf(opts.export) : null;
  const result = await planScenario(file, { top, detect: opts.detect === true });
  // Renderers load when used: `--json` needs neither the text report nor the exporters.
  if (format && typeof opts.export === 'string') {
    const { exportPlan } = await import('../ui/export-plan.js');
    writeAtomic(opts.export, exportPlan(result, format), { force: opts.force === true });
    const line = `wrote ${resolvePath(opts.export)} (${exportedCount(result)}, ${format})\n`;
    // As `launch` does: one line saying what was written, not the report. With --json the line goes to
    // stderr, so that stdout stays one JSON document.
    if (opts.json !== true) {
      process.stdout.write(line);
      return result.fits ? 0 : 2;
    }
    process.stderr.write(line);
  }
  process.stdout.write(
    opts.json === true
      ? `${JSON.stringify(planJson(result), null, 2)}\n`
      : `${(await import('../ui/plan-text.js')).renderPlanText(result)}\n`,
  );
  return result.fits ? 0 : 2;
}
