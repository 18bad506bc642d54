/** Rows of the model side: (configuration, layout) pairs with their memory, each checked against engines and quality. */
import { expertLayout, runsExpertLayout } from './expert-parallel.js';
import type { Arch } from '../model/arch.js';
import {
  ENGINE_PROFILES,
  engineFieldsInto,
  engineRejects,
  rejectsLayout,
  searchSkipsOneRank,
} from '../engines/engines.js';
import { launchBlocker, type LaunchPlan } from '../launch/index.js';
import { qualityOf, tierRank } from './quality.js';
import { type Engine } from '../../schema/engine.js';
import { policyMemo } from '../memory/memory.js';
import {
  alikeEstimates,
  memorySurface,
  pointClass,
  type AlikeEstimates,
  type GrpoPoints,
  type MemorySurface,
} from '../memory/surface.js';
import { keptEstimates, memoryTwinsOf } from './memory-twins.js';
import { rollsOut } from '../../schema/objectives.js';
import { RL_KEYS, samePolicyOptions, type PolicyMemory } from '../memory/objective.js';
import { maxSearchedGpus, serverGpus } from './objective.js';
import { searchesFp8Kv } from '../engines/kernels.js';
import { type EstimateOptions, type Method } from '../../schema/estimate.js';
import type { Scenario } from '../../schema/scenario.js';
import { OFFLOADS, growMem, newMem } from './configs.js';
import { growableCopy } from './grow-copy.js';
import { alikeOn } from './alike.js';
import type { BaseConfig, MemTable, Rows, Variant } from './configs.js';
import type { ShapeVerdicts } from './search-memo.js';
import {
  layoutsFor,
  runnableLayouts,
  searchedAt,
  searchedOf,
  tableOf,
  type Layout,
  type LayoutOrder,
  type Sharding,
  type ShapeTable,
} from './shape-table.js';

/** Model-side combinations pruned before the hardware loop (each stands for every GPU option and level). */
interface ModelPruned {
  noEngine: number;
  quality: number;
  /** Layouts whose engines run them only on a path their guides do not describe (undocumentedPath). */
  undocumented: number;
}

/** The row table while buildRows fills it: rows, their memory, and the memory surfaces made so far. */
interface RowTable {
  rows: Rows;
  mem: MemTable;
  n: number;
  surfaces: Map<number, MemorySurface>;
  /** The policy estimates every surface of the search shares (memory.ts policyMemo). */
  policies: (o: EstimateOptions) => PolicyMemory;
  /** Fine-tune: samples per optimizer step (GRPO's generation batch: memory/surface.ts). */
  globalBatch: number | undefined;
  /** GRPO points every surface of the search shares (memory/surface.ts GrpoPoints). */
  points: GrpoPoints;
  /** pointClass of each configuration's options (pointKeyOf). */
  pointKeys: Map<EstimateOptions, string>;
  /** Per configuration, its memory twins' index (memory-twins.ts), and their surfaces' estimates by surfaceKey. */
  twins: number[];
  alike: Map<number, AlikeEstimates>;
  /**
   * Surface estimates by options, shared with the other searches of the model sides (model-side.ts
   * ModelSides.surfaces) or views (view-memo.ts), where a host keeps them.
   */
  kept?: Map<string, AlikeEstimates>;
}

function rowTable(size: number, arch: Arch, twins: number[], globalBatch?: number): RowTable {
  const rows = alloc(size);
  return {
    rows,
    mem: newMem(rows.base.length),
    n: 0,
    surfaces: new Map(),
    policies: policyMemo(arch),
    globalBatch,
    points: new Map(),
    pointKeys: new Map(),
    twins,
    alike: new Map(),
  };
}

/** Configurations that differ only in micro-batch share one memory surface: one number per such group. */
function surfaceGroupsOf(bases: readonly BaseConfig[]): number[] {
  const ids = new Map<string, number>();
  return bases.map((b) => {
    const k = b.idPart.replace(/\/mb\d+$/, '');
    let id = ids.get(k);
    if (id === undefined) ids.set(k, (id = ids.size));
    return id;
  });
}

