/** The search's context and ranking: limits, rank keys, the kept candidates and prune counts. */
import type { Arch } from '../model/arch.js';
import { ENGINE_PROFILES, engineFieldsInto, engineRejects } from '../engines/engines.js';
import { launchBlocker } from '../launch/index.js';
import { checkpointsOnSpot } from '../launch/spot-resume.js';
import { capsPower } from '../launch/power.js';
import { checkpointBytes, modelLoadOf, type ModelLoad } from '../memory/host-ram.js';
import { type Engine } from '../../schema/engine.js';
import { paramCounts } from '../model/params.js';
import {
  gpuRates,
  modelFacts,
  textOnlyArch,
  type GpuRates,
  type ModelFacts,
  type TimeOptions,
} from '../time/index.js';
import { type CostBasis } from '../time/cost.js';
import { newSearchMemo, type SearchMemo } from './search-memo.js';
import type { ViewMemo } from './view-memo.js';
import { psuEfficiency } from '../hardware/power.js';
import { MiB } from '../units.js';
import { ccOf, gfxOf } from '../engines/kernels.js';
import { defaultOptions, isFloat8Compute, type Method } from '../../schema/estimate.js';
import type { Scenario } from '../../schema/scenario.js';
import type { Gpu } from '../../schema/gpu.js';
import { RANK_KEYS, boardWatts, givenHostRamBytes } from './configs.js';
import type { BaseConfig, MemTable, Rows, Variant } from './configs.js';
import type { PlanCount } from './distinct.js';
import { madeWeightsOf, type MadeWeights } from './made-weights.js';
import { REASONS, costBasisOf } from './types.js';
import type { HardwareOption, PlanInput, ReasonCode } from './types.js';

// ---------------------------------------------------------------------------------------------
// Hardware loop

/** A feasible candidate kept for ranking: indices plus its three objectives. */
export interface Kept {
  row: number;
  hw: number;
  level: number;
  cost: number;
  hours: number;
  watts: number;
  tokensPerSecond: number;
  seq: number; // enumeration order: deterministic tie-break before the id
  /** Other candidates with identical objectives on the same hardware, folded into this one. */
  variants: number;
  /**
   * Hours the plan's GPUs spend making its weights before serving (made-weights.ts GPU-hours over its GPUs; 0 or
   * absent when none are made): ranked on with `hours`, as the cost already bills them.
   */
  makeHours?: number;
}

interface Near {
  row: number;
  hw: number;
  level: number;
  over: number;
  limit: number;
  score: number;
}

export interface LoopState {
  reasons: Float64Array;
  candidates: number;
  feasible: number;
  /** The fewest hours a timed candidate ranks on (rankHours: weights made first included), before the limits. */
  fastest: number;
  top: Kept[];
  front: Kept[];
  near: (Near | null)[];
  lastDominator: number;
  /**
   * Per GPU option and power level (h * MAX_LEVELS + level), the front point that last dominated a candidate
   * there: the next row's candidate on the same GPU and level is most often dominated by it. The point may
   * have left the front since; whatever removed it dominates it, so it still proves a candidate dominated.
   */
  dominators: (Kept | null)[];
  /** Candidates timed so far: orders kept plans found with equal objectives (earlier wins). */
  seq: number;
  /** The distinct plans among the feasible candidates, ranked or not. */
  distinct: PlanCount;
}

/**
 * Why no configuration of the job ran on `engine`: its checks and rules on the job's first method it runs,
 * in the engine's own defaults (the sentence `--framework <engine>` would give), else a generic line.
 */
export function idleReason(s: Scenario, arch: Arch, engine: Engine): string {
  const p = ENGINE_PROFILES[engine];
  const methods: readonly Method[] = s.job.kind === 'inference' ? ['inference'] : s.job.methods;
  const method = methods.find((m) => p.methods.includes(m));
  if (!method) return `runs ${p.methods.join('/')} only`;
  const o = defaultOptions(method);
  if (method === 'full') o.weights = p.fullWeights[0] ?? o.weights;
  else if (!p.baseWeights.includes(o.weights)) o.weights = p.baseWeights[0] ?? o.weights;
  if (!p.zero.includes(o.zero)) o.zero = p.zero[p.zero.length - 1]!;
  o.attention = p.attention.includes(o.attention) ? o.attention : p.attention[0]!;
  // The search picks the optimizer (search.optimizers): an engine's optimizer default is estimate's, not the search's.
  for (const d of p.defaults) if (d.flag !== 'optimizer') d.apply(o);
  if (!p.optimizers.includes(o.optimizer)) o.optimizer = p.optimizers[0]!;
  engineFieldsInto(o, engine);
  return (
    engineRejects(engine, o, 1, 1) ??
    launchBlocker({ arch, options: o }) ??
    'no configuration it runs fits the hardware, the limits and the scenario'
  );
}

