/**
 * The only importer of javascript-lp-solver (STYLE.md example 8): MipModel ↔ the solver's JSON model,
 * solved in a worker_thread with a hard wall-clock deadline.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { ConstraintBound, Model as JslpModel } from 'javascript-lp-solver';
import {
  modelVariables,
  noSolution,
  variableDomains,
  withSolution,
  type MipModel,
  type MipResult,
} from './model.js';

/**
 * The worker is an inline CommonJS script (eval: true), so it runs the same from src/ under
 * vitest/tsx and from dist/ with no copy step. It loads the solver from a path resolved here,
 * not from the worker's cwd. jsLP has debug console.log calls; the worker keeps them quiet.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
for (const k of ['log', 'info', 'warn', 'error', 'debug', 'trace']) console[k] = () => {};
const lib = require(workerData.solverPath);
const solver = lib.default || lib;
parentPort.on('message', ({ id, model }) => {
  let reply;
  try { reply = { id, result: solver.Solve(model) }; }
  catch (e) { reply = { id, error: String((e && e.message) || e) }; }
  parentPort.postMessage(reply);
});
`;

let solverPath: string | undefined;
const idle: Worker[] = [];
const MAX_IDLE = 2;
let nextId = 0;

function spawn(): Worker {
  solverPath ??= createRequire(import.meta.url).resolve('javascript-lp-solver');
  const w = new Worker(WORKER_SOURCE, { eval: true, workerData: { solverPath } });
  w.unref(); // an idle worker must not keep the CLI alive; a pending deadline timer does while solving
  w.once('exit', () => {
    const i = idle.indexOf(w);
    if (i >= 0) idle.splice(i, 1);
  });
  return w;
}

type Outcome =
  { kind: 'result'; result: unknown } | { kind: 'error'; message: string } | { kind: 'timeout' };

/** Solve in a pooled worker; on deadline expiry the worker is terminated and the next call gets a fresh one. */
function runInWorker(model: JslpModel, deadlineMs: number): Promise<Outcome> {
  const worker = idle.pop() ?? spawn();
  const id = ++nextId;
  return new Promise((resolve) => {
    const finish = (outcome: Outcome, reusable: boolean) => {
      clearTimeout(timer);
      worker.off('message', onMessage).off('error', onError).off('exit', onExit);
      if (reusable && idle.length < MAX_IDLE) idle.push(worker);
      else void worker.terminate();
      resolve(outcome);
    };
    // jsLP's own `timeout` is only checked between B&B nodes; one simplex call can loop for minutes (§4).
    const timer = setTimeout(() => finish({ kind: 'timeout' }, false), deadlineMs);
    const onMessage = (m: { id: number; result?: unknown; error?: string }) => {
      if (m.id !== id) return;
      if (m.error !== undefined) finish({ kind: 'error', message: m.error }, true);
      else finish({ kind: 'result', result: m.result }, true);
    };
    const onError = (e: Error) =>
      finish({ kind: 'error', message: `worker failed: ${e.message}` }, false);
    const onExit = (code: number) =>
      finish({ kind: 'error', message: `worker exited with code ${code}` }, false);
    worker.on('message', onMessage).on('error', onError).on('exit', onExit);
    worker.postMessage({ id, model });
  });
}

/** Terminate idle workers (tests, or a CLI that wants to exit promptly). */
export async function closeJslpWorkers(): Promise<void> {
  await Promise.all(idle.splice(0).map((w) => w.terminate()));
}

/** Internal names keep user names from clashing with result keys such as `feasible` or `result`. */
export interface JslpTranslation {
  model: JslpModel;
  /** internal name → model variable name */
  names: Map<string, string>;
}

const OBJ = 'obj';

