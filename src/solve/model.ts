/**
 * Backend-neutral mixed-integer model and result. Every model is validated with zod before a
 * solver sees it: javascript-lp-solver silently answers "unbounded" for a typo'd model (docs/reference/ecosystem.md §4).
 * The one exception is the circuit model vramplan builds itself (solveMip's `trusted`), whose builder is
 * tested against this schema.
 */
import { z } from 'zod';

const Name = z.string().min(1, 'names must be non-empty');
/** zod 4's z.number() already rejects NaN and ±Infinity. */
const Coef = z.number();

export const MipConstraintSchema = z.strictObject({
  name: Name,
  terms: z.record(Name, Coef),
  op: z.enum(['<=', '>=', '=']),
  rhs: Coef,
});

export const MipBoundSchema = z.strictObject({ lo: Coef.optional(), hi: Coef.optional() });

export const MipModelSchema = z
  .strictObject({
    sense: z.enum(['max', 'min']),
    objective: z.record(Name, Coef),
    constraints: z.array(MipConstraintSchema),
    integers: z.array(Name),
    binaries: z.array(Name).optional(),
    bounds: z.record(Name, MipBoundSchema).optional(),
  })
  .superRefine((m, ctx) => {
    const known = new Set(Object.keys(m.objective));
    const rowNames = new Set<string>();
    m.constraints.forEach((c, i) => {
      for (const v of Object.keys(c.terms)) known.add(v);
      if (rowNames.has(c.name)) {
        ctx.addIssue({
          code: 'custom',
          path: ['constraints', i, 'name'],
          message: `duplicate constraint name '${c.name}'`,
        });
      }
      rowNames.add(c.name);
    });
    if (known.size === 0)
      ctx.addIssue({ code: 'custom', path: [], message: 'model has no variables' });
    // A variable named only in integers/binaries/bounds is almost surely a typo.
    const mustExist = (list: readonly string[], key: 'integers' | 'binaries' | 'bounds') =>
      list.forEach((v, i) => {
        if (!known.has(v)) {
          const path = key === 'bounds' ? [key, v] : [key, i];
          ctx.addIssue({
            code: 'custom',
            path,
            message: `unknown variable '${v}' (not in objective or any constraint)`,
          });
        }
      });
    mustExist(m.integers, 'integers');
    mustExist(m.binaries ?? [], 'binaries');
    mustExist(Object.keys(m.bounds ?? {}), 'bounds');
    for (const [v, b] of Object.entries(m.bounds ?? {})) {
      if (b.lo !== undefined && b.hi !== undefined && b.lo > b.hi) {
        ctx.addIssue({ code: 'custom', path: ['bounds', v], message: `lo ${b.lo} > hi ${b.hi}` });
      }
    }
  });

/** A linear (mixed-)integer program. Variables are ≥ 0 unless `bounds` says otherwise. */
export type MipModel = z.infer<typeof MipModelSchema>;
export type MipConstraint = z.infer<typeof MipConstraintSchema>;

export type MipStatus = 'optimal' | 'feasible' | 'infeasible' | 'unbounded' | 'timeout' | 'error';
export type MipBackend = 'jslp' | 'highs';

/** Solver outcome. `values` lists every variable (sorted, integers rounded) when a solution is returned, else `{}`. */
export interface MipResult {
  status: MipStatus;
  objective: number | null;
  values: Record<string, number>;
  backend: MipBackend;
  elapsedMs: number;
  message?: string;
}

/** Thrown for a model that fails the schema; the planner built it, so this is a bug, not a user error. */
export class MipModelError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MipModelError';
  }
}

