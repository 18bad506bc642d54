/** Pareto front over minimised objectives, deterministic: ties keep the earlier point by rank order. */

/** a dominates b: no worse in every objective and better in at least one. */
export function dominates(a: readonly number[], b: readonly number[]): boolean {
  let better = false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x > y) return false;
    if (x < y) better = true;
  }
  return better;
}

/** Indices of the non-dominated points, in input order; exact duplicates keep the first. */
export function paretoFront(points: readonly (readonly number[])[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < points.length; i++) {
    const p = points[i]!;
    let keep = true;
    for (let j = 0; j < points.length && keep; j++) {
      if (j === i) continue;
      const q = points[j]!;
      if (dominates(q, p)) keep = false;
      else if (j < i && q.every((v, k) => v === p[k])) keep = false;
    }
    if (keep) out.push(i);
  }
  return out;
}
