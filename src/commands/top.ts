/** The `--top N` option shared by plan, compare and explore. */
import { badValue } from '../io/errors.js';

export function parseTop(v: unknown): number {
  if (v === undefined) return 10;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 1000)
    throw badValue('--top', v, 'an integer from 1 to 1000');
  return n;
}
