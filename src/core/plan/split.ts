/**
 * A search split into parts over blocks of rows (loop.ts runLoop with a PartOf), merged into the state the
 * whole loop would have reached: the same counts, ranked top list, variants, Pareto front, nearest misses
 * and distinct plans, so that the result is the serial search's, byte for byte.
 *
 * - Counts add up, the fastest hours is the least, and each reason's nearest miss is the least score, the
 *   earlier row among equals (the loop visits rows in order; a part keeps its own earliest).
 * - Seq: the loop numbers candidates in row order, so a part's candidate in block b has the serial seq of
 *   every candidate in earlier blocks plus its place in its block.
 * - The distinct plans are the union of the parts' plans.
 * - The front is the offered points no other dominates, the earliest of equals: a function of the offered
 *   set, which is each distinct plan's first candidate. A part offers its own first candidates, the serial
 *   ones and some repeats of earlier parts' plans (which an earlier equal point beats), and its front keeps
 *   its own undominated ones; the merge offers every part's front in serial order.
 * - The ranked top: a candidate can change the serial top list only when it passes the list's worst (or the
 *   list is short). A part's list holds the best plans of fewer candidates, so its worst is never better than
 *   the serial list's at the same candidate: it logs a superset of those, which the merge replays in order.
 */
import type { Kept, Limits, LoopState, Near } from './context.js';
import { BLOCK_ROWS, addFront, emptyLoopState, intoTop } from './loop.js';

/** A part's loop state as another thread hands it over (structured clone: typed arrays and plain objects). */
export interface LoopPart {
  reasons: Float64Array;
  candidates: number;
  feasible: number;
  fastest: number;
  front: Kept[];
  near: (Near | null)[];
  /** The part's distinct plans (DistinctPlans.entries). */
  plans: Float64Array;
  log: Kept[];
  start: Float64Array;
  seqs: Float64Array;
}

/** The part a loop run with a PartOf reached (loop.ts runLoop). */
export function loopPartOf(st: LoopState): LoopPart {
  const p = st.part!;
  return {
    reasons: st.reasons,
    candidates: st.candidates,
    feasible: st.feasible,
    fastest: st.fastest,
    front: st.front,
    near: st.near,
    plans: st.distinct.entries(),
    log: p.log,
    start: p.start,
    seqs: p.seqs,
  };
}

/** The nearer of two misses of one reason: the lesser score, the earlier row among equals. */
const nearer = (a: Near | null, b: Near | null): Near | null =>
  !a || (b && (b.score < a.score || (b.score === a.score && b.row < a.row))) ? b : a;

/** The parts' candidates of `pick`, renumbered with their serial seq, in serial order. */
function inSerialOrder(parts: readonly LoopPart[], pick: (p: LoopPart) => Kept[]): Kept[] {
  const blocks = parts[0]!.seqs.length;
  const offset = new Float64Array(blocks);
  let before = 0;
  for (let b = 0; b < blocks; b++) {
    offset[b] = before;
    for (const p of parts) before += p.seqs[b]!;
  }
  const out: Kept[] = [];
  for (const p of parts)
    for (const k of pick(p)) {
      const b = Math.floor(k.row / BLOCK_ROWS);
      out.push({ ...k, seq: offset[b]! + k.seq - p.start[b]! });
    }
  return out.sort((a, b) => a.seq - b.seq);
}

/** The loop state of the whole search from its parts (the search's limits; `gpuOptions` GPU options). */
export function mergeParts(lim: Limits, gpuOptions: number, parts: readonly LoopPart[]): LoopState {
  const st = emptyLoopState(gpuOptions);
  for (const p of parts) {
    for (let i = 0; i < st.reasons.length; i++) st.reasons[i] = st.reasons[i]! + p.reasons[i]!;
    st.candidates += p.candidates;
    st.feasible += p.feasible;
    if (p.fastest < st.fastest) st.fastest = p.fastest;
    st.near = st.near.map((n, i) => nearer(n, p.near[i]!));
    st.distinct.addAll(p.plans);
    for (const s of p.seqs) st.seq += s;
  }
  for (const k of inSerialOrder(parts, (p) => p.front))
    addFront(st, k.row, k.hw, k.level, { ...k, tps: k.tokensPerSecond }, k.seq);
  const keys = { k0: 0, k1: 0, k2: 0 };
  for (const k of inSerialOrder(parts, (p) => p.log)) intoTop(lim, st.top, keys, k);
  return st;
}
