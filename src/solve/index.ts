/** Entry point for the planner's integer programs: validate, pick a backend, return a verified result. */
import { solveWithJslp } from './lp.js';
import { parseMipModel, type MipModel, type MipResult } from './model.js';

export {
  MipModelSchema,
  MipModelError,
  parseMipModel,
  checkSolution,
  type MipModel,
  type MipConstraint,
  type MipResult,
  type MipStatus,
  type MipBackend,
} from './model.js';
export { closeJslpWorkers } from './lp.js';

/** Start loading HiGHS for a solve that is coming (a serving fleet): see highs.ts prewarmHighs. */
export function prewarmSolver(): void {
  void highs().then((m) => m.prewarmHighs());
}

export interface SolveMipOptions {
  /**
   * A safety net, not a budget (default 20,000 ms): a solve that ends inside it gives the same answer on an idle
   * and on a loaded machine. HiGHS is bounded by `nodeLimit` instead; in auto mode jsLP and HiGHS share it.
   */
  timeLimitMs?: number;
  /**
   * 'auto' (default): jsLP first, HiGHS when jsLP times out, fails, or says infeasible. 'highs' for models
   * whose answer must not depend on the machine's load (jsLP's only limit is wall-clock).
   */
  backend?: 'auto' | 'jslp' | 'highs';
  /** jsLP's share of the safety net in auto mode (default min(5000, timeLimitMs / 4)). */
  jslpTimeLimitMs?: number;
  /**
   * HiGHS branch-and-bound node limit (`mip_max_nodes`, default 100,000): a deterministic bound on work, so the
   * incumbent it returns is the same on any machine (HiGHS is deterministic for one model and one option set).
   */
  nodeLimit?: number;
  /**
   * The model was built by vramplan's own code (core/hardware/power.ts), so the schema check is skipped: it
   * costs more than solving the planner's small models. Every solution is still re-checked row by row.
   */
  trusted?: boolean;
}

// HiGHS (a WebAssembly build) loads on first use: most plans are solved by jsLP or need no solver.
const highs = () => import('./highs.js');

/** HiGHS always gets at least this much, even when jsLP used up the budget. */
const MIN_HIGHS_MS = 250;

/**
 * Defaults sized from docs/reference/ecosystem.md §4: the planner's circuit models solve in jsLP in 0.4–99 ms
 * and its cover models in HiGHS in 48–504 ms on 2 cores, so a 20 s net is 40× the slowest measured solve.
 */
const DEFAULT_SAFETY_MS = 20_000;
const DEFAULT_NODE_LIMIT = 100_000;

/**
 * Solve a MIP. The model is validated first (throws MipModelError on a bad model). Results are
 * deterministic: values list every variable with sorted keys, integers rounded, and the objective
 * recomputed from them; every solution was re-checked against the model's rows.
 * Ties may resolve differently per backend (docs/reference/ecosystem.md §3a), so rank on the objective, not the values.
 */
export async function solveMip(input: MipModel, options: SolveMipOptions = {}): Promise<MipResult> {
  const model = options.trusted ? input : parseMipModel(input);
  const timeLimitMs = options.timeLimitMs ?? DEFAULT_SAFETY_MS;
  if (!(timeLimitMs > 0)) throw new RangeError(`timeLimitMs: expected > 0, got ${timeLimitMs}`);
  const nodeLimit = options.nodeLimit ?? DEFAULT_NODE_LIMIT;
  const backend = options.backend ?? 'auto';
  if (backend === 'jslp') return solveWithJslp(model, { timeLimitMs });
  if (backend === 'highs') return (await highs()).solveWithHighs(model, { timeLimitMs, nodeLimit });

  const t0 = performance.now();
  const jslpMs = Math.min(options.jslpTimeLimitMs ?? Math.min(5000, timeLimitMs / 4), timeLimitMs);
  const first = await solveWithJslp(model, { timeLimitMs: jslpMs });
  // jsLP proves infeasibility slowly or not at all, so 'infeasible' is confirmed by HiGHS (§4).
  if (first.status === 'optimal' || first.status === 'unbounded') return first;
  const remaining = Math.max(timeLimitMs - (performance.now() - t0), MIN_HIGHS_MS);
  const second = await (await highs()).solveWithHighs(model, { timeLimitMs: remaining, nodeLimit });
  if (first.status === 'infeasible' && (second.status === 'error' || second.status === 'timeout')) {
    // jsLP's feasible:false was right in every case measured (§4); keep it when HiGHS cannot confirm.
    return {
      ...first,
      elapsedMs: performance.now() - t0,
      message: `unconfirmed; highs: ${second.status}`,
    };
  }
  const note = `jslp: ${first.status}${first.message ? ` (${first.message})` : ''}; fell back to highs`;
  return {
    ...second,
    elapsedMs: performance.now() - t0,
    message: second.message ? `${note}; ${second.message}` : note,
  };
}