export interface Ctx {
  input: PlanInput;
  s: Scenario;
  arch: Arch;
  bases: BaseConfig[];
  rows: Rows;
  mem: MemTable;
  variants: Variant[];
  hw: readonly HardwareOption[];
  levels: number[][]; // per hardware option
  caps: number[]; // circuit continuous watts, ascending
  eff: number;
  P: ReturnType<typeof paramCounts>;
  facts: ModelFacts;
  layers: number;
  memoryEvaluations: number;
  /** Per configuration: FLASH | FP8 (baseBitsOf). */
  baseBits: Uint8Array;
  /** Per engine variant: 1 when its engine has no fp16 path (ENGINE_PROFILES). */
  noFp16Variant: Uint8Array;
  /**
   * Per engine variant: 1 when its guides launch on one machine only (the profile's oneMachineDocumented) and the
   * scenario does not search undocumented paths: a plan over several machines is pruned (loop.ts hardwareGate).
   */
  oneMachineVariant: Uint8Array;
  /** Per configuration: the weights a serving plan must make first (made-weights.ts), or null. */
  made: (MadeWeights | null)[];
  /** Per configuration: the one-off GPU-hours of making them (0: nothing to make, or made on the CPU). */
  makeGpuHours: Float64Array;
  /** The model side's search memo (SearchMemo). */
  memo: SearchMemo;
  /** Figures kept across a re-planning host's views of the model (view-memo.ts), or undefined. */
  views: ViewMemo | undefined;
}

export function makeContext(
  input: PlanInput,
  bases: BaseConfig[],
  rows: Rows,
  mem: MemTable,
  variants: Variant[],
  memo: SearchMemo = newSearchMemo(),
): Ctx {
  const s = input.scenario;
  const caps = input.circuits.map((c) => c.continuousWatts).sort((a, b) => a - b);
  const volts = input.circuits.length > 0 ? Math.min(...input.circuits.map((c) => c.volts)) : 120;
  const P = paramCounts(input.arch);
  const made = bases.map((b) => madeWeightsOf(input.arch, s, b.options.weights, P.total));
  return {
    input,
    s,
    arch: input.arch,
    bases,
    rows,
    mem,
    variants,
    hw: input.hardware,
    levels: input.hardware.map((h) => (h.kind === 'rent' ? [1] : wattLevels(s, h.gpu))),
    caps,
    eff: psuEfficiency(s.power.psu, volts),
    P,
    // A scenario's serving requests carry no images: they run the layers estimateTime times (time/model-facts.ts
    // servedArch), Llama 3.2 Vision's image cross layers skipped.
    facts: modelFacts(s.job.kind === 'inference' ? textOnlyArch(input.arch) : input.arch),
    layers: input.arch.groups.reduce((a, g) => a + g.count, 0),
    memoryEvaluations: mem.evaluations ?? mem.device.length,
    baseBits: baseBitsOf(bases),
    noFp16Variant: Uint8Array.from(variants, (v) => (ENGINE_PROFILES[v.engine].fp16 ? 0 : 1)),
    oneMachineVariant: Uint8Array.from(variants, (v) =>
      ENGINE_PROFILES[v.engine].oneMachineDocumented === true && s.search.undocumented !== true
        ? 1
        : 0,
    ),
    made,
    makeGpuHours: Float64Array.from(made, (m) => m?.gpuHours ?? 0),
    memo,
    views: input.modelSides?.views,
  };
}

/**
 * The scenario's power levels of a GPU as the caps `launch` writes them: whole watts of its board power (0.85 of
 * 450 W is 383 W in power-limit.sh, the plan table and an exported plan's powerLimitW, as `launch --power-limit
 * 0.85` rounds it), so the plan times the cap its folder sets. nvidia-smi -pl takes the limit in watts
 * (https://docs.nvidia.com/deploy/nvidia-smi/index.html); the whole watt is vramplan's unit for it. Highest first,
 * levels that round to one cap once.
 */
function wattLevels(s: Scenario, gpu: Gpu): number[] {
  // A cap the launch folder cannot set is not planned (the planner ranks only what launch writes): nvidia-smi
  // caps NVIDIA GPUs and amd-smi AMD Instinct GPUs (launch/power.ts), so a Radeon or Apple GPU runs at full power.
  if (!capsPower(gpu)) return [1];
  const board = gpu.boardPowerW;
  const levels = s.power.powerLimits.map((l) => (board ? Math.round(l * board) / board : l));
  return [...new Set(levels)].sort((a, b) => b - a);
}

