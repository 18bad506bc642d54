/**
 * The terminal UI (the explorer, the compare view), entered from explore.ts and compare-run.ts. The CLI
 * bundle (dist/vramplan.cjs) leaves this module and everything it imports to the ES modules tsc writes
 * (dist/commands/tui.js): Ink is an ES module with top-level await, which a CommonJS bundle cannot require.
 * The modules here are their own copies, so the UI's errors are reported here (the bundle's error policy
 * does not know these copies' error classes) and the launchers it writes with are loaded here.
 */
import type { PlanResult } from '../core/plan/index.js';
import { reportError } from './errors.js';

/**
 * Run the explorer. Once the scenario has parsed, its planner workers start before the UI's modules load
 * (Ink, React, the views), so that their own module loading is done by the first frame instead of
 * slowing the first keys.
 */
export async function openTui(file: string, opts: Record<string, unknown>): Promise<number> {
  try {
    const { loadScenario } = await import('../io/load-scenario.js');
    const scenario = loadScenario(file);
    const { PlanClient } = await import('../io/plan-client.js');
    const planner = new PlanClient();
    const { runExplorer } = await import('./explore-run.js');
    // The explorer writes launch folders from the main thread (the worker plans with its own copy).
    const { loadLaunchers } = await import('../core/engines/registry.js');
    await loadLaunchers();
    return await runExplorer(file, opts, { scenario, planner });
  } catch (err) {
    return reportError(err);
  }
}

/** The compare view of scenarios already planned. */
export async function runCompareTui(
  results: { file: string; result: PlanResult }[],
): Promise<number> {
  try {
    return await (await import('./explore-run.js')).runCompareTui(results);
  } catch (err) {
    return reportError(err);
  }
}