/**
 * The memory surface of (configuration group, layout, engine variant `vi`), made on first use. One surface
 * covers every micro-batch and GPU count exactly (memory/surface.ts memorySurface): five estimates
 * instead of one per row.
 */
function surfaceOf(
  T: RowTable,
  arch: Arch,
  group: number,
  o: EstimateOptions,
  at: LayoutVisit,
  variants: readonly Variant[],
  vi: number,
): MemorySurface {
  const key = surfaceKey(group, at, vi);
  let surface = T.surfaces.get(key);
  if (!surface) {
    const opts = variantOptions(o, at.tp, at.pp, at.sh, variants[vi]!);
    const pk = rollsOut(opts) ? pointKeyOf(T, o, at, vi) : undefined;
    const twin = T.twins[at.bi]!;
    let alike: AlikeEstimates | undefined;
    if (twin >= 0) {
      const tk = surfaceKey(twin, at, vi);
      alike = T.alike.get(tk);
      if (!alike)
        T.alike.set(tk, (alike = T.kept ? keptEstimates(T.kept, opts, true) : alikeEstimates()));
    } else if (T.kept && pk === undefined) alike = keptEstimates(T.kept, opts, false);
    surface = memorySurface(arch, opts, {}, T.policies, T.globalBatch, T.points, pk, alike);
    T.surfaces.set(key, surface);
  }
  return surface;
}

/** A surface's key: its configuration group (or memory twins' index), layout and engine variant. */
const surfaceKey = (group: number, at: LayoutVisit, vi: number): number =>
  ((((group * 65 + at.tp) * 65 + at.pp) * 4 + at.sh.zero) * 3 + OFFLOADS.indexOf(at.sh.offload)) *
    64 +
  vi;

/**
 * The GRPO points' class of variantOptions(o, tp, pp, sh, variants[vi]) as a key: `o`'s pointClass (its JSON
 * made once per configuration, which has several layouts and variants), the layout and the variant.
 * variantOptions writes these and fields of the engine read from `o`'s other keys, never from the vLLM
 * server's GPU count or colocated share, so equal keys are options of equal pointClass
 * (test/core/plan-point-keys.test.ts).
 */
function pointKeyOf(T: RowTable, o: EstimateOptions, at: LayoutVisit, vi: number): string {
  let k = T.pointKeys.get(o);
  if (k === undefined) T.pointKeys.set(o, (k = pointClass(o, {})));
  return `${k}|${at.tp}|${at.pp}|${at.sh.zero}|${at.sh.offload}|${vi}`;
}

/** Append one row (the visited layout on engine variant `vi`), its memory read off `surface`. */
function addRow(T: RowTable, surface: MemorySurface, batch: number, at: LayoutVisit, vi: number) {
  if (T.n === T.rows.base.length) {
    T.rows = grow(T.rows);
    T.mem = growMem(T.mem, T.rows.base.length);
  }
  const { rows, n } = T;
  if (surface.defer(batch, at.dp)) {
    T.mem.device[n] = NaN;
    T.mem.deferred[n] = surface;
  } else surface.into(batch, at.dp, T.mem, n);
  rows.base[n] = at.bi;
  rows.count[n] = at.count;
  rows.tp[n] = at.tp;
  rows.pp[n] = at.pp;
  rows.dp[n] = at.dp;
  rows.zero[n] = at.sh.zero;
  rows.offload[n] = OFFLOADS.indexOf(at.sh.offload);
  rows.variant[n] = vi;
  rows.mem[n] = n;
  rows.accum[n] = at.accum;
  T.n = n + 1;
}