export const MAX_LEVELS = 16;

/** Time settings of hardware option `h` at power `level` (the scenario's rig; kernels: engine defaults). */
export function timeOptionsOf(ctx: Ctx, h: number, level: number, gradAccum: number): TimeOptions {
  return {
    gradAccum,
    powerLimit: level,
    gpusPerNode: ctx.hw[h]?.nodeSize ?? ctx.s.hardware.gpusPerNode,
    interconnect: null,
    interNodeGBps: ctx.s.hardware.interNodeGBps,
    quantFormat: null,
  };
}

/** Decode reads no grad-accum or rig fields beyond the rates; one shared settings object. */
export const PLAN_DECODE_TIME: TimeOptions = {
  gradAccum: 1,
  powerLimit: 1,
  gpusPerNode: 8,
  interconnect: null,
  interNodeGBps: 25,
  quantFormat: null,
};
export const REASON = Object.fromEntries(REASONS.map((r, i) => [r, i])) as Record<
  ReasonCode,
  number
>;

/** Per-GPU-option facts as flat arrays: the row loop reads these instead of catalog objects. */
export interface HwTable {
  H: number;
  nLevels: Int32Array;
  maxCountOf: Float64Array;
  nodeSizeOf: Int32Array;
  isRent: Uint8Array;
  /** Spot capacity where the launch saves periodically to survive a preemption (launch/spot-resume.ts, cost.ts spotSaveHours). */
  isSpot: Uint8Array;
  basis: CostBasis[];
  noFlash: Uint8Array;
  noBf16: Uint8Array;
  noFp8: Uint8Array;
  /**
   * Apple GPUs (Metal / MPS): engines with no Apple GPU path, and quantized weights the engine's quantization path
   * does not run there, are kept off them (engines/apple.ts).
   */
  apple: Uint8Array;
  /** Compute capability (0: not CUDA). */
  cc: Float64Array;
  /** AMD GPUs: the gfx target the engines' ROCm kernel tables are read for (null: CUDA, Apple). */
  gfx: (string | null)[];
  /** Usable bytes per GPU (capacity less the scenario's memory margin). */
  capBytes: Float64Array;
  /** Bytes per GPU (the host-RAM default scales with it). */
  gpuBytes: Float64Array;
  boardW: Float64Array;
  /** Rates of each GPU option at each power level (index h * MAX_LEVELS + l): computed once. */
  rates: GpuRates[];
  /**
   * Per GPU option and level (h * MAX_LEVELS + l): the index of its rates object among the distinct ones (ratesOf:
   * the offers of one GPU type at one node size and level share one), -1 for an unused slot.
   */
  rateIds: Int32Array;
  /** How many distinct rates objects `rates` holds; fewer than the slots used where options share them. */
  distinctRates: number;
}

export function hwTableOf(ctx: Ctx): HwTable {
  const { s, hw } = ctx;
  const H = hw.length;
  const t: HwTable = {
    H,
    nLevels: new Int32Array(H),
    maxCountOf: new Float64Array(H),
    nodeSizeOf: new Int32Array(H),
    isRent: new Uint8Array(H),
    isSpot: new Uint8Array(H),
    basis: new Array<CostBasis>(H),
    noFlash: new Uint8Array(H),
    noBf16: new Uint8Array(H),
    noFp8: new Uint8Array(H),
    apple: new Uint8Array(H),
    cc: new Float64Array(H),
    gfx: new Array<string | null>(H).fill(null),
    capBytes: new Float64Array(H),
    gpuBytes: new Float64Array(H),
    boardW: new Float64Array(H),
    rates: new Array<GpuRates>(H * MAX_LEVELS),
    rateIds: new Int32Array(H * MAX_LEVELS).fill(-1),
    distinctRates: 0,
  };
  const made: Parameters<typeof ratesOf>[0] = [];
  for (let h = 0; h < H; h++) {
    const opt = hw[h]!;
    const g = opt.gpu;
    t.nLevels[h] = ctx.levels[h]!.length;
    t.maxCountOf[h] = opt.maxCount;
    t.nodeSizeOf[h] = opt.nodeSize;
    t.isRent[h] = opt.kind === 'rent' ? 1 : 0;
    t.isSpot[h] = opt.kind === 'rent' && checkpointsOnSpot(opt.offer) ? 1 : 0;
    t.basis[h] = costBasisOf(opt);
    t.noFlash[h] = g.supportsFlashAttention2 ? 0 : 1;
    t.noBf16[h] = g.supportsBf16 ? 0 : 1;
    t.noFp8[h] = g.supportsFp8 ? 0 : 1;
    t.apple[h] = g.vendor === 'apple' ? 1 : 0;
    t.cc[h] = ccOf(g.computeCapability);
    t.gfx[h] = gfxOf(g.computeCapability);
    t.capBytes[h] = g.memoryMiB * MiB * (1 - s.limits.memoryMargin);
    t.gpuBytes[h] = g.memoryMiB * MiB;
    t.boardW[h] = boardWatts(g);
    ctx.levels[h]!.forEach((lv, l) => {
      const rates = (t.rates[h * MAX_LEVELS + l] = ratesOf(made, ctx, h, lv));
      t.rateIds[h * MAX_LEVELS + l] = made.findIndex((m) => m.rates === rates);
    });
  }
  t.distinctRates = made.length;
  return t;
}

