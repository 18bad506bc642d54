/**
 * A replica's decode tokens/s (time/serving-step.ts replicaTokensPerSecond) remembered by what it is a function
 * of: the model's facts (one object per architecture: time/model-facts.ts), the row's options and the GPU
 * option's rates at one power level. A serving scenario's fleet runs one search per owned GPU type and rent offer
 * (fleet.ts fleetCandidates) after the search over all of them, and those searches time the same rows on the same
 * rates again (`serve-mixed-fleet`: 4,484 calls, 2,242 distinct), each with its own row and rate objects, so the
 * key is their content (JSON); the value is the same number the call returns.
 */
import type { EstimateOptions } from '../../schema/estimate.js';
import type { TimeOptions } from '../../schema/time.js';
import type { GpuRates } from '../time/hardware.js';
import type { ModelFacts } from '../time/model-facts.js';
import { replicaTokensPerSecond } from '../time/serving-step.js';

/** Rows kept per model before the table starts over (a long-lived explorer re-plans many scenarios). */
const MAX_ROWS = 20_000;

const byFacts = new WeakMap<ModelFacts, Map<string, Map<string, number>>>();
const rateKeys = new WeakMap<GpuRates, string>();

function rateKey(r: GpuRates): string {
  let k = rateKeys.get(r);
  if (k === undefined) rateKeys.set(r, (k = JSON.stringify(r)));
  return k;
}

/**
 * A row's table of tokens/s by rates (made once per row: plan/loop.ts rowTimingOf), shared by every row with
 * the same model and the same options' content. Its keys are one string per rates object, made once, so a
 * lookup hashes a string V8 has already hashed.
 */
export function tpsTableOf(m: ModelFacts, o: EstimateOptions): Map<string, number> {
  let rows = byFacts.get(m);
  if (rows === undefined) byFacts.set(m, (rows = new Map()));
  const key = JSON.stringify(o);
  let table = rows.get(key);
  if (table === undefined) {
    if (rows.size >= MAX_ROWS) rows.clear();
    rows.set(key, (table = new Map()));
  }
  return table;
}

/**
 * replicaTokensPerSecond(m, o, t, r), remembered in `table` (tpsTableOf(m, o)); `t` is one fixed object per
 * caller (the planner's PLAN_DECODE_TIME), so it is not part of the key.
 */
export function memoTokensPerSecond(
  table: Map<string, number>,
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
): number {
  const k = rateKey(r);
  let tps = table.get(k);
  if (tps === undefined) table.set(k, (tps = replicaTokensPerSecond(m, o, t, r)));
  return tps;
}
