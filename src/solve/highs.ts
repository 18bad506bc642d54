/**
 * The only importer of `highs` (HiGHS compiled to wasm): MipModel → CPLEX LP text → MipResult.
 * The solve runs synchronously on the calling thread; HiGHS honours `time_limit` (docs/reference/ecosystem.md §4).
 */
import { setFlagsFromString } from 'node:v8';
import loadHighs, { type Highs } from 'highs';
import {
  modelVariables,
  noSolution,
  variableDomains,
  withSolution,
  type MipModel,
  type MipResult,
} from './model.js';

let loading: Promise<Highs> | undefined;

/**
 * Load the wasm once (≈40 ms); a failed load is retried on the next call. HiGHS runs on Liftoff, V8's
 * baseline wasm compiler, only (V8 reads the flag when the module compiles, so it is set first and stays
 * set; wasm compiled earlier, Ink's layout engine, keeps its tiers). With tier-up on, TurboFan recompiled the
 * solve's hot functions on V8's background threads, competing with the solve on two cores, and Node waits
 * for those tasks before a process exits (src/node_platform.cc NodePlatform::DrainTasks): a serving `plan`
 * sat 100-300 ms after its output (docs/performance.md). Both tiers run the same wasm semantics
 * (WebAssembly Core Specification: deterministic but for NaN bit patterns), so the answers are the same.
 */
function getHighs(): Promise<Highs> {
  if (!loading) setFlagsFromString('--liftoff-only');
  loading ??= loadHighs().catch((e: unknown) => {
    loading = undefined;
    throw e;
  });
  return loading;
}

/**
 * Start loading HiGHS now, without waiting: its WebAssembly compiles on V8's background threads while the
 * caller's synchronous search runs, so the first solve does not pay for it.
 */
export function prewarmHighs(): void {
  getHighs().catch(() => undefined); // a failed load is reported by the solve that needs it
}

/** Shortest exact decimal; JS exponent notation (1e-7, 1e+21) is valid LP-format. */
const num = (x: number) => String(x);

/** `3 x0 - 2 x1 + …`, wrapped every 8 terms; zero terms are dropped unless `keepZeros`. */
function linear(terms: [string, number][], keepZeros = false): string {
  const parts: string[] = [];
  for (const [x, a] of terms) {
    if (a === 0 && !keepZeros) continue;
    const body = `${num(Math.abs(a))} ${x}`;
    parts.push(a < 0 ? `- ${body}` : parts.length === 0 ? body : `+ ${body}`);
  }
  if (parts.length === 0) return `0 ${terms[0]?.[0] ?? 'x0'}`; // an all-zero row still needs a term
  const lines: string[] = [];
  for (let i = 0; i < parts.length; i += 8) lines.push(parts.slice(i, i + 8).join(' '));
  return lines.join('\n   ');
}

/** Internal names (x0…, r0…) avoid LP-format rules on identifiers (no leading digit or 'e', etc.). */
export interface LpTranslation {
  text: string;
  /** internal column name → model variable name */
  names: Map<string, string>;
}

/**
 * MipModel → CPLEX LP format. Equalities are written as `= rhs` and no ranged rows are used:
 * HiGHS mis-read `1 <= x + y <= 1` silently (docs/reference/ecosystem.md §4). Bounds go one per line.
 */
