/** "Did you mean …?" for mistyped ids and keys: the nearest names by edit distance. */

/** Optimal-string-alignment distance (Levenshtein plus adjacent transpositions), case-insensitive. */
export function editDistance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  const d: number[][] = Array.from({ length: s.length + 1 }, (_, i) =>
    Array.from({ length: t.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= s.length; i++)
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1])
        v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  return d[s.length]![t.length]!;
}

/**
 * Up to `max` candidates within a third of the input's length (at least 2 edits) of `input`, nearest
 * first; names that contain the input (or that it contains) count as one edit away.
 */
export function nearest(input: string, candidates: readonly string[], max = 3): string[] {
  const q = input.trim().toLowerCase();
  if (q === '') return [];
  const limit = Math.max(2, Math.floor(q.length / 3));
  const scored = [...new Set(candidates)]
    .map((c) => {
      const lc = c.toLowerCase();
      const d = lc.includes(q) || (lc.length >= 3 && q.includes(lc)) ? 1 : editDistance(q, lc);
      return { c, d };
    })
    .filter((x) => x.d <= limit)
    .sort((a, b) => a.d - b.d || a.c.length - b.c.length || (a.c < b.c ? -1 : 1));
  return scored.slice(0, max).map((x) => x.c);
}

/** `did you mean 'a' or 'b'?` ('' when nothing is near). */
export function didYouMean(input: string, candidates: readonly string[], max = 3): string {
  const near = nearest(input, candidates, max);
  if (near.length === 0) return '';
  const quoted = near.map((n) => `'${n}'`);
  const list =
    quoted.length === 1 ? quoted[0]! : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)!}`;
  return `did you mean ${list}?`;
}