/**
 * gpuRates of option `h` at power level `lv`: one object for the options that give it the same GPU, node size
 * and level (the offers of one GPU type: gpuRates reads only the GPU and those time options), so that work
 * timed per rates object (time/objective.ts policy steps and rollout decodes) is timed once for all of them.
 */
function ratesOf(
  made: { g: Gpu; node: number; lv: number; rates: GpuRates }[],
  ctx: Ctx,
  h: number,
  lv: number,
): GpuRates {
  const g = ctx.hw[h]!.gpu;
  const t = timeOptionsOf(ctx, h, lv, 1);
  const node = t.gpusPerNode;
  for (const m of made) if (m.g === g && m.node === node && m.lv === lv) return m.rates;
  // A plan never runs bf16 on a GPU without it (results.ts writes fp16 there, loop.ts drops engines that cannot):
  // its rows are timed at the 16-bit tensor rate, not the emulated bf16 one.
  const { gemmBf16Emulated: _, ...rates } = gpuRates(g, t, ctx.s.job.kind === 'inference');
  made.push({ g, node, lv, rates });
  return rates;
}

/** The scenario's limits and per-job facts, read once per search. */
export interface Limits {
  training: boolean;
  totalTokens: number;
  maxSlow: number;
  budget: number;
  deadline: number;
  hostRamGiven: number | null;
  ckptBytes: number;
  /** What loading the model reads (host-ram.ts ModelLoad): built once, so the per-row host check allocates nothing. */
  load: ModelLoad;
  rankIdx: readonly number[];
  keep: number;
  fastestKnown: number;
  /** Largest GPU count of any row (sizes the circuit-check cache). */
  maxCount: number;
}

export function limitsOf(ctx: Ctx, fastestKnown: number, keep: number): Limits {
  const { s, rows } = ctx;
  const job = s.job;
  const training = job.kind === 'fine-tune';
  let maxCount = 0;
  for (let r = 0; r < rows.n; r++) if (rows.count[r]! > maxCount) maxCount = rows.count[r]!;
  return {
    training,
    totalTokens: training ? job.datasetTokens * job.epochs : 0,
    maxSlow: s.limits.maxSlowdown ?? Infinity,
    budget: s.limits.budgetUsd ?? Infinity,
    deadline: s.limits.deadlineHours ?? Infinity,
    hostRamGiven: givenHostRamBytes(s),
    ckptBytes: checkpointBytes(ctx.arch, ctx.P.total),
    load: modelLoadOf(ctx.arch, ctx.P.total),
    rankIdx: RANK_KEYS[s.rank],
    keep,
    fastestKnown,
    maxCount,
  };
}

/** A kept candidate's value of rank key `j` (RANK_KEYS: 0 cost, 1 hours, 2 wall watts). */
export const rankValue = (k: Kept, j: number): number =>
  j === 0 ? k.cost : j === 1 ? rankHours(k) : k.watts;

/** Objective of a kept candidate by rank position (0 = primary key). */
function keyOf(lim: Limits, k: Kept, i: number): number {
  return rankValue(k, lim.rankIdx[i]!);
}

/**
 * The hours a plan ranks on: its job's hours and those its GPUs spend first making its weights (a quantized copy
 * nobody publishes, made-weights.ts), which the job cannot start before.
 */
export const rankHours = (k: { hours: number; makeHours?: number }): number =>
  k.hours + (k.makeHours ?? 0);

/** The candidate's three objectives in rank order (scratch, rewritten per feasible candidate). */
export interface RankKeys {
  k0: number;
  k1: number;
  k2: number;
}

/**
 * A timed candidate's objectives and throughput (one scratch per search pass, rewritten per candidate): the
 * hot path passes it by reference, so no number is boxed per call.
 */
