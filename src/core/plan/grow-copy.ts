/**
 * A copy of `o` made key by key, in `o`'s key order, for a copy that gains keys afterwards. V8 (Node 20)
 * copies an object spread's keys fast, but each key added to that copy later (or written in the spread
 * literal beside the copied ones) costs about a microsecond, some 30 times a key added to an object built
 * this way; the planner adds keys to thousands of configurations (the objective's, Unsloth's tiled MLP).
 * A copy that gains no key is best made by a spread.
 */
export function growableCopy<T extends object>(o: T): T {
  const out: Record<string, unknown> = {};
  for (const k in o) out[k] = o[k];
  return out as T;
}
