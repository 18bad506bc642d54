/** Comparing configurations' options field by field (plain data: primitives and arrays of primitives). */
import type { EstimateOptions } from '../../schema/estimate.js';

const sameItems = (a: readonly unknown[], b: readonly unknown[]): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/** Like option values: the same primitive, or arrays with the same items in order. */
const likeValues = (x: unknown, y: unknown): boolean =>
  x === y || (Array.isArray(x) && Array.isArray(y) && sameItems(x, y));

/** Whether `a` and `b` have the same keys with like values (arrays element by element) but for `skip`. */
export function alikeBut(
  a: EstimateOptions,
  b: EstimateOptions,
  skip: ReadonlySet<string>,
): boolean {
  const ra = a as unknown as Record<string, unknown>;
  const rb = b as unknown as Record<string, unknown>;
  let keys = 0;
  for (const k in ra) {
    if (skip.has(k)) continue;
    if (!(k in rb) || !likeValues(ra[k], rb[k])) return false;
    keys++;
  }
  for (const k in rb) if (!skip.has(k)) keys--;
  return keys === 0;
}

/**
 * Whether `a` and `b` agree on `keys` (both lack a key, or both hold like values). For options whose other keys
 * are known alike (samePolicyOptions: one engine class), it answers as alikeBut with every other key skipped.
 */
export function alikeOn(a: EstimateOptions, b: EstimateOptions, keys: readonly string[]): boolean {
  const ra = a as unknown as Record<string, unknown>;
  const rb = b as unknown as Record<string, unknown>;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const has = k in ra;
    if (has !== k in rb) return false;
    if (has && !likeValues(ra[k], rb[k])) return false;
  }
  return true;
}