/** The model-side rows (configuration x layout x engine variant) with their memory, and what was pruned. */
export function buildRows(
  s: Scenario,
  arch: Arch,
  bases: BaseConfig[],
  counts: number[],
  variants: Variant[],
  pause: (() => void) | undefined,
  kept?: Map<string, AlikeEstimates>,
  known?: ShapeVerdicts[],
): { rows: Rows; mem: MemTable; modelPruned: ModelPruned } {
  // grows by doubling: a search keeps a few percent of its layouts
  const T = rowTable(
    4096,
    arch,
    memoryTwinsOf(bases),
    s.job.kind === 'fine-tune' ? s.job.globalBatch : undefined,
  );
  T.kept = kept;
  const add = (at: LayoutVisit) => {
    pause?.();
    const o = bases[at.bi]!.options;
    for (let k = 0; k < at.run.length; k++) {
      const vi = at.run[k]!;
      addRow(T, surfaceOf(T, arch, at.group, o, at, variants, vi), o.batch, at, vi);
    }
  };
  const modelPruned = forEachRunnable(s, arch, bases, counts, variants, add, known);
  T.rows.n = T.n;
  let evaluations = 0;
  for (const sf of T.surfaces.values()) evaluations += sf.evaluations;
  T.mem.evaluations = evaluations;
  return { rows: T.rows, mem: T.mem, modelPruned };
}

/** One layout of one configuration as forEachRunnable visits it (one scratch object, rewritten per visit). */
interface LayoutVisit {
  /** Index of the configuration in `bases`. */
  bi: number;
  /** Its surface group (surfaceGroupsOf: configurations that differ only in micro-batch). */
  group: number;
  count: number;
  tp: number;
  pp: number;
  dp: number;
  sh: Sharding;
  /** Gradient-accumulation steps to reach the job's global batch (1 for inference). */
  accum: number;
  /** The engine variants that run the layout and pass quality (indices into the variants). */
  run: number[];
}

/**
 * Every layout of every configuration that some engine variant runs, with those variants (buildRows and
 * countRows), in search order; returns how many layouts no engine ran and how many lost a variant to
 * quality. Verdicts are per launch group and layout shape (layoutVariants), so a configuration is judged
 * shape by shape and only the layouts of runnable shapes are visited.
 */
function forEachRunnable(
  s: Scenario,
  arch: Arch,
  bases: readonly BaseConfig[],
  counts: readonly number[],
  variants: readonly Variant[],
  f: (at: LayoutVisit) => void,
  known?: ShapeVerdicts[],
): ModelPruned {
  const pruned: ModelPruned = { noEngine: 0, quality: 0, undocumented: 0 };
  const groups = surfaceGroupsOf(bases);
  const classes = engineClassesOf(bases, groups);
  const launches = launchGroupsOf(bases, groups, classes);
  const judge = qualityJudge(s, arch, bases, variants, groups, classes);
  const runs = engineVerdicts(arch, s.search.undocumented === true);
  const layoutsByMethod = new Map<Method, Layout[]>();
  const tables = new Map<Method, Map<number, ShapeTable>>(); // by method, then micro-batch
  const at = emptyVisit();
  const scratch = scratchCopies();
  const order: LayoutOrder = { at: new Int32Array(0) };
  bases.forEach((b, bi) => {
    const o = b.options;
    const layouts = layoutsFor(layoutsByMethod, s, arch, o.method, counts);
    const table = tableOf(tables, s, layouts, o);
    let probe: EstimateOptions | null = null; // layoutVariants' scratch copy, for a shape not judged yet
    // GRPO server mode: the layout is the trainers'; the vLLM server's GPUs come on top (at most half).
    const server = serverGpus(o);
    const maxCount = maxSearchedGpus(s);
    const least = s.hardware.counts.min; // trainers below it only with a server (leastTrainingGpus)
    runs.base = launches[(at.group = groups[bi]!)]!;
    const slot = o.batch > 1 ? SHAPES : 0; // a micro-batch of 1 gets its own verdicts (EngineVerdicts)
    runs.engineBase = classes[at.group]!;
    const mine = known && (known[runs.base] ??= keptVerdicts());
    at.bi = bi;
    const accept = (vi: number) => judge(bi, vi);
    const counted = searchedOf(table, server, least); // a pruned shape's layouts, counted once per table
    for (let k = 0; k < table.shapes.length; k++) {
      const shape = table.shapes[k]!;
      const members = table.members[k]!;
      const first = members[0]!; // answers for all of them (engineRejects reads the shape's bits only)
      const at0 = slot + shape;
      // Another view's verdict for the launch group and shape (SearchMemo.verdicts), else made here and kept.
      if (runs.stamp[at0] !== runs.base && !keptVerdict(runs, mine, at0)) {
        if (!noEngineRuns(runs, shape, at0))
          layoutVariants(
            variants,
            o,
            (probe ??= scratch(at.group, o)),
            layouts[first]!,
            shape,
            slot,
            table.accum[first]!,
            accept,
            runs,
          );
        keepVerdict(runs, mine, at0);
      }
      const verdict = runs.verdict[at0]!;
      if (verdict === LAYOUT_OK) continue; // the layouts searched are counted only where pruned
      const searched = searchedAt(table, counted, k, layouts, server, least);
      if (verdict === LAYOUT_NO_ENGINE) pruned.noEngine += searched;
      else if (verdict === LAYOUT_LOSSY) pruned.quality += searched;
      else if (verdict === LAYOUT_UNDOCUMENTED) pruned.undocumented += searched;
    }
    // The layouts of runnable shapes in search order: every shape of the table has its verdict now.
    const n = runnableLayouts(table, runs.runList, slot, order);
    for (let j = 0; j < n; j++) {
      const i = order.at[j]!;
      const accum = table.accum[i]!;
      const L = layouts[i]!;
      const run = runs.runList[slot + L.shape + (accum > 1 ? 16 : 0)]!;
      if (server > 0 && (L.count < server || L.count + server > maxCount)) continue;
      if (L.count + server < least) continue;
      if (!expertLayout(arch, o, L.tp, L.pp, L.dp)) continue;
      at.count = L.count + server;
      at.tp = L.tp;
      at.pp = L.pp;
      at.dp = L.dp;
      at.sh = L.sh;
      at.accum = accum;
      at.run = run;
      f(at);
    }
  });
  return pruned;
}