export function toLpText(model: MipModel): LpTranslation {
  const vars = modelVariables(model);
  const internal = new Map(vars.map((v, i) => [v, `x${i}`]));
  const names = new Map(vars.map((v, i) => [`x${i}`, v]));
  const col = (v: string) => internal.get(v)!;
  const out: string[] = [model.sense === 'max' ? 'Maximize' : 'Minimize'];
  // Every column appears in the objective (zeros kept) so HiGHS creates and reports it.
  const objTerms = vars.map((v): [string, number] => [col(v), model.objective[v] ?? 0]);
  out.push(` obj: ${linear(objTerms, true)}`, 'Subject To');
  model.constraints.forEach((c, k) => {
    out.push(
      ` r${k}: ${linear(Object.entries(c.terms).map(([v, a]) => [col(v), a]))} ${c.op} ${num(c.rhs)}`,
    );
  });
  const bounds: string[] = [];
  const generals: string[] = [];
  const binaries: string[] = [];
  for (const [v, d] of variableDomains(model)) {
    const x = col(v);
    // A binary with user bounds is written as a bounded general, so no section can reset its bounds.
    if (d.binary && !d.bounded) {
      binaries.push(x);
      continue;
    }
    if (d.integer) generals.push(x);
    if (d.lo !== 0) bounds.push(` ${x} >= ${num(d.lo)}`);
    if (Number.isFinite(d.hi)) bounds.push(` ${x} <= ${num(d.hi)}`);
  }
  if (bounds.length > 0) out.push('Bounds', ...bounds);
  if (generals.length > 0) out.push('General', ` ${generals.join(' ')}`);
  if (binaries.length > 0) out.push('Binary', ` ${binaries.join(' ')}`);
  out.push('End', '');
  return { text: out.join('\n'), names };
}

type HighsSolution = ReturnType<Highs['solve']>;

function primalValues(sol: HighsSolution, names: Map<string, string>): Record<string, number> {
  const raw: Record<string, number> = {};
  for (const [x, col] of Object.entries(sol.Columns)) {
    const v = names.get(x);
    const p = (col as { Primal?: unknown }).Primal;
    if (v !== undefined && typeof p === 'number') raw[v] = p;
  }
  return raw;
}

const LIMIT_STATUSES = new Set([
  'Time limit reached',
  'Iteration limit reached',
  'Bound on objective reached',
  'Target for objective reached',
  'Interrupted by user',
]);

/**
 * Solve with HiGHS. Status strings map directly (Optimal, Infeasible, Unbounded); a limit with a
 * verified incumbent → feasible, without one → timeout. "Primal infeasible or unbounded" (presolve
 * cannot tell; seen on unbounded integer models) is retried once with presolve off. Every returned
 * solution is re-checked against the model's rows. Expects a validated model (see parseMipModel).
 */
export async function solveWithHighs(
  model: MipModel,
  opts: { timeLimitMs: number; nodeLimit?: number },
): Promise<MipResult> {
  const t0 = performance.now();
  const elapsed = () => performance.now() - t0;
  let highs: Highs;
  try {
    highs = await getHighs();
  } catch (e) {
    return noSolution('error', 'highs', elapsed(), `could not load HiGHS: ${(e as Error).message}`);
  }
  const { text, names } = toLpText(model);
  const solve = (presolve: 'choose' | 'off'): HighsSolution =>
    highs.solve(text, {
      output_flag: false,
      mip_rel_gap: 0, // default 1e-4 would call a solution up to 0.01 % worse "Optimal"
      presolve,
      time_limit: Math.max(opts.timeLimitMs - elapsed(), 1) / 1000,
      ...(opts.nodeLimit !== undefined ? { mip_max_nodes: opts.nodeLimit } : {}),
    });
  let sol: HighsSolution;
  try {
    sol = solve('choose');
    if (sol.Status === 'Primal infeasible or unbounded') sol = solve('off');
  } catch (e) {
    return noSolution('error', 'highs', elapsed(), `HiGHS: ${(e as Error).message}`);
  }
  const ms = elapsed();
  const status: string = sol.Status;
  if (status === 'Optimal')
    return withSolution(model, 'optimal', primalValues(sol, names), 'highs', ms);
  if (status === 'Infeasible') return noSolution('infeasible', 'highs', ms);
  if (status === 'Unbounded') return noSolution('unbounded', 'highs', ms);
  if (LIMIT_STATUSES.has(status)) {
    const raw = primalValues(sol, names);
    const found = Object.keys(raw).length > 0 && Number.isFinite(sol.ObjectiveValue);
    const incumbent = found
      ? withSolution(model, 'feasible', raw, 'highs', ms, `HiGHS: ${status}`)
      : undefined;
    if (incumbent && incumbent.status === 'feasible') return incumbent;
    const kind = status === 'Time limit reached' ? 'timeout' : 'error';
    return noSolution(kind, 'highs', ms, `HiGHS: ${status}, no verified incumbent`);
  }
  return noSolution('error', 'highs', ms, `HiGHS status: ${status}`);
}
