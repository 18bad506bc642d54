/**
 * The layouts a configuration's micro-batch keeps, by layout shape (plan/rows.ts forEachRunnable): which run the
 * job's global batch and at what accumulation, and which of them have a shape some engine variant runs.
 */
import { OBJECTIVE_PROFILES } from '../../schema/objectives.js';
import { grpoTokens } from '../../schema/objective-job.js';
import type { FineTuneJob, Scenario } from '../../schema/scenario.js';
import type { Arch } from '../model/arch.js';
import type { Method } from '../../schema/estimate.js';
import { microBatches, pipelineParallelisms, shardings, tensorParallelisms } from './candidates.js';
import { OFFLOADS, searchesLayerOffload } from './configs.js';
import { servesConcurrency } from './replicas.js';
import { membersAtLeast } from './objective.js';

export type Sharding = ReturnType<typeof shardings>[number];

/** A (count, TP, PP, DP, sharding) layout, with the shape engineRejects reads (less the accumulation bit). */
export interface Layout {
  count: number;
  tp: number;
  pp: number;
  dp: number;
  sh: Sharding;
  /** tp > 1, pp > 1, dp > 1 (bits 7..5), ZeRO stage and offload (bits 3..0); bit 4 is accum > 1. */
  shape: number;
}

/**
 * The layouts a micro-batch keeps, grouped by shape (with the accumulation bit): `shapes` lists the shapes
 * present, `members[k]` the layout indices of `shapes[k]` in search order, `accum[i]` layout i's
 * accumulation steps (0: the micro-batch skips it).
 */
export interface ShapeTable {
  shapes: number[];
  members: number[][];
  accum: Int32Array;
  /** membersAtLeast of each shape by vLLM server size and least count (searchedOf), made on first use. */
  searched: Map<string, Int32Array>;
}

/**
 * How many layouts of each shape of `table` a configuration with `server` vLLM server GPUs searches (its count
 * with the server's at least `least`: objective.ts membersAtLeast, which reads the members' counts, the server
 * and the least count only), by shape index; -1 where not counted yet. Kept on the table, per search.
 */
export function searchedOf(table: ShapeTable, server: number, least: number): Int32Array {
  const key = `${server}|${least}`;
  let out = table.searched.get(key);
  if (!out) table.searched.set(key, (out = new Int32Array(table.shapes.length).fill(-1)));
  return out;
}

/** membersAtLeast of shape `k` of `table`, read from `searched` (searchedOf of the same server and least). */
export function searchedAt(
  table: ShapeTable,
  searched: Int32Array,
  k: number,
  layouts: readonly { count: number }[],
  server: number,
  least: number,
): number {
  let n = searched[k]!;
  if (n < 0) searched[k] = n = membersAtLeast(table.members[k]!, layouts, server, least);
  return n;
}

/**
 * The global batch a fine-tune layout runs at micro-batch `batch` (micro-batch x accumulation x dp), or 0 where it
 * cannot: idle ranks, a pipeline that never fills, a generation batch of partial groups. The scenario's batch is
 * kept exactly where the data-parallel degree divides it; otherwise it runs the next larger one (choices.globalBatch
 * says so, and time and cost use it).
 */
function runsGlobalBatch(job: FineTuneJob, L: Layout, batch: number): number {
  if (batch * L.dp > job.globalBatch) return 0; // idle ranks
  if (job.globalBatch % L.dp === 0 && job.globalBatch % (batch * L.dp) !== 0) return 0;
  const a = Math.ceil(job.globalBatch / (batch * L.dp));
  if (L.pp > 1 && a < L.pp) return 0; // pipeline never fills
  // TRL GRPOConfig raises unless the generation batch holds whole groups (flags.ts generationBatchCheck).
  if (
    OBJECTIVE_PROFILES[job.objective].rollout &&
    (batch * L.dp * a) % grpoTokens(job).generations !== 0
  )
    return 0;
  return batch * L.dp * a;
}

/**
 * forEachRunnable's table for one method's layouts at micro-batch `batch` (idle ranks and unfilled pipelines
 * skipped). A layout whose data-parallel degree does not divide the global batch keeps only the micro-batches
 * (of the searched ones) that reach the smallest batch it can run: a larger micro-batch's rounding
 * (8 x 2 x 6 = 96 for 64 where 4 x 3 x 6 = 72 runs) is another job, whose larger rollouts and fewer steps would
 * win the ranking on what the scenario did not ask for.
 */