/**
 * Whether the configuration's engine class has no engine variant that runs `shape` (engineRunners' list, made
 * for an earlier launch group of the class, is empty); if so the verdict at `at0` is written as layoutVariants
 * would write it (no variant, LAYOUT_NO_ENGINE), without its probe: the launch group's own checks (launcher,
 * quality) are asked only of engineRunners' variants.
 */
function noEngineRuns(runs: EngineVerdicts, shape: number, at0: number): boolean {
  if (runs.engineStamp[shape] !== runs.engineBase) return false;
  const none = runs.engineRun[shape]!;
  if (none.length > 0) return false;
  runs.stamp[at0] = runs.base;
  runs.verdict[at0] = LAYOUT_NO_ENGINE;
  runs.runList[at0] = none;
  return true;
}

/** Takes another view's verdict for the shape at `at0` into `runs` where one is kept (SearchMemo.verdicts). */
function keptVerdict(runs: EngineVerdicts, mine: ShapeVerdicts | undefined, at0: number): boolean {
  const v = mine ? mine.verdict[at0]! : -1;
  if (v < 0) return false;
  runs.stamp[at0] = runs.base;
  runs.verdict[at0] = v;
  runs.runList[at0] = mine!.run[at0]!;
  return true;
}

/** Keeps the verdict just made for the shape at `at0` for later views. */
function keepVerdict(runs: EngineVerdicts, mine: ShapeVerdicts | undefined, at0: number): void {
  if (!mine) return;
  mine.verdict[at0] = runs.verdict[at0]!;
  mine.run[at0] = runs.runList[at0]!;
}

/** forEachRunnable's scratch visit, before its first layout. */
const emptyVisit = (): LayoutVisit => ({
  bi: 0,
  group: 0,
  count: 0,
  tp: 1,
  pp: 1,
  dp: 1,
  sh: { zero: 0, offload: 'none' },
  accum: 1,
  run: [],
});

/**
 * layoutVariants' scratch copies of configurations' options (it writes the layout and engine fields and may add
 * tiledMlp): a configuration of the group of the last one copied gets that copy back, set to its own options
 * (the same keys in the same order: a group's configurations differ in micro-batch only), instead of a new one.
 */
