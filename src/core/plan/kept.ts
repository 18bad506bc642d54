/** A bounded lookup table the planner's memos share (view-memo.ts, memory-twins.ts). */

/**
 * Entries one table keeps before it starts again (a bound on a long session's memory, not a figure of the
 * model: a few views of the largest shipped scenario's ranked plans and surfaces fit well within it).
 */
const MAX_ENTRIES = 20_000;

/** `table`'s value for `key`, made by `make` on a miss (the table emptied first when it is full). */
export function keptOr<V>(table: Map<string, V>, key: string, make: () => V): V {
  let v = table.get(key);
  if (v === undefined) {
    if (table.size >= MAX_ENTRIES) table.clear();
    table.set(key, (v = make()));
  }
  return v;
}
