/**
 * The count of distinct plans among the feasible candidates. A plan folds the candidates with the same
 * hardware option, power level, cost, hours and wall watts (foldedIntoKept in context.ts), so the plans a
 * search would rank with no --top limit are the distinct (option × level, cost, hours, watts) tuples. They
 * are counted exactly in an open-addressing hash set over typed arrays: no allocation per candidate, so the
 * count costs the hot loop a hash and a probe or two per feasible candidate. The table starts at 4,096 slots
 * and quadruples when half full (a large search's 100,000-odd plans are re-inserted over four growths, not eight).
 */

const F64 = new Float64Array(1);
const U32 = new Uint32Array(F64.buffer);

/** A 32-bit mix of one double's bits into `h` (FNV-1a's prime over both halves). */
function mix(h: number, x: number): number {
  F64[0] = x;
  h = Math.imul(h ^ U32[0]!, 16777619);
  return Math.imul(h ^ U32[1]!, 16777619);
}

// Table sizing, not a model constant: a power of two (the hash is masked) and the factor it grows by.
const INITIAL_SLOTS = 4096;
const GROWTH = 4;

export class DistinctPlans {
  /** Entries so far: the distinct plans. */
  size = 0;
  private mask = INITIAL_SLOTS - 1;
  /** Per slot: option × level + 1 (0 = empty). */
  private slot = new Int32Array(INITIAL_SLOTS);
  /** Per slot: cost, hours, watts. */
  private obj = new Float64Array(INITIAL_SLOTS * 3);

  /** Adds one feasible candidate's plan key; returns whether it was new. */
  add(hwLevel: number, cost: number, hours: number, watts: number): boolean {
    const tag = hwLevel + 1;
    // -0 and 0 are the same objective (=== says so) but not the same bits.
    cost += 0;
    hours += 0;
    watts += 0;
    let i = mix(mix(mix(Math.imul(tag, 2654435761), cost), hours), watts) & this.mask;
    for (;;) {
      const t = this.slot[i]!;
      if (t === 0) break;
      const o = i * 3;
      if (
        t === tag &&
        this.obj[o] === cost &&
        this.obj[o + 1] === hours &&
        this.obj[o + 2] === watts
      )
        return false;
      i = (i + 1) & this.mask;
    }
    this.slot[i] = tag;
    this.obj[i * 3] = cost;
    this.obj[i * 3 + 1] = hours;
    this.obj[i * 3 + 2] = watts;
    if (++this.size * 2 > this.mask) this.grow();
    return true;
  }

  /** Quadruples the table (kept at most half full) and re-inserts every entry. */
  private grow(): void {
    const { slot, obj } = this;
    this.mask = this.mask * GROWTH + GROWTH - 1;
    this.slot = new Int32Array(this.mask + 1);
    this.obj = new Float64Array((this.mask + 1) * 3);
    this.size = 0;
    for (let i = 0; i < slot.length; i++)
      if (slot[i] !== 0) this.add(slot[i]! - 1, obj[i * 3]!, obj[i * 3 + 1]!, obj[i * 3 + 2]!);
  }
}