/** MipModel → javascript-lp-solver JSON (optimize/opType/constraints/variables/ints). */
export function toJslpModel(model: MipModel, timeoutMs?: number): JslpTranslation {
  const vars = modelVariables(model);
  const internal = new Map(vars.map((v, i) => [v, `v${i}`]));
  const names = new Map(vars.map((v, i) => [`v${i}`, v]));
  const variables: Record<string, Record<string, number>> = {};
  for (const v of vars) variables[internal.get(v)!] = {};
  const constraints: Record<string, ConstraintBound> = {};
  const ints: Record<string, 1> = {};
  const unrestricted: Record<string, 1> = {};

  for (const [v, a] of Object.entries(model.objective))
    if (a !== 0) variables[internal.get(v)!]![OBJ] = a;
  model.constraints.forEach((c, k) => {
    const row = `r${k}`;
    constraints[row] =
      c.op === '<=' ? { max: c.rhs } : c.op === '>=' ? { min: c.rhs } : { equal: c.rhs };
    for (const [v, a] of Object.entries(c.terms))
      if (a !== 0) variables[internal.get(v)!]![row] = a;
  });
  // Bounds become single-variable rows; jsLP variables are ≥ 0 unless marked unrestricted.
  for (const [v, d] of variableDomains(model)) {
    const iv = internal.get(v)!;
    if (d.integer) ints[iv] = 1;
    if (d.lo < 0) unrestricted[iv] = 1;
    if (d.lo !== 0) {
      constraints[`l_${iv}`] = { min: d.lo };
      variables[iv]![`l_${iv}`] = 1;
    }
    if (Number.isFinite(d.hi)) {
      constraints[`u_${iv}`] = { max: d.hi };
      variables[iv]![`u_${iv}`] = 1;
    }
  }
  const out: JslpModel = { optimize: OBJ, opType: model.sense, constraints, variables, ints };
  if (Object.keys(unrestricted).length > 0) out.unrestricted = unrestricted;
  if (timeoutMs !== undefined) out.options = { timeout: timeoutMs };
  return { model: out, names };
}

/** jsLP 1.0.3's simplified result; `result` is null when unbounded although typed number (§3 friction 2). */
interface JslpSolveResult {
  feasible?: boolean;
  bounded?: boolean;
  result?: number | null;
  [key: string]: unknown;
}

/**
 * Solve with javascript-lp-solver under a hard deadline. Statuses follow docs/reference/ecosystem.md §4:
 * feasible:false → infeasible; bounded:false or result null → unbounded; elapsed ≥ limit → timeout
 * (a time-limited jsLP answer looks optimal but is not proven); a solution that fails the
 * integrality/row re-check → error. Expects a validated model (see parseMipModel).
 */
export async function solveWithJslp(
  model: MipModel,
  opts: { timeLimitMs: number },
): Promise<MipResult> {
  const limit = opts.timeLimitMs;
  const t0 = performance.now();
  const { model: jsModel, names } = toJslpModel(model, limit);
  const out = await runInWorker(jsModel, limit);
  const elapsedMs = performance.now() - t0;
  if (out.kind === 'timeout') {
    return noSolution(
      'timeout',
      'jslp',
      elapsedMs,
      `javascript-lp-solver passed its ${limit} ms deadline; worker terminated`,
    );
  }
  if (out.kind === 'error')
    return noSolution('error', 'jslp', elapsedMs, `javascript-lp-solver: ${out.message}`);
  if (elapsedMs >= limit) {
    return noSolution(
      'timeout',
      'jslp',
      elapsedMs,
      `javascript-lp-solver stopped at its ${limit} ms limit; result not proven`,
    );
  }
  const r = out.result as JslpSolveResult;
  if (r.feasible === false) return noSolution('infeasible', 'jslp', elapsedMs);
  if (r.bounded === false || r.result === null || r.result === undefined) {
    return noSolution('unbounded', 'jslp', elapsedMs);
  }
  const raw: Record<string, number> = {};
  for (const [iv, v] of names) {
    const x = r[iv];
    if (typeof x === 'number') raw[v] = x; // zero-valued variables are omitted by jsLP
  }
  return withSolution(model, 'optimal', raw, 'jslp', elapsedMs);
}
