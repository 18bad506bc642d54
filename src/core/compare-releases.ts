/** Order two releases given as their numeric parts ([0, 6, 3] for "0.6.3"); a missing part counts as 0. Pure. */
export function compareReleases(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** A release's numbers ("0.6.3.post1" -> [0, 6, 3]; "0.6" -> [0, 6, 0]); none where it does not start with one. */
function releaseParts(version: string): number[] {
  const parts = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?/.exec(version.trim());
  if (parts === null) return [];
  return [Number(parts[1]), Number(parts[2] ?? 0), Number(parts[3] ?? 0)];
}

/** Whether release `version` is `since` or later; an unreadable version is not. */
export function releaseAtLeast(version: string, since: string): boolean {
  const got = releaseParts(version);
  const want = releaseParts(since);
  return got.length > 0 && want.length > 0 && compareReleases(got, want) >= 0;
}

/**
 * Whether release `version` is before `bound`, deciding only on the parts `version` names: "0.6.1" is before "0.6.2",
 * "0.6" is not (it may be any 0.6 release), and an unreadable version is not. Pure.
 */
export function releaseNamedBefore(version: string, bound: string): boolean {
  const named = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?/.exec(version.trim());
  const want = releaseParts(bound);
  if (named === null || want.length === 0) return false;
  const got = named
    .slice(1)
    .filter((p) => p !== undefined)
    .map(Number);
  return compareReleases(got, want.slice(0, got.length)) < 0;
}