function scratchCopies(): (group: number, o: EstimateOptions) => EstimateOptions {
  let copy: EstimateOptions | null = null;
  let of = -1;
  return (group, o) => {
    if (copy === null || of !== group) {
      of = group;
      return (copy = growableCopy(o));
    }
    const c = copy as unknown as Record<string, unknown>;
    const from = o as unknown as Record<string, unknown>;
    for (const k in c) if (!(k in from)) delete c[k]; // keys layoutVariants added (tiledMlp)
    for (const k in from) c[k] = from[k];
    return copy;
  };
}

/** layoutVariants' verdict besides the variants it lists: some engine ran it but quality refused one. */
const LAYOUT_OK = 0;
const LAYOUT_NO_ENGINE = 1;
const LAYOUT_LOSSY = 2;
const LAYOUT_UNDOCUMENTED = 3;

/**
 * Whether `engine` runs a layout only on a path its own guides do not describe (the profile's zeroUndocumented:
 * a ZeRO / FSDP stage the pinned release reads but no guide of the engine documents), on several GPUs.
 */
const undocumentedPath = (engine: Engine, probe: EstimateOptions, dp: number): boolean =>
  dp > 1 && ENGINE_PROFILES[engine].zeroUndocumented?.includes(probe.zero) === true;

/**
 * The engine variants that run one layout of `shape` (layoutsOf, with the accumulation bit), into
 * `runs.runList[shape]` (indices; `accept(vi)` judges quality, which depends on the configuration and the
 * engine only), cached for the current configuration group (the caller reads the cache first). `probe` is
 * a scratch copy of the configuration's options, mutated here so the hot loop allocates nothing. Returns
 * LAYOUT_NO_ENGINE when no engine runs the layout, LAYOUT_LOSSY when some engine's run was refused on
 * quality, LAYOUT_UNDOCUMENTED when some engine runs it only on an undocumented path the scenario did not opt
 * into (search.undocumented), else LAYOUT_OK.
 */
function layoutVariants(
  variants: readonly Variant[],
  base: EstimateOptions,
  probe: EstimateOptions,
  L: Layout,
  shape: number,
  slot: number,
  accum: number,
  accept: (vi: number) => boolean,
  runs: EngineVerdicts,
): number {
  // Behaviour rules read the data-parallel degree (gpus / (tp*pp*cp)) and the accumulation; like the
  // engine checks they may read only what a shape fixes: dp > 1, tp, pp, ZeRO, offload and accum > 1.
  probe.gpus = L.count + serverGpus(base);
  probe.tp = L.tp;
  probe.pp = L.pp;
  probe.zero = L.sh.zero;
  probe.offload = L.sh.offload;
  const out: number[] = [];
  let ran = false;
  let lossy = false;
  let undocumented = false;
  const candidates = engineRunners(runs, variants, base, probe, L, shape, accum);
  for (let k = 0; k < candidates.length; k++) {
    const vi = candidates[k]!;
    const v = variants[vi]!;
    probe.optimizerInBackward = v.optimizerInBackward;
    probe.liger = v.liger;
    probe.tiledMlp = v.tiledMlp;
    // The engine runs it (engineRunners), and vramplan's launcher for that engine can write it
    // (launch/index.ts); its checks read the engine's fields (its LoRA targets too), written first.
    if (launchBlocker(blockerInput(runs, probe, v.engine, base, accum), v.engine) !== null)
      continue;
    ran = true;
    if (!runs.undocumented && undocumentedPath(v.engine, probe, L.dp)) {
      undocumented = true;
      continue;
    }
    if (!accept(vi)) {
      lossy = true;
      continue;
    }
    out.push(vi);
  }
  const verdict = !ran
    ? LAYOUT_NO_ENGINE
    : lossy
      ? LAYOUT_LOSSY
      : undocumented
        ? LAYOUT_UNDOCUMENTED
        : LAYOUT_OK;
  runs.stamp[slot + shape] = runs.base;
  runs.verdict[slot + shape] = verdict;
  runs.runList[slot + shape] = out;
  return verdict;
}

