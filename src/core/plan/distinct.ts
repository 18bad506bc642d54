/**
 * The count of distinct plans among the feasible candidates. A plan folds the candidates with the same
 * hardware option, power level, cost, hours and wall watts (foldedIntoKept in context.ts), so the plans a
 * search would rank with no --top limit are the distinct (option × level, cost, hours, watts) tuples. They
 * are counted exactly in an open-addressing hash set over typed arrays: no allocation per candidate, so the
 * count costs the hot loop a hash and a probe or two per feasible candidate.
 *
 * A candidate's cost and watts follow from its option, level, GPU count and hours (loop.ts evalLevels: the
 * watts from the count on the option's nodes at the level, the cost from those and the hours), so where no two
 * GPU counts of one option and level draw the same watts (the search checks: loop.ts wattsTellCounts), the
 * tuples are distinct exactly when their (option × level, GPU count, hours) are: `CountedPlans` keeps those,
 * 16 bytes a slot in one array, where `DistinctPlans` keeps the whole tuple and its hash, 36 bytes a slot in
 * two. Most probes miss the processor's caches (the benchmark space's 582,972 insertions into 231,983 plans),
 * so the smaller table is the faster one.
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

/** What the search loop asks of a distinct-plan count. */
export interface PlanCount {
  /** Entries so far: the distinct plans. */
  readonly size: number;
  /** Adds one feasible candidate's plan (`count`: its GPUs); returns whether it was new. */
  add(hwLevel: number, count: number, cost: number, hours: number, watts: number): boolean;
}

/**
 * Every plan's whole tuple (any search). Each slot keeps its entry's hash, so a probe reads the entry itself only
 * when the hashes match, and growing re-places entries without hashing or comparing them. The table starts at
 * 4,096 slots and quadruples when three quarters full.
 */
export class DistinctPlans implements PlanCount {
  /** Entries so far: the distinct plans. */
  size = 0;
  private mask = INITIAL_SLOTS - 1;
  /** Per slot: the entry's 32-bit hash with its lowest bit set (0 = empty), so most probes read nothing else. */
  private hash = new Int32Array(INITIAL_SLOTS);
  /** Per slot: option × level, cost, hours, watts. */
  private obj = new Float64Array(INITIAL_SLOTS * 4);

  add(hwLevel: number, _count: number, cost: number, hours: number, watts: number): boolean {
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

/** The 32-bit hash of a CountedPlans entry: its key number and its hours. */
function countedHash(key: number, hours: number): number {
  F64[0] = hours;
  const h = Math.imul(
    Math.imul(Math.imul(key, 2654435761) ^ U32[0]!, 16777619) ^ U32[1]!,
    16777619,
  );
  return h ^ (h >>> 15);
}

// Table sizing as above; this table doubles (its entries are half the size, and a smaller table stays in cache).
const COUNTED_GROWTH = 2;

/**
 * Plans by (option × level, GPU count, hours), for a search whose option, level and GPU count give the watts one
 * to one (the module comment). Each slot holds the key number (option × level × (maxCount + 1) + count + 1;
 * 0: empty) and the hours, side by side.
 */
export class CountedPlans implements PlanCount {
  size = 0;
  private mask = INITIAL_SLOTS - 1;
  private slots = new Float64Array(INITIAL_SLOTS * 2);

  /** `maxCount`: the most GPUs a candidate of the search has. */
  constructor(private readonly maxCount: number) {}

  add(hwLevel: number, count: number, cost: number, hours: number, _watts: number): boolean {
    // A NaN never equals itself: DistinctPlans counts every such tuple as new, and so does this.
    if (cost !== cost) {
      this.size++;
      return true;
    }
    hours += 0; // -0 and 0 are the same hours (=== says so) but not the same bits
    const key = hwLevel * (this.maxCount + 1) + count + 1;
    const { slots, mask } = this;
    let i = countedHash(key, hours) & mask;
    for (;;) {
      const k = slots[2 * i]!;
      if (k === 0) break;
      if (k === key && slots[2 * i + 1] === hours) return false;
      i = (i + 1) & mask;
    }
    slots[2 * i] = key;
    slots[2 * i + 1] = hours;
    if (++this.size > (this.mask + 1) * MAX_LOAD) this.grow();
    return true;
  }

  /** Doubles the table and re-places every entry (entries are distinct: no comparing). */
  private grow(): void {
    const old = this.slots;
    this.mask = (this.mask + 1) * COUNTED_GROWTH - 1;
    const slots = (this.slots = new Float64Array((this.mask + 1) * 2));
    for (let j = 0; j < old.length; j += 2) {
      const key = old[j]!;
      if (key === 0) continue;
      let i = countedHash(key, old[j + 1]!) & this.mask;
      while (slots[2 * i] !== 0) i = (i + 1) & this.mask;
      slots[2 * i] = key;
      slots[2 * i + 1] = old[j + 1]!;
    }
  }
}
