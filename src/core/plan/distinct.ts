/**
 * The count of distinct plans among the feasible candidates. A plan folds the candidates with the same
 * hardware option, power level, cost, hours and wall watts (foldedIntoKept in context.ts), so the plans a
 * search would rank with no --top limit are the distinct (option × level, cost, hours, watts) tuples. They
 * are counted exactly in an open-addressing hash set over typed arrays: no allocation per candidate, so the
 * count costs the hot loop a hash and a probe or two per feasible candidate. Each slot keeps its entry's hash,
 * so a probe reads the entry itself only when the hashes match, and growing re-places entries without hashing
 * or comparing them. The table starts at 4,096 slots and quadruples when three quarters full (the benchmark
 * space's 183,145 plans fit 262,144 slots, 9 MB, where half full took 1,048,576 slots, 28 MB).
 */

const F64 = new Float64Array(1);
const U32 = new Uint32Array(F64.buffer);

/** A 32-bit mix of one double's bits into `h` (FNV-1a's prime over both halves). */
function mix(h: number, x: number): number {
  F64[0] = x;
  h = Math.imul(h ^ U32[0]!, 16777619);
  return Math.imul(h ^ U32[1]!, 16777619);
}

// Table sizing, not a model constant: a power of two (the hash is masked), the factor it grows by, and how full it
// may get (entries per slot; linear probing reads the hashes side by side, 16 to a 64-byte cache line).
const INITIAL_SLOTS = 4096;
const GROWTH = 4;
const MAX_LOAD = 0.75;

export class DistinctPlans {
  /** Entries so far: the distinct plans. */
  size = 0;
  private mask = INITIAL_SLOTS - 1;
  /** Per slot: the entry's 32-bit hash with its lowest bit set (0 = empty), so most probes read nothing else. */
  private hash = new Int32Array(INITIAL_SLOTS);
  /** Per slot: option × level, cost, hours, watts. */
  private obj = new Float64Array(INITIAL_SLOTS * 4);

  /** Adds one feasible candidate's plan key; returns whether it was new. */
  add(hwLevel: number, cost: number, hours: number, watts: number): boolean {
    // -0 and 0 are the same objective (=== says so) but not the same bits.
    cost += 0;
    hours += 0;
    watts += 0;
    const h = mix(mix(mix(Math.imul(hwLevel + 1, 2654435761), cost), hours), watts) | 1;
    const { hash, obj, mask } = this;
    let i = h & mask;
    for (;;) {
      const t = hash[i]!;
      if (t === 0) break;
      if (t === h) {
        const o = i * 4;
        if (
          obj[o] === hwLevel &&
          obj[o + 2] === hours &&
          obj[o + 1] === cost &&
          obj[o + 3] === watts
        )
          return false;
      }
      i = (i + 1) & mask;
    }
    this.put(i, h, hwLevel, cost, hours, watts);
    if (++this.size > (this.mask + 1) * MAX_LOAD) this.grow();
    return true;
  }

  private put(i: number, h: number, hwLevel: number, cost: number, hours: number, watts: number) {
    const o = i * 4;
    this.hash[i] = h;
    this.obj[o] = hwLevel;
    this.obj[o + 1] = cost;
    this.obj[o + 2] = hours;
    this.obj[o + 3] = watts;
  }

  /** Quadruples the table and re-places every entry by its kept hash (entries are distinct: no comparing). */
  private grow(): void {
    const { hash, obj } = this;
    this.mask = this.mask * GROWTH + GROWTH - 1;
    this.hash = new Int32Array(this.mask + 1);
    this.obj = new Float64Array((this.mask + 1) * 4);
    for (let j = 0; j < hash.length; j++) {
      const h = hash[j]!;
      if (h === 0) continue;
      let i = h & this.mask;
      while (this.hash[i] !== 0) i = (i + 1) & this.mask;
      const o = j * 4;
      this.put(i, h, obj[o]!, obj[o + 1]!, obj[o + 2]!, obj[o + 3]!);
    }
  }
}