/**
 * The engine variants whose engine runs `shape` (the first layout of it, `L`) for the configuration: those
 * engineRejects accepts (searched on their kernels: an fp8 KV cache where the engine has one), kept by shape for the
 * configuration's engine class (engineClassesOf: engineRejects reads neither the objective's rollout keys,
 * the micro-batch nor the GPU count, only the data-parallel degree and accumulation the shape fixes), so the
 * rollout variants of one configuration share one check per variant and shape. `probe` as layoutVariants has it
 * (the layout written); engineRejects reads none of the fields engineFieldsInto writes.
 */
function engineRunners(
  runs: EngineVerdicts,
  variants: readonly Variant[],
  base: EstimateOptions,
  probe: EstimateOptions,
  L: Layout,
  shape: number,
  accum: number,
): readonly number[] {
  if (runs.engineStamp[shape] === runs.engineBase) return runs.engineRun[shape]!;
  const out: number[] = [];
  const candidates = layoutRunners(runs, variants, base, L, shape);
  for (let k = 0; k < candidates.length; k++) {
    const vi = candidates[k]!;
    const v = variants[vi]!;
    if (base.kvCacheDtype === 'fp8' && !searchesFp8Kv(v.engine)) continue; // searched where the engine's kernels table has one
    if (!runsExpertLayout(v.engine, base)) continue; // TP + EP on engines that offer it
    probe.optimizerInBackward = v.optimizerInBackward;
    probe.liger = v.liger;
    probe.tiledMlp = v.tiledMlp;
    if (engineRejects(v.engine, probe, L.dp, accum, false) === null) out.push(vi);
  }
  runs.engineStamp[shape] = runs.engineBase;
  runs.engineRun[shape] = out;
  return out;
}

/**
 * Per configuration group (surfaceGroupsOf), its engine class: groups whose options agree but for the
 * objective's keys (GRPO's rollout mode, vLLM share and server GPUs) and the micro-batch
 * (memory/objective.ts samePolicyOptions) share one, in order of first appearance.
 */
function engineClassesOf(bases: readonly BaseConfig[], groups: readonly number[]): Int32Array {
  const out = new Int32Array(groups.reduce((n, g) => Math.max(n, g + 1), 0)).fill(-1);
  const first: number[] = []; // a member configuration of each class
  const byFields = new Map<string, number[]>();
  for (let bi = 0; bi < bases.length; bi++) {
    const g = groups[bi]!;
    if (out[g]! >= 0) continue;
    const o = bases[bi]!.options;
    const fields = `${o.method}|${o.weights}|${o.optimizer}|${o.checkpointing}|${o.attention}`;
    let ids = byFields.get(fields);
    if (!ids) byFields.set(fields, (ids = []));
    let id = ids.find((c) => samePolicyOptions(bases[first[c]!]!.options, o, true));
    if (id === undefined) {
      id = first.length;
      first.push(bi);
      ids.push(id);
    }
    out[g] = id;
  }
  return out;
}

/** Option keys no engine, launcher or quality check reads (launchGroupsOf); a group's micro-batches are its own. */
const UNCHECKED = new Set(['rolloutMemory', 'batch']);

/**
 * The keys that can tell apart two configurations of one engine class (samePolicyOptions: alike but for the
 * objective's keys, `gpus` and the micro-batch) less UNCHECKED: alikeOn over them is alikeBut(UNCHECKED) there.
 */
export const LAUNCH_KEYS: readonly string[] = [...RL_KEYS, 'gpus'].filter((k) => !UNCHECKED.has(k));

/**
 * Per configuration group, its launch group: groups of one engine class whose options agree but for vLLM's
 * colocated share (`rolloutMemory`: the launchers write it into TRL's, Axolotl's and Unsloth's configs and
 * check nothing of it), which share every engine, launcher and quality verdict (layoutVariants).
 */