export function shapeTableOf(s: Scenario, layouts: readonly Layout[], batch: number): ShapeTable {
  const job = s.job;
  const batches =
    job.kind === 'fine-tune' ? microBatches(job.globalBatch, s.search.microBatches) : [];
  const accum = new Int32Array(layouts.length);
  const byShape = new Map<number, number[]>();
  for (let i = 0; i < layouts.length; i++) {
    const L = layouts[i]!;
    let a = 1;
    // Serving: each of the layout's replicas serves its share of the concurrency (replicas.ts).
    if (job.kind === 'inference' && !servesConcurrency(job.concurrency, batch, L.dp)) continue;
    if (job.kind === 'fine-tune') {
      const runs = runsGlobalBatch(job, L, batch);
      if (runs === 0) continue;
      if (runs > job.globalBatch) {
        let least = runs;
        for (const b of batches) {
          const r = runsGlobalBatch(job, L, b);
          if (r > 0 && r < least) least = r;
        }
        if (runs > least) continue;
      }
      a = runs / (batch * L.dp);
    }
    accum[i] = a;
    const shape = L.shape + (a > 1 ? 16 : 0);
    let m = byShape.get(shape);
    if (!m) byShape.set(shape, (m = []));
    m.push(i);
  }
  return {
    shapes: [...byShape.keys()],
    members: [...byShape.values()],
    accum,
    searched: new Map(),
  };
}

/** forEachRunnable's scratch list of layout indices (runnableLayouts), grown as needed. */
export interface LayoutOrder {
  at: Int32Array;
}

/**
 * The layouts of `table` whose shape some engine variant runs (`runList` at `slot`: every shape's verdict made),
 * into `order.at` in search order; returns how many. A search runs a few percent of its layouts (GRPO on
 * Qwen2.5-7B: 24,248 of 1,021,104 a micro-batch keeps), so the shapes' member lists (each in search order) are
 * merged instead of every layout visited.
 */
export function runnableLayouts(
  table: ShapeTable,
  runList: readonly (readonly number[])[],
  slot: number,
  order: LayoutOrder,
): number {
  let n = 0;
  let shapes = 0;
  for (let k = 0; k < table.shapes.length; k++) {
    if (runList[slot + table.shapes[k]!]!.length === 0) continue;
    const m = table.members[k]!;
    if (order.at.length < n + m.length) {
      const grown = new Int32Array(Math.max(2 * order.at.length, n + m.length));
      grown.set(order.at.subarray(0, n));
      order.at = grown;
    }
    for (let j = 0; j < m.length; j++) order.at[n++] = m[j]!;
    shapes++;
  }
  if (shapes > 1) order.at.subarray(0, n).sort(); // a typed array sorts by value
  return n;
}

/** Every layout searched for a method, in search order (the micro-batch filters apply per configuration). */
export function layoutsOf(
  s: Scenario,
  arch: Arch,
  method: Method,
  counts: readonly number[],
): Layout[] {
  const layers = arch.groups.reduce((a, g) => a + g.count, 0);
  const maxTp = s.hardware.gpusPerNode;
  const llama = searchesLayerOffload(s);
  const out: Layout[] = [];
  for (const c of counts)
    for (const tp of tensorParallelisms(c, arch, maxTp, s.search.tp, method === 'inference'))
      for (const pp of method !== 'inference'
        ? pipelineParallelisms(c / tp, layers, s.search.pp)
        : // Serving: one llama-server over all the count's GPUs (its layer split; no TP); the fleet MIP
          // combines replicas of different counts, so pipelines beside replicas are not searched.
          tp === 1 && llama && c > 1 && pipelineParallelisms(c, layers, s.search.pp).includes(c)
          ? [1, c]
          : [1]) {
        const dp = c / (tp * pp);
        const bits = ((tp > 1 ? 1 : 0) * 2 + (pp > 1 ? 1 : 0)) * 2 + (dp > 1 ? 1 : 0);
        for (const sh of shardings(method, dp, tp, pp, s.search.zero, s.search.offload))
          out.push({
            count: c,
            tp,
            pp,
            dp,
            sh,
            shape: bits * 32 + sh.zero * 4 + OFFLOADS.indexOf(sh.offload),
          });
      }
  return out;
}

/** A method's layouts over the searched GPU counts, made once per search. */
export function layoutsFor(
  made: Map<Method, Layout[]>,
  s: Scenario,
  arch: Arch,
  method: Method,
  counts: readonly number[],
): Layout[] {
  let layouts = made.get(method);
  if (!layouts) made.set(method, (layouts = layoutsOf(s, arch, method, counts)));
  return layouts;
}

/** The shape table of a method's layouts at a micro-batch, made once (by method, then micro-batch). */
export function tableOf(
  tables: Map<Method, Map<number, ShapeTable>>,
  s: Scenario,
  layouts: Layout[],
  o: { method: Method; batch: number },
): ShapeTable {
  let byBatch = tables.get(o.method);
  if (!byBatch) tables.set(o.method, (byBatch = new Map()));
  let table = byBatch.get(o.batch);
  if (!table) byBatch.set(o.batch, (table = shapeTableOf(s, layouts, o.batch)));
  return table;
}