/** Validate an untrusted model; throws MipModelError with one line per issue. */
export function parseMipModel(input: unknown): MipModel {
  const parsed = MipModelSchema.safeParse(input);
  if (!parsed.success)
    throw new MipModelError(`invalid MIP model:\n${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/** All variable names, sorted, so translation does not depend on key order. */
export function modelVariables(model: MipModel): string[] {
  const names = new Set(Object.keys(model.objective));
  for (const c of model.constraints) for (const v of Object.keys(c.terms)) names.add(v);
  return [...names].sort();
}

export interface VarDomain {
  lo: number;
  hi: number;
  integer: boolean;
  binary: boolean;
  /** The model gave this variable explicit bounds. */
  bounded: boolean;
}

/** Effective domain of every variable: default [0, ∞); binaries are integers within [0, 1]. */
export function variableDomains(model: MipModel): Map<string, VarDomain> {
  const ints = new Set(model.integers);
  const bins = new Set(model.binaries ?? []);
  const out = new Map<string, VarDomain>();
  for (const v of modelVariables(model)) {
    const b = model.bounds?.[v];
    const binary = bins.has(v);
    let lo = b?.lo ?? 0;
    let hi = b?.hi ?? Number.POSITIVE_INFINITY;
    if (binary) {
      lo = Math.max(lo, 0);
      hi = Math.min(hi, 1);
    }
    out.set(v, { lo, hi, integer: binary || ints.has(v), binary, bounded: b !== undefined });
  }
  return out;
}

const TOL = 1e-6;
const near = (x: number, scale: number) => Math.abs(x) <= TOL * Math.max(1, scale);

/** Σ coef·value over a term map; also returns Σ|coef·value| as the scale for relative tolerance. */
function evaluate(
  terms: Record<string, number>,
  values: Record<string, number>,
): { sum: number; scale: number } {
  let sum = 0;
  let scale = 0;
  for (const [v, a] of Object.entries(terms)) {
    const t = a * (values[v] ?? 0);
    sum += t;
    scale += Math.abs(t);
  }
  return { sum, scale };
}

/**
 * Canonicalise raw solver values (every variable, sorted keys, integers rounded, -0 → 0),
 * recompute the objective from them, and re-check integrality, bounds and every row of the
 * original model (tolerance 1e-6 relative). `problems` is empty when the solution is valid.
 */
export function checkSolution(
  model: MipModel,
  raw: Record<string, number>,
): { values: Record<string, number>; objective: number; problems: string[] } {
  const problems: string[] = [];
  const values: Record<string, number> = {};
  for (const [v, d] of variableDomains(model)) {
    let x = raw[v] ?? 0;
    if (!Number.isFinite(x)) {
      problems.push(`${v} = ${x}`);
      x = 0;
    }
    if (d.integer) {
      const r = Math.round(x);
      if (!near(x - r, Math.abs(x))) problems.push(`${v} = ${x} is not integral`);
      x = r;
    }
    x = x === 0 ? 0 : x; // drop -0 so JSON and snapshots are stable
    if (x < d.lo && !near(d.lo - x, Math.abs(d.lo))) problems.push(`${v} = ${x} < lo ${d.lo}`);
    if (x > d.hi && !near(x - d.hi, Math.abs(d.hi))) problems.push(`${v} = ${x} > hi ${d.hi}`);
    values[v] = x;
  }
  for (const c of model.constraints) {
    const { sum, scale } = evaluate(c.terms, values);
    const slack =
      c.op === '<=' ? c.rhs - sum : c.op === '>=' ? sum - c.rhs : -Math.abs(sum - c.rhs);
    if (slack < 0 && !near(slack, Math.max(scale, Math.abs(c.rhs)))) {
      problems.push(`row ${c.name}: ${sum} ${c.op} ${c.rhs} violated`);
    }
  }
  const objective = evaluate(model.objective, values).sum;
  return { values, objective: objective === 0 ? 0 : objective, problems };
}

/** A result with no solution attached. */
export function noSolution(
  status: MipStatus,
  backend: MipBackend,
  elapsedMs: number,
  message?: string,
): MipResult {
  return {
    status,
    objective: null,
    values: {},
    backend,
    elapsedMs,
    ...(message === undefined ? {} : { message }),
  };
}

/** Verify raw values and build the result: a solution that fails verification becomes 'error'. */
export function withSolution(
  model: MipModel,
  status: 'optimal' | 'feasible',
  raw: Record<string, number>,
  backend: MipBackend,
  elapsedMs: number,
  message?: string,
): MipResult {
  const { values, objective, problems } = checkSolution(model, raw);
  if (problems.length > 0) {
    const shown =
      problems.slice(0, 3).join('; ') +
      (problems.length > 3 ? `; +${problems.length - 3} more` : '');
    return noSolution(
      'error',
      backend,
      elapsedMs,
      `${backend} returned an invalid solution: ${shown}`,
    );
  }
  return {
    status,
    objective,
    values,
    backend,
    elapsedMs,
    ...(message === undefined ? {} : { message }),
  };
}