function launchGroupsOf(
  bases: readonly BaseConfig[],
  groups: readonly number[],
  classes: Int32Array,
): Int32Array {
  const out = new Int32Array(classes.length).fill(-1);
  const byClass = new Map<number, number[]>(); // configurations that start a launch group, by engine class
  for (let bi = 0; bi < bases.length; bi++) {
    const g = groups[bi]!;
    if (out[g]! >= 0) continue;
    const o = bases[bi]!.options;
    let firsts = byClass.get(classes[g]!);
    if (!firsts) byClass.set(classes[g]!, (firsts = []));
    const like = firsts.find((f) => alikeOn(bases[f]!.options, o, LAUNCH_KEYS));
    out[g] = like === undefined ? g : groups[like]!;
    if (like === undefined) firsts.push(bi);
  }
  return out;
}

/**
 * The engine variants that do not refuse `shape` (the first layout of it, `L`) for the configuration's
 * method and objective whatever its other options (engines.ts rejectsLayout), made once per search.
 */
function layoutRunners(
  runs: EngineVerdicts,
  variants: readonly Variant[],
  o: EstimateOptions,
  L: Layout,
  shape: number,
): readonly number[] {
  // The last method and objective's lists are the usual answer (a configuration's shapes come in a run).
  let byShape = runs.last;
  if (!byShape || o.method !== runs.lastMethod || o.objective !== runs.lastObjective) {
    const key = `${o.method}/${o.objective}`;
    byShape = runs.runners.get(key) ?? new Array<number[] | undefined>(256);
    runs.runners.set(key, byShape);
    runs.last = byShape;
    runs.lastMethod = o.method;
    runs.lastObjective = o.objective;
  }
  let list = byShape[shape];
  if (!list) {
    list = [];
    for (let vi = 0; vi < variants.length; vi++)
      if (
        !rejectsLayout(
          variants[vi]!.engine,
          o.method,
          o.objective,
          L.dp,
          L.tp,
          L.pp,
          L.sh.zero,
          L.sh.offload,
        ) &&
        !searchSkipsOneRank(variants[vi]!.engine, L.dp, L.sh.zero, L.sh.offload)
      )
        list.push(vi);
    byShape[shape] = list;
  }
  return list;
}

/**
 * layoutVariants' answers for the current launch group (`base`: launchGroupsOf) by micro-batch slot (0 for a
 * micro-batch of 1, SHAPES above: configurations that differ only in micro-batch share them, since
 * engineRejects, launchBlocker and qualityOf read the micro-batch only as "more than 1", as TRL's
 * KTOTrainer does: kto_trainer.py refuses a batch of 1, its KL term pairing completions within it) and layout
 * shape. `stamp` says which entry belongs to which, so moving to the next one needs no clearing. A group's
 * configurations are consecutive (baseConfigs varies the micro-batch innermost), and so are a launch group's
 * groups (the objective configurations vary inside the policy's).
 */
interface EngineVerdicts {
  arch: Arch;
  /** The scenario's search.undocumented: engines' undocumented paths are searched too. */
  undocumented: boolean;
  /** launchBlocker's argument, made once and reused (blockerInput). */
  plan: LaunchPlan | null;
  base: number;
  stamp: Int32Array;
  verdict: Int8Array;
  runList: number[][];
  /** engineRunners' lists by shape, for the engine class `engineStamp` says (engineBase: the current one). */
  engineBase: number;
  engineStamp: Int32Array;
  engineRun: number[][];
  /** layoutRunners' lists by method and objective, then shape. */
  runners: Map<string, (number[] | undefined)[]>;
  /** The lists of the method and objective layoutRunners read last (null: none yet). */
  last: (number[] | undefined)[] | null;
  lastMethod: Method | null;
  lastObjective: EstimateOptions['objective'] | null;
}

/** Layout shapes (Layout.shape with the accumulation bit: below 256), the size of a micro-batch slot. */
const SHAPES = 256;

/** An empty SearchMemo verdict table of one launch group. */
const keptVerdicts = (): ShapeVerdicts => ({
  verdict: new Int8Array(2 * SHAPES).fill(-1),
  run: new Array<number[]>(2 * SHAPES),
});

