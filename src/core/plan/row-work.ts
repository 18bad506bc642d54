/** A training row's work for the time model, its GPU-count-free part shared by rows that differ only in the count. */
import type { EstimateOptions } from '../../schema/estimate.js';
import type { TimeOptions } from '../../schema/time.js';
import { trainWork, type TrainWork } from '../time/index.js';
import { countFreeWork, type CountFreeWork } from '../time/train-work.js';
import { ligerTwinFreeWork } from '../time/liger-twin-work.js';
import type { Variant } from './configs.js';
import { timeOptionsOf, type Ctx } from './context.js';

/**
 * The rows whose options differ only in the GPU count (and whose time options only in grad-accum): same
 * configuration, engine variant (`v`: the row's own, unless given), TP, PP, ZeRO stage and offload. A number, or -1
 * outside the packed ranges.
 */
function countFreeKey(rows: Ctx['rows'], r: number, v = rows.variant[r]!): number {
  const tp = rows.tp[r]!;
  const pp = rows.pp[r]!;
  if (tp >= 1024 || pp >= 1024 || v < 0 || v >= 128 || rows.offload[r]! >= 8) return -1;
  return (
    ((((rows.base[r]! * 128 + v) * 1024 + tp) * 1024 + pp) * 4 + rows.zero[r]!) * 8 +
    rows.offload[r]!
  );
}

/**
 * The CountFreeWork by countFreeKey of the search's time options, from the model side's memo: rowWork passes
 * timeOptionsOf(ctx, 0, 1, accum), whose fields but grad-accum (which a count-free part does not read:
 * countFreeKey) file the map, so searches on other hardware (its first option's node size) keep their own.
 */
export function freesOf(ctx: Ctx): Map<number, CountFreeWork> {
  // JSON leaves out a key whose value is undefined: the time options less grad-accum.
  const key = JSON.stringify({ ...timeOptionsOf(ctx, 0, 1, 1), gradAccum: undefined });
  let frees = ctx.memo.frees.get(key);
  if (!frees) ctx.memo.frees.set(key, (frees = new Map()));
  return frees;
}

/**
 * The row's training work, its CountFreeWork shared with the rows of the same countFreeKey (`frees`), or made from its
 * Liger twin's (`twins`: liger-twins.ts ligerTwinVariants) where that is made already (liger-only: ligerTwinFreeWork).
 */
export function rowWork(
  ctx: Ctx,
  r: number,
  options: EstimateOptions,
  tOpts: TimeOptions,
  frees: Map<number, CountFreeWork>,
  twins: Int8Array,
): TrainWork {
  const key = countFreeKey(ctx.rows, r);
  if (key < 0) return trainWork(ctx.facts, options, tOpts);
  let free = frees.get(key);
  if (!free) frees.set(key, (free = freeWorkOf(ctx, r, options, tOpts, frees, twins)));
  return trainWork(ctx.facts, options, tOpts, undefined, undefined, free);
}

/**
 * countFreeWork of row `r`: from its Liger twin's CountFreeWork where `frees` holds it, else made whole. The twin row of
 * the same configuration and layout has the row's options but for Liger where the two variants differ in nothing
 * else that rowTimingOf (loop.ts) writes into them: engine, optimizer-in-backward and tiled MLP.
 */
function freeWorkOf(
  ctx: Ctx,
  r: number,
  options: EstimateOptions,
  tOpts: TimeOptions,
  frees: Map<number, CountFreeWork>,
  twins: Int8Array,
): CountFreeWork {
  const v = ctx.rows.variant[r]!;
  const tv = v < twins.length ? twins[v]! : -1;
  if (tv >= 0 && ligerOnly(ctx.variants[v]!, ctx.variants[tv]!)) {
    const twin = frees.get(countFreeKey(ctx.rows, r, tv));
    if (twin) return ligerTwinFreeWork(ctx.facts, options, tOpts, twin);
  }
  return countFreeWork(ctx.facts, options, tOpts);
}

/** Whether engine variants `a` and `b` give a row options that differ in Liger's kernels only (rowTimingOf). */
const ligerOnly = (a: Variant, b: Variant): boolean =>
  a.engine === b.engine &&
  a.optimizerInBackward === b.optimizerInBackward &&
  (a.tiledMlp === true) === (b.tiledMlp === true);
