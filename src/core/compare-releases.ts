/** Order two releases given as their numeric parts ([0, 6, 3] for "0.6.3"); a missing part counts as 0. Pure. */
export function compareReleases(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}