const engineVerdicts = (arch: Arch, undocumented: boolean): EngineVerdicts => ({
  arch,
  undocumented,
  plan: null,
  base: -1,
  stamp: new Int32Array(2 * SHAPES).fill(-1),
  verdict: new Int8Array(2 * SHAPES),
  runList: new Array<number[]>(2 * SHAPES).fill([]),
  engineBase: -1,
  engineStamp: new Int32Array(256).fill(-1),
  engineRun: new Array<number[]>(256).fill([]),
  runners: new Map(),
  last: null,
  lastMethod: null,
  lastObjective: null,
});

/** The probe on `engine` as launchBlocker reads it (onEngine, in place: the probe's engine fields are scratch). */
function blockerInput(
  runs: EngineVerdicts,
  probe: EstimateOptions,
  engine: Engine,
  base: EstimateOptions,
  accum: number,
): LaunchPlan {
  const options = engineFieldsInto(probe, engine, base);
  if (!runs.plan) return (runs.plan = { arch: runs.arch, options, accum });
  runs.plan.options = options;
  runs.plan.accum = accum;
  return runs.plan;
}

/** A configuration's options on one layout and engine variant (what memory and quality read). */
export const variantOptions = (
  o: EstimateOptions,
  tp: number,
  pp: number,
  sh: Sharding,
  v: Variant,
) =>
  engineFieldsInto(
    {
      ...o,
      tp,
      pp,
      zero: sh.zero,
      offload: sh.offload,
      optimizerInBackward: v.optimizerInBackward,
      liger: v.liger,
      ...(v.tiledMlp === true ? { tiledMlp: true } : {}),
    },
    v.engine,
  );

/**
 * Quality verdicts per (engine class, engine variant): quality reads neither layout, count, micro-batch nor
 * the objective's rollout keys (qualityOf reads the method, weights, optimizer, KV cache and compute formats,
 * and the engine's fields), so the configuration groups of one engine class (engineClassesOf) share them.
 */
function qualityJudge(
  s: Scenario,
  arch: Arch,
  bases: readonly BaseConfig[],
  variants: readonly Variant[],
  groups: readonly number[],
  classes: Int32Array,
) {
  const accepted = tierRank(s.quality);
  const cache = new Map<number, boolean>();
  return (bi: number, vi: number): boolean => {
    const k = classes[groups[bi]!]! * 64 + vi;
    let ok = cache.get(k);
    if (ok === undefined) {
      // onEngine's options, written into the one copy made here (onEngine would copy it again).
      const vo = engineFieldsInto(
        {
          ...bases[bi]!.options,
          optimizerInBackward: variants[vi]!.optimizerInBackward,
          liger: variants[vi]!.liger,
          ...(variants[vi]!.tiledMlp === true ? { tiledMlp: true } : {}),
        },
        variants[vi]!.engine,
      );
      ok = tierRank(qualityOf(vo, arch.modelType).tier) <= accepted;
      cache.set(k, ok);
    }
    return ok;
  };
}

/**
 * How many candidates buildRows would make for these counts (without estimating their memory): its
 * rows plus its model-side prunes.
 */
export function countRows(
  s: Scenario,
  arch: Arch,
  bases: BaseConfig[],
  counts: number[],
  variants: readonly Variant[],
): number {
  let n = 0;
  const pruned = forEachRunnable(s, arch, bases, counts, variants, (at) => {
    n += at.run.length;
  });
  return n + pruned.noEngine + pruned.quality + pruned.undocumented;
}

function alloc(size: number): Rows {
  return {
    n: 0,
    base: new Int32Array(size),
    count: new Int32Array(size),
    tp: new Int32Array(size),
    pp: new Int32Array(size),
    dp: new Int32Array(size),
    zero: new Int8Array(size),
    offload: new Int8Array(size),
    variant: new Int8Array(size),
    mem: new Int32Array(size),
    accum: new Int32Array(size),
  };
}

function grow(r: Rows): Rows {
  const g = alloc(r.base.length * 2);
  for (const k of [
    'base',
    'count',
    'tp',
    'pp',
    'dp',
    'zero',
    'offload',
    'variant',
    'mem',
    'accum',
  ] as const)
    g[k].set(r[k]);
  return g;
}
