/**
 * The times of a Liger pair's rows (liger-twins.ts), kept while the pair is searched: the search times a row's twin
 * beside the row (loop.ts slowerThanTwin) and then the twin on its own turn, at the same GPU option and power level,
 * from the same facts, timing facts and rates (loop.ts timeAt: a pure function of those). Each time is worked out
 * once and read again; nothing else changes, so the output is the same.
 *
 * A row's times sit in a slot by GPU option and level (h * MAX_LEVELS + l); a stamp per entry says whether it was
 * written for the slot's current row, so a slot is reused for another row without clearing it.
 */
import { MAX_LEVELS } from './context.js';

/** One row's kept times. */
interface TimesSlot {
  /** The stamp of the row the slot holds now (TwinTimes.next). */
  id: number;
  /** Per GPU option and level: the stamp its entry was written under (an entry is the row's where it equals id). */
  stamp: Int32Array;
  hours: Float64Array;
  tps: Float64Array;
}

/** What timeAt writes: hours and tokens/s. */
export interface TimesOut {
  hours: number;
  tps: number;
}

export class TwinTimes {
  private readonly byRow = new Map<number, TimesSlot>();
  private readonly spare: TimesSlot[] = [];
  private next = 0;

  /** `options`: the search's GPU options (HwTable.H). */
  constructor(private readonly options: number) {}

  /** Keeps the times of row `r` from now on (a no-op where they are kept already). */
  keep(r: number): void {
    if (this.byRow.has(r)) return;
    const n = this.options * MAX_LEVELS;
    const slot = this.spare.pop() ?? {
      id: 0,
      stamp: new Int32Array(n),
      hours: new Float64Array(n),
      tps: new Float64Array(n),
    };
    // Stamps start at 1: a new slot's entries (0) belong to no row.
    slot.id = ++this.next;
    this.byRow.set(r, slot);
  }

  /** Drops row `r`'s times (its pair is searched), its slot kept for another row. */
  drop(r: number): void {
    const slot = this.byRow.get(r);
    if (!slot) return;
    this.byRow.delete(r);
    this.spare.push(slot);
  }

  /** Row `r`'s kept time on GPU option `h` at level `l` into `out`; false where none is kept (`out` untouched). */
  read(r: number, h: number, l: number, out: TimesOut): boolean {
    const slot = this.byRow.get(r);
    if (!slot) return false;
    const i = h * MAX_LEVELS + l;
    if (slot.stamp[i] !== slot.id) return false;
    out.hours = slot.hours[i]!;
    out.tps = slot.tps[i]!;
    return true;
  }

  /** Keeps `out` as row `r`'s time on GPU option `h` at level `l`, where row `r`'s times are kept (keep). */
  write(r: number, h: number, l: number, out: TimesOut): void {
    const slot = this.byRow.get(r);
    if (!slot) return;
    const i = h * MAX_LEVELS + l;
    slot.stamp[i] = slot.id;
    slot.hours[i] = out.hours;
    slot.tps[i] = out.tps;
  }
}