export interface Objectives {
  cost: number;
  hours: number;
  watts: number;
  tps: number;
  /** Kept.makeHours of the candidate. */
  makeHours: number;
}

export function rankKeysInto(lim: Limits, c: Objectives, out: RankKeys) {
  // Indexed reads, not a destructuring pattern: until the loop is compiled, a pattern runs the array iterator,
  // one result object per element and call.
  const r = lim.rankIdx;
  const j0 = r[0]!;
  const j1 = r[1]!;
  const j2 = r[2]!;
  const hours = rankHours(c);
  out.k0 = j0 === 0 ? c.cost : j0 === 1 ? hours : c.watts;
  out.k1 = j1 === 0 ? c.cost : j1 === 1 ? hours : c.watts;
  out.k2 = j2 === 0 ? c.cost : j2 === 1 ? hours : c.watts;
}

/**
 * Plans within this share of the best plan's first rank key are a tie the model cannot call: its time figures are
 * within a median 10% of published runs (docs/time-model.md), far more than 1%.
 */
export const NEAR_TIE = 0.01;

/**
 * The first rank key up to which the top list holds every candidate: NEAR_TIE past its `keep`-th plan. The ranking
 * reorders near-ties in windows (results.ts), and a window that starts at or before the last plan shown reaches
 * NEAR_TIE past it, so plan N is the same whatever --top asks for.
 */
export function tieEdge(lim: Limits, top: readonly Kept[]): number {
  return keyOf(lim, top[lim.keep - 1]!, 0) * (1 + NEAR_TIE);
}

/** Drop the plans past the `keep`-th whose first rank key lies beyond the tie edge. */
export function trimPastTies(lim: Limits, top: Kept[]): void {
  if (top.length <= lim.keep) return;
  const edge = tieEdge(lim, top);
  while (top.length > lim.keep && keyOf(lim, top[top.length - 1]!, 0) > edge) top.pop();
}

/** Whether a full top list's last plan ranks at or before the candidate (so it stays out). */
export function notBetterThanWorst(lim: Limits, top: readonly Kept[], c: RankKeys): boolean {
  const w = top[top.length - 1]!;
  const w0 = keyOf(lim, w, 0);
  if (c.k0 > w0) return true;
  if (c.k0 === w0) {
    const w1 = keyOf(lim, w, 1);
    if (c.k1 > w1 || (c.k1 === w1 && c.k2 >= keyOf(lim, w, 2))) return true;
  }
  return false;
}

/** Same objectives on the same hardware: a variant of a kept plan (earlier = preferred choice); counted there. */
export function foldedIntoKept(top: readonly Kept[], h: number, l: number, c: Objectives): boolean {
  for (let i = 0; i < top.length; i++) {
    const p = top[i]!;
    if (
      p.cost === c.cost &&
      p.hours === c.hours &&
      p.watts === c.watts &&
      p.hw === h &&
      p.level === l
    ) {
      p.variants++;
      return true;
    }
  }
  return false;
}

/** Where the candidate goes in the ranked top list: after every plan that ranks at or before it. */
export function rankedSlot(lim: Limits, top: readonly Kept[], c: RankKeys): number {
  let i = top.length;
  while (i > 0) {
    const p = top[i - 1]!;
    const a0 = keyOf(lim, p, 0);
    if (a0 < c.k0) break;
    if (a0 === c.k0) {
      const a1 = keyOf(lim, p, 1);
      if (a1 < c.k1 || (a1 === c.k1 && keyOf(lim, p, 2) <= c.k2)) break;
    }
    i--;
  }
  return i;
}

/** Count a pruned candidate under its reason, and remember the nearest miss of that reason. */
export function prune(
  st: LoopState,
  code: number,
  n: number,
  row: number,
  h: number,
  l: number,
  over: number,
  limit: number,
  score: number,
): void {
  st.reasons[code] = st.reasons[code]! + n;
  const cur = st.near[code];
  if (!cur || score < cur.score) st.near[code] = { row, hw: h, level: l, over, limit, score };
}

// baseBits: what the hardware gate reads of a configuration, read per row from one typed array (the
// configurations' options objects take several V8 shapes, which cost the search loop deopts).
export const FLASH = 1;

export const FP8 = 2;

export const baseBitsOf = (bases: readonly BaseConfig[]): Uint8Array =>
  Uint8Array.from(
    bases,
    ({ options: o }) =>
      (o.attention === 'flash' ? FLASH : 0) |
      // FP8 weights, or FP8 training (kernels/float8.ts): GPUs with FP8 tensor cores only.
      (o.weights === 'fp8' || isFloat8Compute(o.compute) ? FP8 : 0),
  );
