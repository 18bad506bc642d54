/** Order two releases given as their numeric parts ([0, 6, 3] for "0.6.3"); a missing part counts as 0. Pure. */
export function compareReleases(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** A release string's numbers and post part: groups 1-3 the numbers it names, group 4 its `.postN`. */
const RELEASE = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:\.post(\d+))?/;

/** A release's numbers ("0.6.3.post1" -> [0, 6, 3]; "0.6" -> [0, 6, 0]); none where it does not start with one. */
function releaseParts(version: string): number[] {
  const parts = RELEASE.exec(version.trim());
  if (parts === null) return [];
  return [Number(parts[1]), Number(parts[2] ?? 0), Number(parts[3] ?? 0)];
}

/** The numbers `version` names, no missing part filled ("0.6" -> [0, 6]); null where it does not start with one. */
function namedParts(version: string): { numbers: number[]; post: number } | null {
  const named = RELEASE.exec(version.trim());
  if (named === null) return null;
  const numbers = named
    .slice(1, 4)
    .filter((p) => p !== undefined)
    .map(Number);
  return { numbers, post: Number(named[4] ?? 0) };
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
  const named = namedParts(version);
  const want = releaseParts(bound);
  if (named === null || want.length === 0) return false;
  return compareReleases(named.numbers, want.slice(0, named.numbers.length)) < 0;
}

/** Whether release `version` lies in the span [from, before): releaseAtLeast `from` and releaseNamedBefore `before`. */
export function releaseWithin(version: string, span: { from: string; before: string }): boolean {
  return releaseAtLeast(version, span.from) && releaseNamedBefore(version, span.before);
}

/**
 * releaseNamedBefore with post releases ordered: "0.4.5" is before "0.4.5.post1", "0.4.4.post3" before "0.4.5". A
 * version naming all three numbers names its post part too (none: .post0, the plain release); one naming fewer decides
 * on those only, as releaseNamedBefore does. For a bound without a post part the two agree. Pure.
 */
export function releaseNamedBeforePost(version: string, bound: string): boolean {
  const named = namedParts(version);
  const b = namedParts(bound);
  if (named === null || b === null) return false;
  const want = [...releaseParts(bound), b.post];
  const got = named.numbers.length === 3 ? [...named.numbers, named.post] : named.numbers;
  return compareReleases(got, want.slice(0, got.length)) < 0;
}
