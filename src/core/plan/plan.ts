/**
 * The planner: every way to do the job, evaluated flat through one loop, ranked by the scenario's
 * preference with a Pareto front over (cost, slowdown, power). Pure: data in, PlanResult out.
 *
 * Model side (method × weights × optimizer × checkpointing × attention × micro-batch × sharding × tp/pp ×
 * count) is enumerated apart from the hardware side (GPU option × power limit). Memory depends only on the
 * model side, so estimateMemory runs once per distinct (configuration, layout) and feasibility per GPU is
 * one comparison. The hot loop allocates nothing per pruned candidate: reasons are counted by code.
 */
import type { Arch } from '../model/arch.js';
import { engineOf } from '../engines/engine.js';
import { ligerPatches } from '../engines/hf/liger.js';
import {
  enginesNamed,
  ENGINE_PROFILES,
  engineFieldsInto,
  engineRejects,
  onEngine,
} from '../engines/engines.js';
import { launchable, launchBlocker, type LaunchPlan } from '../launch/index.js';
import {
  checkpointBytes,
  defaultHostRamBytes,
  hostRamOf,
  hostRamOfOptions,
  type HostRam,
} from '../memory/host-ram.js';

export { checkpointBytes };
import { qualityOf, tierRank, type Quality } from './quality.js';
import { sloNearestOf, type SloNearest } from './slo.js';
import { ENGINES, type Engine } from '../../schema/engine.js';
import {
  estimateMemory,
  policyMemo,
  type Breakdown,
  type MemoryEstimate,
  type Phase,
} from '../memory/memory.js';
import { memorySurface, onCapacity, type MemorySurface } from '../memory/surface.js';
import { fitDeviceBytes } from '../memory/paged.js';
import type { PolicyMemory } from '../memory/objective.js';
import { maxSearchedGpus, objectiveConfigs, serverGpus, withObjectiveConfig } from './objective.js';
import { replicaShares, servesConcurrency } from './replicas.js';
import { grpoTokens } from '../../schema/objective-job.js';
import {
  estimateObjectiveTime,
  objectiveStep,
  objectiveWork,
  type ObjectiveWork,
} from '../time/objective.js';
import { isPreferenceOrRl, type KvCacheDtype } from '../../schema/estimate.js';
import { paramCounts } from '../model/params.js';
import { moeDispatchFactor, slowdownFactors, type SlowdownFactor } from '../time/slowdown.js';
import {
  attentions,
  checkpointings,
  gpuCounts,
  microBatches,
  nativeWeights,
  optimizers,
  pipelineParallelisms,
  shardings,
  tensorParallelisms,
  weightDtypes,
} from './candidates.js';
import {
  decodeStep,
  servingTime,
  estimateTime,
  gpuRates,
  modelFacts,
  trainStep,
  trainWork,
  type Bound,
  type GpuRates,
  type ModelFacts,
  type QuantFormat,
  type TimeOptions,
  type TimeResult,
  type TrainWork,
} from '../time/index.js';
import {
  billingOf,
  jobCostUsd,
  overheadHours,
  type CostBasis,
  type CostParts,
} from '../time/cost.js';
import {
  circuitOverWatts,
  firstFit,
  nodeWallWatts,
  planWallWatts,
  type NodeWatts,
  psuEfficiency,
  reportedOrder,
  type CircuitCap,
} from '../hardware/power.js';
import { MiB, GiB } from '../units.js';
import { servingOf, type Serving } from '../estimate.js';
import { ccOf, minComputeCapability, minKvCapability, searchesFp8Kv } from '../engines/kernels.js';
import {
  defaultOptions,
  isGguf,
  promptTokensOf,
  type EstimateOptions,
  type Method,
  type WeightDtype,
} from '../../schema/estimate.js';
import type { Gpu } from '../../schema/gpu.js';
import type { Offer } from '../../schema/offer.js';
import type { RankBy, Scenario } from '../../schema/scenario.js';
import { jobLoraTargets } from '../../schema/scenario.js';

// ---------------------------------------------------------------------------------------------
// Inputs and outputs

/** A way to get GPUs: ones you own, an offer to rent, or a GPU to buy. */
export interface HardwareOption {
  kind: 'owned' | 'rent' | 'buy';
  gpu: Gpu;
  /** Most GPUs of this option (owned count; Infinity otherwise). */
  maxCount: number;
  /** GPUs per machine; larger counts span nodes. */
  nodeSize: number;
  usdPerGpuHour: number;
  /** Purchase price per GPU (buy, or owned with amortisation); 0 when unknown. */
  purchaseUsd: number;
  offer?: Offer;
}

/** The cost side of a hardware option (cost.ts jobCostUsd). */
const costBasisOf = (h: HardwareOption): CostBasis => ({
  kind: h.kind,
  usdPerGpuHour: h.usdPerGpuHour,
  purchaseUsd: h.purchaseUsd,
  billing: billingOf(h.offer?.provider),
});

/** Everything `plan` needs, resolved by io/ (catalog lookups, detection) beforehand. */
export interface PlanInput {
  scenario: Scenario;
  arch: Arch;
  hardware: readonly HardwareOption[];
  circuits: readonly CircuitCap[];
  /** Plans to return in `plans` (the front is returned whole). Default 10. */
  top?: number;
  /** Called every few thousand rows of the search (the caller throttles what it draws). */
  onProgress?: (p: PlanProgress) => void;
  /**
   * Called between small slices of the search (each layout while rows are built, every 64 rows of the
   * loop), so that a host can pause a search running in the background: the explorer's planner workers
   * wait there while a key is being drawn, which gives the UI the CPU on a machine with few cores.
   */
  pause?: () => void;
}

/** How far the search is: `done` of `total` configuration rows in this pass. */
export interface PlanProgress {
  done: number;
  total: number;
}

/** Why a candidate was pruned; the sentence for each lives in ui/messages.ts. */
export const REASONS = [
  'oom',
  'host-ram',
  'not-enough-gpus',
  'over-max-gpus',
  'partial-node',
  'no-flash-attention',
  'no-fp8',
  'no-quant-kernels',
  'circuit-over',
  'over-budget',
  'over-deadline',
  'too-slow',
  /** No engine runs this combination (core/engines/engines.ts profiles). */
  'no-engine',
  /** Lossier than the scenario's `quality` accepts (core/plan/quality.ts). */
  'quality',
  /** Misses the scenario's service level (job.slo time to first token / per output token, job.requestsPerSecond). */
  'slo',
] as const;
export type ReasonCode = (typeof REASONS)[number];

export interface PlanChoices {
  method: Method;
  weights: EstimateOptions['weights'];
  doubleQuant: boolean;
  compute: EstimateOptions['compute'];
  optimizer: EstimateOptions['optimizer'];
  checkpointing: EstimateOptions['checkpointing'];
  attention: EstimateOptions['attention'];
  microBatch: number;
  gradAccum: number;
  /**
   * Samples per optimizer step the plan runs: micro-batch x accumulation x data-parallel ranks. It equals the
   * scenario's globalBatch whenever the data-parallel degree divides it; otherwise it is the next larger one.
   */
  globalBatch: number;
  zero: EstimateOptions['zero'];
  offload: EstimateOptions['offload'];
  tp: number;
  pp: number;
  dp: number;
  framework: EstimateOptions['framework'];
  /** The concrete engine `launch` writes for this plan, and whose allocations its memory follows. */
  engine: Engine;
  /**
   * Serving plans: the kernel the weights run through (awq_marlin / gptq_marlin as `marlin`, CUTLASS W8A8 as
   * `cutlass`, `bnb`, `gguf`; null for 16-bit), as `estimate --json` reports it in time.settings.quantFormat.
   */
  quantFormat?: QuantFormat | null;
}

export interface Plan {
  /** Stable, human-readable id built from the choices (also the last tie-break). */
  id: string;
  rank: number;
  onFront: boolean;
  /** Other candidates with the same cost, time and power on the same hardware (folded into this plan). */
  variants: number;
  choices: PlanChoices;
  hardware: {
    kind: HardwareOption['kind'];
    gpuId: string;
    gpuName: string;
    gpus: number;
    nodes: number;
    gpusPerNode: number;
    offerId: string | null;
    provider: string | null;
    usdPerGpuHour: number | null;
    powerLimitFraction: number;
    powerLimitW: number;
  };
  memory: {
    deviceBytes: number;
    allocatedBytes: number;
    reservedBytes: number;
    capacityBytes: number;
    headroomBytes: number;
    hostBytesPerGpu: number;
    peakPhase: Phase;
    breakdown: Breakdown;
  };
  /** Host RAM on the busiest node (core/memory/host-ram.ts) and the limit it was checked against. */
  hostRam: HostRam & { limitBytes: number };
  /** Quality tier and the techniques that set it (core/plan/quality.ts). */
  quality: Quality;
  power: {
    gpuWatts: number;
    wallWatts: number;
    perCircuit: { circuit: string; loadW: number; limitW: number }[];
    /**
     * Who placed perCircuit: the search's greedy first-fit, or 'mip' once core/plan/plan-circuits.ts has a
     * placement optimal for the circuit MIP (solved, or exact without a solver: see `solver`). Absent without circuits.
     */
    assignment?: 'mip' | 'greedy';
    /** The circuit MIP's outcome when it was tried; with assignment 'greedy' it says why the greedy placement stayed. */
    solver?: CircuitSolve;
  };
  /**
   * tokensPerSecond: training tokens/s of the whole job (all GPUs), or decode tokens/s of all replicas;
   * the rest is the time model's view of one step (`estimate --json` `time`, same function): what bounds
   * it and seconds by phase (the per-technique costs: recompute, dequantize, offload, gathers...).
   */
  time: {
    tokensPerSecond: number;
    hours: number;
    stepSeconds: number;
    tokensPerSecondPerGpu: number;
    mfu: number;
    bound: Bound;
    phases: { phase: string; seconds: number }[];
    /** MoE models: the engine's expert dispatch and what its loop costs (estimate `time.moe`). */
    moe?: TimeResult['moe'];
    /** Serving: a request's time to first token and per output token (estimate `time`). */
    ttftSeconds?: number;
    tpotSeconds?: number;
  };
  cost: {
    usd: number;
    rentUsd: number;
    energyUsd: number;
    purchaseUsd: number;
    amortisedUsd: number;
  };
  /** "x fastest": job hours over the fastest plan's hours among those considered (1 = fastest). */
  slowdown: number;
  /** Step-time factors of the plan's techniques (slowdown.ts), listed apart from "x fastest". */
  slowdownFactors: SlowdownFactor[];
  /** vLLM plans: the KV pool gpu_memory_utilization leaves per GPU, its tokens and the sequences that fit. */
  serving?: Serving;
  /**
   * The estimate-contract configuration of this plan (what `vramplan estimate` takes): it encodes the engine
   * (`framework`, `zero`; engineOf(options) === choices.engine), its fp32 master copy (`masterWeights`) and
   * optimizer-in-backward, so estimating these options gives this plan's memory bytes exactly.
   */
  options: EstimateOptions;
}

/** Outcome of re-solving one plan's node-to-circuit placement as a MIP. */
export interface CircuitSolve {
  status: 'optimal' | 'infeasible' | 'unsolved' | 'skipped';
  /** 'jslp' | 'highs', or null when no solver ran (skipped, or exact without one). */
  backend: string | null;
  note?: string;
}

/** One kind of serving replica the fleet MIP may use (core/plan/plan-fleet.ts). */
export interface FleetReplica {
  kind: 'owned' | 'rent';
  gpuId: string;
  offerId: string | null;
  /** GPUs one replica occupies (tp × pp). */
  gpusPerReplica: number;
  powerLimitFraction: number;
  /** Decode tokens/s of one replica. */
  tokensPerSecond: number;
  /**
   * Requests/s one replica completes while meeting the plan's TTFT/TPOT (its concurrency over TTFT + output
   * × TPOT, core/plan/slo.ts); null when the plan has no serving times.
   */
  requestsPerSecond?: number | null;
  /** Running cost of one replica: rent, or energy (+ amortisation) for owned GPUs. */
  usdPerHour: number;
  /** The plan these per-replica figures come from. */
  planId: string;
  /** Replicas chosen (0 for candidates left out). */
  count: number;
}

/** Integer replica counts over the feasible serving plans: most tokens/s within the budget per hour. */
export interface Fleet {
  /** 'feasible': the solver stopped at its time limit with a fleet it could not prove best. */
  status: 'optimal' | 'feasible' | 'infeasible' | 'unsolved' | 'skipped';
  backend: string | null;
  budgetUsdPerHour: number | null;
  maxGpus: number | null;
  /** Chosen replicas (count > 0), most tokens/s first. */
  replicas: FleetReplica[];
  /** Replica kinds offered to the MIP (its integer variables). */
  candidates: number;
  tokensPerSecond: number;
  usdPerHour: number;
  gpus: number;
  /** Hours to generate the job's outputTokens with this fleet; null without a fleet. */
  hours: number | null;
  /**
   * job.requestsPerSecond: the demand the fleet must sustain at the SLO (then the MIP minimises $/h instead of
   * maximising tokens/s) and the requests/s the chosen replicas sustain.
   */
  demand?: { requestsPerSecond: number; sustainedRequestsPerSecond: number };
  note?: string;
}

export interface PrunedCount {
  code: ReasonCode;
  count: number;
}

/** One single change that would make a plan feasible, when nothing fits. */
export interface NearestFix {
  code: ReasonCode;
  /** What to change, as data: the GPU and the shortfall or excess. */
  gpuId: string;
  gpus: number;
  method: Method;
  /** Bytes, watts, USD or hours over the limit (unit by code). */
  over: number;
  /** The limit that was exceeded (capacity bytes, circuit W, budget USD, deadline h, slowdown). */
  limit: number;
}

export interface PlanResult {
  schemaVersion: 1;
  scenario: { name: string; model: string; job: Scenario['job']['kind']; rank: RankBy };
  model: { id: string; params: number };
  fits: boolean;
  plans: Plan[];
  /** The Pareto front over (cost, slowdown, wall power), cheapest first. */
  front: Plan[];
  pruned: PrunedCount[];
  searched: {
    candidates: number;
    feasible: number;
    configurations: number;
    memoryEvaluations: number;
  };
  fastestHours: number | null;
  /** For the best plan: the largest micro-batch and sequence length that still fit its GPU. */
  largest: { microBatch: number; seq: number } | null;
  nearestFixes: NearestFix[];
  /**
   * The engines searched, each with why it has no row when no configuration of the job ran on it (its own
   * checks and its libraries' rules, on the job's first method it runs), null when it had rows.
   */
  engines: { engine: Engine; idle: string | null }[];
  /** Inference only, added after plan() by core/plan/plan-fleet.ts (planScenario). */
  fleet?: Fleet;
  /** Serving with job.slo and no plan: the nearest plan's TTFT/TPOT and the most concurrency meeting the SLO. */
  sloNearest?: SloNearest;
}

// ---------------------------------------------------------------------------------------------
// Model side

interface BaseConfig {
  options: EstimateOptions; // gpus/tp/pp/zero/offload filled per row
  idPart: string;
}

const RANK_KEYS: Record<RankBy, [number, number, number]> = {
  // indices into [cost, hours, watts]
  cost: [0, 1, 2],
  time: [1, 0, 2],
  slowdown: [1, 0, 2],
  power: [2, 0, 1],
};

const BNB_WEIGHTS = new Set(['nf4', 'fp4', 'int4', 'int8']);
export const DEFAULT_GPU_WATTS = 150; // assumed draw for GPUs without a published board power (Apple SoCs)

/** Watts one GPU draws uncapped: its board power, or DEFAULT_GPU_WATTS where none is published. */
export const boardWatts = (g: Gpu): number => g.boardPowerW ?? DEFAULT_GPU_WATTS;

/** Host RAM the scenario states (`hardware.hostRamGiB`) in bytes, or null to use the default per node. */
const givenHostRamBytes = (s: Scenario): number | null =>
  s.hardware.hostRamGiB !== undefined ? s.hardware.hostRamGiB * GiB : null;

/** Host RAM a node offers: the stated amount, else the default for its GPUs' memory (host-ram.ts). */
const hostRamLimit = (given: number | null, gpuBytes: number, gpusOnNode: number): number =>
  given ?? defaultHostRamBytes(gpuBytes * gpusOnNode);

// llama.cpp's -ngl searched as eighths of the layers (the most that fits ranks fastest), besides all of them.
const GPU_LAYER_EIGHTHS = [7, 6, 5, 4, 3, 2, 1];

/** The `--gpu-layers` values a serving job searches: all layers (undefined), then eighths (llama.cpp only). */
function gpuLayerChoices(s: Scenario, layers: number): (number | undefined)[] {
  const llama = searchedEngines(s).includes('llama.cpp');
  if (s.job.kind !== 'inference' || !llama || layers < 8) return [undefined];
  return [undefined, ...GPU_LAYER_EIGHTHS.map((k) => Math.round((layers * k) / 8))];
}

/** KV cache dtypes a serving job searches: fp8 beside the model dtype where vLLM or SGLang is searched. */
function kvCacheDtypesOf(s: Scenario): KvCacheDtype[] {
  if (s.job.kind !== 'inference') return ['auto'];
  return searchedEngines(s).some(searchesFp8Kv) ? ['auto', 'fp8'] : ['auto'];
}

function baseConfigs(s: Scenario, arch: Arch): BaseConfig[] {
  const layers = arch.groups.reduce((a, g) => a + g.count, 0);
  const out: BaseConfig[] = [];
  for (const gpuLayers of gpuLayerChoices(s, layers))
    for (const b of baseConfigsAt(s, nativeWeights(arch))) {
      if (gpuLayers === undefined) {
        out.push(b);
        continue;
      }
      // Only GGUF weights run on llama.cpp: other dtypes would only add rows no engine runs.
      if (!isGguf(b.options.weights) && b.options.weights !== 'fp16') continue;
      if (b.options.kvCacheDtype === 'fp8') continue; // searched on vLLM/SGLang only

      out.push({
        options: { ...b.options, gpuLayers },
        idPart: `${b.idPart}/ngl${gpuLayers}`,
      });
    }
  return out;
}

function baseConfigsAt(s: Scenario, native: WeightDtype | null): BaseConfig[] {
  const job = s.job;
  const search = s.search;
  const out: BaseConfig[] = [];
  const methods: Method[] = job.kind === 'inference' ? ['inference'] : job.methods;
  for (const method of methods) {
    const d = defaultOptions(method);
    for (const w of weightDtypes(method, search.weights, native))
      for (const optimizer of optimizers(method, search.optimizers))
        for (const checkpointing of checkpointings(method, search.checkpointing))
          for (const attention of attentions(search.attention))
            for (const objective of objectiveConfigs(s))
              for (const kv of kvCacheDtypesOf(s)) {
                // Micro-batches differ in `batch` only: the first one's options (objective applied once)
                // copied with each batch, the same keys in the same order.
                let first: EstimateOptions | null = null;
                for (const batch of job.kind === 'inference'
                  ? replicaShares(job.concurrency, maxSearchedGpus(s))
                  : microBatches(job.globalBatch, search.microBatches)) {
                  const o: EstimateOptions = first
                    ? { ...first, batch }
                    : configOptions(s, d, w, optimizer, checkpointing, attention, kv, batch);
                  if (first) {
                    if (o.loraTargets) o.loraTargets = [...o.loraTargets];
                  } else {
                    withObjectiveConfig(o, objective);
                    first = { ...o };
                  }
                  const idPart = [
                    method,
                    w.weights + (w.doubleQuant ? '-dq' : ''),
                    method === 'inference' ? '' : optimizer,
                    method === 'inference' ? '' : `ckpt-${checkpointing}`,
                    attention,
                    objective.idPart,
                    kv === 'fp8' ? 'kv-fp8' : '',
                    `mb${batch}`,
                  ]
                    .filter((x) => x !== '')
                    .join('/');
                  out.push({ options: o, idPart });
                }
              }
  }
  return out;
}

/** One configuration's options before its objective (baseConfigsAt). */
function configOptions(
  s: Scenario,
  d: EstimateOptions,
  w: { weights: EstimateOptions['weights']; doubleQuant: boolean },
  optimizer: EstimateOptions['optimizer'],
  checkpointing: EstimateOptions['checkpointing'],
  attention: EstimateOptions['attention'],
  kv: KvCacheDtype,
  batch: number,
): EstimateOptions {
  const job = s.job;
  const o: EstimateOptions = {
    ...d,
    weights: w.weights,
    doubleQuant: w.doubleQuant,
    optimizer,
    checkpointing,
    attention,
    batch,
    seq: job.kind === 'inference' ? job.context : job.seq,
  };
  if (job.kind === 'fine-tune') {
    o.loraRank = job.loraRank;
    const targets = jobLoraTargets(job);
    if (targets === 'all-linear') {
      o.loraAllLinear = true;
      o.loraTargets = ['q', 'k', 'v', 'o', 'gate', 'up', 'down'];
    } else o.loraTargets = [...targets];
  }
  if (job.kind === 'inference' && job.promptTokens !== undefined)
    o.promptTokens = Math.min(job.promptTokens, job.context - 1);
  if (kv === 'fp8') o.kvCacheDtype = kv;
  if (job.kind === 'inference' && job.prefixCaching) o.prefixCacheFraction = job.prefixCaching;
  return o;
}

/** Structure-of-arrays of model-side rows: one configuration on one layout and GPU count. */
interface Rows {
  n: number;
  base: Int32Array;
  count: Int32Array;
  tp: Int32Array;
  pp: Int32Array;
  dp: Int32Array;
  zero: Int8Array;
  offload: Int8Array;
  /** Index into the run's engine variants (VARIANTS). */
  variant: Int8Array;
  mem: Int32Array;
  accum: Int32Array;
}

/** An engine a row runs on, with optimizer-in-backward and Liger's kernels on or off. */
interface Variant {
  engine: Engine;
  optimizerInBackward: boolean;
  liger: boolean;
  /**
   * Without Liger on an engine that searches a Liger twin: skipped for LoRA/QLoRA, where the twin never uses
   * more memory (the frozen output layer gets no weight gradient: engines/hf/liger.ts) and is never slower,
   * so this row could rank under no preference (test/engines/liger.test.ts checks both).
   */
  ligerTwin: boolean;
}

const OFFLOADS = ['none', 'optimizer', 'optimizer+params'] as const;

interface MemTable {
  /** estimateMemory calls made to fill the table. */
  evaluations?: number;
  device: Float64Array;
  host: Float64Array;
  weights: Float64Array;
  kv: Float64Array;
  /** GRPO vllm-colocate rows: vLLM's share and the least it holds (memory/surface.ts onCapacity). */
  share: Float64Array;
  floor: Float64Array;
  /** Rows written on first read (MemorySurface.defer; device NaN until then): their surfaces. */
  deferred: (MemorySurface | undefined)[];
}

function growMem(m: MemTable, size: number): MemTable {
  const g = (a: Float64Array) => {
    const b = new Float64Array(size);
    b.set(a);
    return b;
  };
  return {
    evaluations: m.evaluations,
    device: g(m.device),
    host: g(m.host),
    weights: g(m.weights),
    kv: g(m.kv),
    share: g(m.share),
    floor: g(m.floor),
    deferred: m.deferred,
  };
}

/**
 * The engines a scenario searches: its `search.engines`, else the engines its `search.framework` names,
 * else every engine vramplan launches that runs the job's kind; never one without a launcher.
 */
export function searchedEngines(s: Scenario): Engine[] {
  const named =
    s.search.engines ?? (s.search.framework ? enginesNamed(s.search.framework) : ENGINES);
  const methods: readonly Method[] = s.job.kind === 'inference' ? ['inference'] : s.job.methods;
  return named.filter(
    (e) => launchable(e) && ENGINE_PROFILES[e].methods.some((m) => methods.includes(m)),
  );
}

/**
 * The engine variants a scenario searches (searchedEngines; torchtune also with optimizer-in-backward); Liger
 * on and off for fine-tunes on the engines that load it, when it patches the model type (engines/hf/liger.ts).
 */
export function variantsOf(s: Scenario, arch?: Arch): Variant[] {
  const engines = searchedEngines(s);
  const liger = s.job.kind === 'fine-tune' && arch !== undefined && ligerPatches(arch.modelType);
  const out: Variant[] = [];
  for (const engine of engines) {
    const twin = liger && ENGINE_PROFILES[engine].liger === true;
    out.push({ engine, optimizerInBackward: false, liger: false, ligerTwin: twin });
    if (engine === 'torchtune')
      out.push({ engine, optimizerInBackward: true, liger: false, ligerTwin: false });
    if (twin) out.push({ engine, optimizerInBackward: false, liger: true, ligerTwin: false });
  }
  return out;
}

/** Model-side combinations pruned before the hardware loop (each stands for every GPU option and level). */
interface ModelPruned {
  noEngine: number;
  quality: number;
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
}

function rowTable(size: number, arch: Arch, globalBatch?: number): RowTable {
  const empty = new Float64Array(0);
  const rows = alloc(size);
  const none: MemTable = {
    device: empty,
    host: empty,
    weights: empty,
    kv: empty,
    share: empty,
    floor: empty,
    deferred: [],
  };
  return {
    rows,
    mem: growMem(none, rows.base.length),
    n: 0,
    surfaces: new Map(),
    policies: policyMemo(arch),
    globalBatch,
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
  const { tp, pp, sh } = at;
  const key =
    ((((group * 65 + tp) * 65 + pp) * 4 + sh.zero) * 3 + OFFLOADS.indexOf(sh.offload)) * 64 + vi;
  let surface = T.surfaces.get(key);
  if (!surface) {
    const opts = variantOptions(o, tp, pp, sh, variants[vi]!);
    surface = memorySurface(arch, opts, {}, T.policies, T.globalBatch);
    T.surfaces.set(key, surface);
  }
  return surface;
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
function buildRows(
  s: Scenario,
  arch: Arch,
  bases: BaseConfig[],
  counts: number[],
  variants: Variant[],
  pause: (() => void) | undefined,
): { rows: Rows; mem: MemTable; modelPruned: ModelPruned } {
  // grows by doubling: a search keeps a few percent of its layouts
  const T = rowTable(4096, arch, s.job.kind === 'fine-tune' ? s.job.globalBatch : undefined);
  const modelPruned = forEachRunnable(s, arch, bases, counts, variants, (at) => {
    pause?.();
    const o = bases[at.bi]!.options;
    for (let k = 0; k < at.run.length; k++) {
      const vi = at.run[k]!;
      addRow(T, surfaceOf(T, arch, at.group, o, at, variants, vi), o.batch, at, vi);
    }
  });
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
 * The layouts a micro-batch keeps, grouped by shape (with the accumulation bit): `shapes` lists the shapes
 * present, `members[k]` the layout indices of `shapes[k]` in search order, `accum[i]` layout i's
 * accumulation steps (0: the micro-batch skips it).
 */
interface ShapeTable {
  shapes: number[];
  members: number[][];
  accum: Int32Array;
}

/** forEachRunnable's table for one method's layouts at micro-batch `batch` (idle ranks and unfilled pipelines skipped). */
function shapeTableOf(job: Scenario['job'], layouts: readonly Layout[], batch: number): ShapeTable {
  const accum = new Int32Array(layouts.length);
  const byShape = new Map<number, number[]>();
  for (let i = 0; i < layouts.length; i++) {
    const L = layouts[i]!;
    let a = 1;
    // Serving: each of the layout's replicas serves its share of the concurrency (replicas.ts).
    if (job.kind === 'inference' && !servesConcurrency(job.concurrency, batch, L.dp)) continue;
    if (job.kind === 'fine-tune') {
      if (batch * L.dp > job.globalBatch) continue; // idle ranks
      // The global batch is kept exactly (micro-batch x accumulation x dp); a data-parallel degree that does
      // not divide it runs the next larger batch (choices.globalBatch says so, and time and cost use it).
      if (job.globalBatch % L.dp === 0 && job.globalBatch % (batch * L.dp) !== 0) continue;
      a = Math.ceil(job.globalBatch / (batch * L.dp));
      if (L.pp > 1 && a < L.pp) continue; // pipeline never fills
      // TRL GRPOConfig raises unless the generation batch holds whole groups (flags.ts generationBatchCheck).
      if (job.objective === 'grpo' && (batch * L.dp * a) % grpoTokens(job).generations !== 0)
        continue;
    }
    accum[i] = a;
    const shape = L.shape + (a > 1 ? 16 : 0);
    let m = byShape.get(shape);
    if (!m) byShape.set(shape, (m = []));
    m.push(i);
  }
  return { shapes: [...byShape.keys()], members: [...byShape.values()], accum };
}

/**
 * Every layout of every configuration that some engine variant runs, with those variants (buildRows and
 * countRows), in search order; returns how many layouts no engine ran and how many lost a variant to
 * quality. Verdicts are per configuration group and layout shape (layoutVariants), so a configuration is
 * judged shape by shape and only the layouts of runnable shapes are visited.
 */
function forEachRunnable(
  s: Scenario,
  arch: Arch,
  bases: readonly BaseConfig[],
  counts: readonly number[],
  variants: readonly Variant[],
  f: (at: LayoutVisit) => void,
): ModelPruned {
  const pruned: ModelPruned = { noEngine: 0, quality: 0 };
  const judge = qualityJudge(s, bases, variants);
  const runs = engineVerdicts(arch);
  const groups = surfaceGroupsOf(bases);
  const layoutsByMethod = new Map<Method, Layout[]>();
  const tables = new Map<Method, Map<number, ShapeTable>>(); // by method, then micro-batch
  const at: LayoutVisit = {
    bi: 0,
    group: 0,
    count: 0,
    tp: 1,
    pp: 1,
    dp: 1,
    sh: { zero: 0, offload: 'none' },
    accum: 1,
    run: [],
  };
  let visit = new Int32Array(0);
  bases.forEach((b, bi) => {
    const o = b.options;
    let layouts = layoutsByMethod.get(o.method);
    if (!layouts) layoutsByMethod.set(o.method, (layouts = layoutsOf(s, arch, o.method, counts)));
    let byBatch = tables.get(o.method);
    if (!byBatch) tables.set(o.method, (byBatch = new Map()));
    let table = byBatch.get(o.batch);
    if (!table) byBatch.set(o.batch, (table = shapeTableOf(s.job, layouts, o.batch)));
    const probe = { ...o };
    // GRPO server mode: the layout is the trainers'; the vLLM server's GPUs come on top (at most half).
    const server = serverGpus(o);
    const maxCount = maxSearchedGpus(s);
    runs.base = at.group = groups[bi]!;
    at.bi = bi;
    const accept = (vi: number) => judge(bi, vi);
    if (visit.length < layouts.length) visit = new Int32Array(layouts.length);
    let n = 0;
    for (let k = 0; k < table.shapes.length; k++) {
      const shape = table.shapes[k]!;
      const members = table.members[k]!;
      // The shape's first layout answers for all of them (engineRejects reads the shape's bits only).
      const first = members[0]!;
      const verdict =
        runs.stamp[shape] === runs.base
          ? runs.verdict[shape]!
          : layoutVariants(
              variants,
              o,
              probe,
              layouts[first]!,
              shape,
              table.accum[first]!,
              accept,
              runs,
            );
      if (verdict === LAYOUT_NO_ENGINE) pruned.noEngine += members.length;
      else if (verdict === LAYOUT_LOSSY) pruned.quality += members.length;
      if (runs.runList[shape]!.length > 0)
        for (let j = 0; j < members.length; j++) visit[n++] = members[j]!;
    }
    const order = visit.subarray(0, n).sort(); // typed arrays sort by value, in search order
    for (let j = 0; j < n; j++) {
      const i = order[j]!;
      const L = layouts[i]!;
      const accum = table.accum[i]!;
      if (server > 0 && (L.count < server || L.count + server > maxCount)) continue;
      at.count = L.count + server;
      at.tp = L.tp;
      at.pp = L.pp;
      at.dp = L.dp;
      at.sh = L.sh;
      at.accum = accum;
      at.run = runs.runList[L.shape + (accum > 1 ? 16 : 0)]!;
      f(at);
    }
  });
  return pruned;
}

type Sharding = ReturnType<typeof shardings>[number];

/** A (count, TP, PP, DP, sharding) layout, with the shape engineRejects reads (less the accumulation bit). */
interface Layout {
  count: number;
  tp: number;
  pp: number;
  dp: number;
  sh: Sharding;
  /** tp > 1, pp > 1, dp > 1 (bits 7..5), ZeRO stage and offload (bits 3..0); bit 4 is accum > 1. */
  shape: number;
}

/** Every layout searched for a method, in search order (the micro-batch filters apply per configuration). */
function layoutsOf(s: Scenario, arch: Arch, method: Method, counts: readonly number[]): Layout[] {
  const layers = arch.groups.reduce((a, g) => a + g.count, 0);
  const maxTp = s.hardware.gpusPerNode;
  const llama = searchedEngines(s).includes('llama.cpp');
  const out: Layout[] = [];
  for (const c of counts)
    for (const tp of tensorParallelisms(c, arch, maxTp, s.search.tp))
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

/** layoutVariants' verdict besides the variants it lists: some engine ran it but quality refused one. */
const LAYOUT_OK = 0;
const LAYOUT_NO_ENGINE = 1;
const LAYOUT_LOSSY = 2;

/**
 * The engine variants that run one layout of `shape` (layoutsOf, with the accumulation bit), into
 * `runs.runList[shape]` (indices; `accept(vi)` judges quality, which depends on the configuration and the
 * engine only), cached for the current configuration group (the caller reads the cache first). `probe` is
 * a scratch copy of the configuration's options, mutated here so the hot loop allocates nothing. Returns
 * LAYOUT_NO_ENGINE when no engine runs the layout, LAYOUT_LOSSY when some engine's run was refused on
 * quality, else LAYOUT_OK.
 */
function layoutVariants(
  variants: readonly Variant[],
  base: EstimateOptions,
  probe: EstimateOptions,
  L: Layout,
  shape: number,
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
  for (let vi = 0; vi < variants.length; vi++) {
    const v = variants[vi]!;
    if (base.kvCacheDtype === 'fp8' && !searchesFp8Kv(v.engine)) continue; // searched on vLLM/SGLang only
    probe.optimizerInBackward = v.optimizerInBackward;
    probe.liger = v.liger;
    // Runs on the engine, and vramplan's launcher for that engine can write it (launch/index.ts).
    const runsIt =
      engineRejects(v.engine, probe, L.dp, accum, false) === null &&
      launchBlocker(blockerInput(runs, probe, v.engine, base, accum)) === null;
    if (!runsIt) continue;
    ran = true;
    if (!accept(vi)) {
      lossy = true;
      continue;
    }
    if (v.ligerTwin && base.method !== 'full') continue; // dominated by its Liger twin
    out.push(vi);
  }
  const verdict = !ran ? LAYOUT_NO_ENGINE : lossy ? LAYOUT_LOSSY : LAYOUT_OK;
  runs.stamp[shape] = runs.base;
  runs.verdict[shape] = verdict;
  runs.runList[shape] = out;
  return verdict;
}

/**
 * layoutVariants' answers for the current configuration group (`base`: configurations that differ only in
 * micro-batch, which neither engineRejects, launchBlocker nor qualityOf reads) by layout shape: `stamp`
 * says which group an entry belongs to, so moving to the next one needs no clearing. A group's
 * configurations are consecutive (baseConfigs varies the micro-batch innermost).
 */
interface EngineVerdicts {
  arch: Arch;
  /** launchBlocker's argument, made once and reused (blockerInput). */
  plan: LaunchPlan | null;
  base: number;
  stamp: Int32Array;
  verdict: Int8Array;
  runList: number[][];
}

const engineVerdicts = (arch: Arch): EngineVerdicts => ({
  arch,
  plan: null,
  base: -1,
  stamp: new Int32Array(256).fill(-1),
  verdict: new Int8Array(256),
  runList: new Array<number[]>(256).fill([]),
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
const variantOptions = (o: EstimateOptions, tp: number, pp: number, sh: Sharding, v: Variant) =>
  engineFieldsInto(
    {
      ...o,
      tp,
      pp,
      zero: sh.zero,
      offload: sh.offload,
      optimizerInBackward: v.optimizerInBackward,
      liger: v.liger,
    },
    v.engine,
  );

/** Quality verdicts per (configuration, engine variant): quality reads neither layout nor count. */
function qualityJudge(s: Scenario, bases: readonly BaseConfig[], variants: readonly Variant[]) {
  const accepted = tierRank(s.quality);
  const cache = new Map<number, boolean>();
  return (bi: number, vi: number): boolean => {
    const k = bi * 64 + vi;
    let ok = cache.get(k);
    if (ok === undefined) {
      const vo = onEngine(
        {
          ...bases[bi]!.options,
          optimizerInBackward: variants[vi]!.optimizerInBackward,
          liger: variants[vi]!.liger,
        },
        variants[vi]!.engine,
      );
      ok = tierRank(qualityOf(vo).tier) <= accepted;
      cache.set(k, ok);
    }
    return ok;
  };
}

/**
 * How many candidates buildRows would make for these counts (without estimating their memory): its
 * rows plus its model-side prunes.
 */
function countRows(
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
  return n + pruned.noEngine + pruned.quality;
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

// ---------------------------------------------------------------------------------------------
// Hardware loop

/** A feasible candidate kept for ranking: indices plus its three objectives. */
interface Kept {
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
}

interface Near {
  row: number;
  hw: number;
  level: number;
  over: number;
  limit: number;
  score: number;
}

interface LoopState {
  reasons: Float64Array;
  candidates: number;
  feasible: number;
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
}

/** The search; returns a PlanResult (call-site does I/O). */
export function plan(input: PlanInput): PlanResult {
  const { scenario: s, arch } = input;
  const top = input.top ?? 10;
  const bases = baseConfigs(s, arch);
  const all = gpuCounts(s.hardware.counts.min, s.hardware.counts.max, s.hardware.gpusPerNode);
  const maxGpus = s.limits.maxGpus ?? Infinity;
  const counts = all.filter((c) => c <= maxGpus);
  const variants = variantsOf(s, arch);
  const { rows, mem, modelPruned } = buildRows(s, arch, bases, counts, variants, input.pause);
  const ctx = makeContext(input, bases, rows, mem, variants);
  let fastest = Infinity;
  if (s.limits.maxSlowdown !== undefined) fastest = runLoop(ctx, Infinity, 0).fastest;
  const st = runLoop(ctx, fastest, Math.max(top, 20));
  // Model-side prunes stand for every GPU option and power level they would have met.
  const levels = ctx.levels.reduce((a, l) => a + l.length, 0);
  st.reasons[REASON['no-engine']] = modelPruned.noEngine * levels;
  st.reasons[REASON.quality] = modelPruned.quality * levels;
  st.candidates += (modelPruned.noEngine + modelPruned.quality) * levels;
  if (!Number.isFinite(fastest)) fastest = st.fastest;
  // Counts over limits.maxGpus are not searched, but they are candidates pruned for that reason.
  const over = all.filter((c) => c > maxGpus);
  if (over.length > 0) {
    const n =
      countRows(s, arch, bases, over, variants) * ctx.levels.reduce((a, l) => a + l.length, 0);
    st.reasons[REASON['over-max-gpus']] = st.reasons[REASON['over-max-gpus']]! + n;
    st.candidates += n;
  }
  const result = finish(ctx, st, fastest, top);
  const ran = new Set<number>();
  for (let r = 0; r < rows.n; r++) ran.add(rows.variant[r]!);
  result.engines = [...new Set(variants.map((v) => v.engine))].map((engine) => ({
    engine,
    idle: variants.some((v, vi) => v.engine === engine && ran.has(vi))
      ? null
      : idleReason(s, arch, engine),
  }));
  return result;
}

/**
 * Why no configuration of the job ran on `engine`: its checks and rules on the job's first method it runs,
 * in the engine's own defaults (the sentence `--framework <engine>` would give), else a generic line.
 */
function idleReason(s: Scenario, arch: Arch, engine: Engine): string {
  const p = ENGINE_PROFILES[engine];
  const methods: readonly Method[] = s.job.kind === 'inference' ? ['inference'] : s.job.methods;
  const method = methods.find((m) => p.methods.includes(m));
  if (!method) return `runs ${p.methods.join('/')} only`;
  const o = defaultOptions(method);
  if (method === 'full') o.weights = p.fullWeights[0] ?? o.weights;
  else if (!p.baseWeights.includes(o.weights)) o.weights = p.baseWeights[0] ?? o.weights;
  if (!p.zero.includes(o.zero)) o.zero = p.zero[p.zero.length - 1]!;
  o.attention = p.attention.includes(o.attention) ? o.attention : p.attention[0]!;
  for (const d of p.defaults) d.apply(o);
  if (!p.optimizers.includes(o.optimizer)) o.optimizer = p.optimizers[0]!;
  engineFieldsInto(o, engine);
  return (
    engineRejects(engine, o, 1, 1) ??
    launchBlocker({ arch, options: o }) ??
    'no configuration it runs fits the hardware, the limits and the scenario'
  );
}

interface Ctx {
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
  /** Per configuration: FLASH | FP8 | BNB (baseBitsOf). */
  baseBits: Uint8Array;
  /** Per engine variant: 1 when its engine has no fp16 path (ENGINE_PROFILES). */
  noFp16Variant: Uint8Array;
}

function makeContext(
  input: PlanInput,
  bases: BaseConfig[],
  rows: Rows,
  mem: MemTable,
  variants: Variant[],
): Ctx {
  const s = input.scenario;
  const caps = input.circuits.map((c) => c.continuousWatts).sort((a, b) => a - b);
  const volts = input.circuits.length > 0 ? Math.min(...input.circuits.map((c) => c.volts)) : 120;
  return {
    input,
    s,
    arch: input.arch,
    bases,
    rows,
    mem,
    variants,
    hw: input.hardware,
    levels: input.hardware.map((h) =>
      h.kind === 'rent' ? [1] : [...s.power.powerLimits].sort((a, b) => b - a),
    ),
    caps,
    eff: psuEfficiency(s.power.psu, volts),
    P: paramCounts(input.arch),
    facts: modelFacts(input.arch),
    layers: input.arch.groups.reduce((a, g) => a + g.count, 0),
    memoryEvaluations: mem.evaluations ?? mem.device.length,
    baseBits: baseBitsOf(bases),
    noFp16Variant: Uint8Array.from(variants, (v) => (ENGINE_PROFILES[v.engine].fp16 ? 0 : 1)),
  };
}

const MAX_LEVELS = 16;

/** Time settings of hardware option `h` at power `level` (the scenario's rig; kernels: engine defaults). */
function timeOptionsOf(ctx: Ctx, h: number, level: number, gradAccum: number): TimeOptions {
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
const PLAN_DECODE_TIME: TimeOptions = {
  gradAccum: 1,
  powerLimit: 1,
  gpusPerNode: 8,
  interconnect: null,
  interNodeGBps: 25,
  quantFormat: null,
};
const REASON = Object.fromEntries(REASONS.map((r, i) => [r, i])) as Record<ReasonCode, number>;

/** Per-GPU-option facts as flat arrays: the row loop reads these instead of catalog objects. */
interface HwTable {
  H: number;
  nLevels: Int32Array;
  maxCountOf: Float64Array;
  nodeSizeOf: Int32Array;
  isRent: Uint8Array;
  basis: CostBasis[];
  noFlash: Uint8Array;
  noBf16: Uint8Array;
  noFp8: Uint8Array;
  noBnb: Uint8Array;
  /** Compute capability (0: not CUDA). */
  cc: Float64Array;
  /** Usable bytes per GPU (capacity less the scenario's memory margin). */
  capBytes: Float64Array;
  /** Bytes per GPU (the host-RAM default scales with it). */
  gpuBytes: Float64Array;
  boardW: Float64Array;
  /** Rates of each GPU option at each power level (index h * MAX_LEVELS + l): computed once. */
  rates: GpuRates[];
}

function hwTableOf(ctx: Ctx): HwTable {
  const { s, hw } = ctx;
  const H = hw.length;
  const t: HwTable = {
    H,
    nLevels: new Int32Array(H),
    maxCountOf: new Float64Array(H),
    nodeSizeOf: new Int32Array(H),
    isRent: new Uint8Array(H),
    basis: new Array<CostBasis>(H),
    noFlash: new Uint8Array(H),
    noBf16: new Uint8Array(H),
    noFp8: new Uint8Array(H),
    noBnb: new Uint8Array(H),
    cc: new Float64Array(H),
    capBytes: new Float64Array(H),
    gpuBytes: new Float64Array(H),
    boardW: new Float64Array(H),
    rates: new Array<GpuRates>(H * MAX_LEVELS),
  };
  for (let h = 0; h < H; h++) {
    const opt = hw[h]!;
    const g = opt.gpu;
    t.nLevels[h] = ctx.levels[h]!.length;
    t.maxCountOf[h] = opt.maxCount;
    t.nodeSizeOf[h] = opt.nodeSize;
    t.isRent[h] = opt.kind === 'rent' ? 1 : 0;
    t.basis[h] = costBasisOf(opt);
    t.noFlash[h] = g.supportsFlashAttention2 ? 0 : 1;
    t.noBf16[h] = g.supportsBf16 ? 0 : 1;
    t.noFp8[h] = g.supportsFp8 ? 0 : 1;
    t.noBnb[h] = g.vendor === 'apple' ? 1 : 0;
    t.cc[h] = ccOf(g.computeCapability);
    t.capBytes[h] = g.memoryMiB * MiB * (1 - s.limits.memoryMargin);
    t.gpuBytes[h] = g.memoryMiB * MiB;
    t.boardW[h] = boardWatts(g);
    ctx.levels[h]!.forEach(
      (lv, l) => (t.rates[h * MAX_LEVELS + l] = gpuRates(g, timeOptionsOf(ctx, h, lv, 1))),
    );
  }
  return t;
}

/** The scenario's limits and per-job facts, read once per search. */
interface Limits {
  training: boolean;
  totalTokens: number;
  maxSlow: number;
  budget: number;
  deadline: number;
  hostRamGiven: number | null;
  ckptBytes: number;
  rankIdx: readonly number[];
  keep: number;
  fastestKnown: number;
  /** Largest GPU count of any row (sizes the circuit-check cache). */
  maxCount: number;
}

function limitsOf(ctx: Ctx, fastestKnown: number, keep: number): Limits {
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
    rankIdx: RANK_KEYS[s.rank],
    keep,
    fastestKnown,
    maxCount,
  };
}

/** Objective of a kept candidate by rank position (0 = primary key). */
function keyOf(lim: Limits, k: Kept, i: number): number {
  const j = lim.rankIdx[i]!;
  return j === 0 ? k.cost : j === 1 ? k.hours : k.watts;
}

/** The candidate's three objectives in rank order (scratch, rewritten per feasible candidate). */
interface RankKeys {
  k0: number;
  k1: number;
  k2: number;
}

/**
 * A timed candidate's objectives and throughput (one scratch per search pass, rewritten per candidate): the
 * hot path passes it by reference, so no number is boxed per call.
 */
interface Objectives {
  cost: number;
  hours: number;
  watts: number;
  tps: number;
}

function rankKeysInto(lim: Limits, c: Objectives, out: RankKeys) {
  const [j0, j1, j2] = lim.rankIdx as [number, number, number];
  out.k0 = j0 === 0 ? c.cost : j0 === 1 ? c.hours : c.watts;
  out.k1 = j1 === 0 ? c.cost : j1 === 1 ? c.hours : c.watts;
  out.k2 = j2 === 0 ? c.cost : j2 === 1 ? c.hours : c.watts;
}

/** Whether a full top list's last plan ranks at or before the candidate (so it stays out). */
function notBetterThanWorst(lim: Limits, top: readonly Kept[], c: RankKeys): boolean {
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
function foldedIntoKept(top: readonly Kept[], h: number, l: number, c: Objectives): boolean {
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
function rankedSlot(lim: Limits, top: readonly Kept[], c: RankKeys): number {
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

/** A feasible candidate: onto the Pareto front, and into the ranked top `keep` if it belongs there. */
function keepCandidate(L: Loop, row: number, h: number, l: number): void {
  const { st, lim, keys, cand: c } = L;
  st.feasible++;
  if (lim.keep === 0) return;
  const seq = st.seq;
  addFront(st, row, h, l, c, seq);
  rankKeysInto(lim, c, keys);
  const top = st.top;
  if (top.length >= lim.keep && notBetterThanWorst(lim, top, keys)) return;
  if (foldedIntoKept(top, h, l, c)) return;
  const kept: Kept = {
    row,
    hw: h,
    level: l,
    cost: c.cost,
    hours: c.hours,
    watts: c.watts,
    tokensPerSecond: c.tps,
    seq,
    variants: 0,
  };
  top.splice(rankedSlot(lim, top, keys), 0, kept);
  if (top.length > lim.keep) top.pop();
}

/** Count a pruned candidate under its reason, and remember the nearest miss of that reason. */
function prune(
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

/** What one row (configuration x layout) brings to every GPU option it is tried on. */
interface RowFacts {
  o: EstimateOptions;
  count: number;
  dp: number;
  zero: number;
  device: number;
  host: number;
  /** GRPO vllm-colocate: vLLM's share of each GPU and the least it holds (0, 0 otherwise). */
  share: number;
  floor: number;
  engine: Engine;
  flash: boolean;
  fp8: boolean;
  bnb: boolean;
  /** An fp8 KV cache (engines/kernels.ts minKvCapability). */
  kvFp8: boolean;
  noFp16Engine: boolean;
  /** Least compute capability the engine's kernels for the weights need (engines/kernels.ts; 0: none). */
  minCc: number;
  /** What timing reads, made when the row first fits a GPU option (a third of rows never do). */
  timed: RowTiming | null;
}

interface RowTiming {
  /** The engine's options of the row (master weights, optimizer-in-backward) as memory has them. */
  options: EstimateOptions;
  /** The time model's GPU-independent work (training), or null (inference). */
  work: TrainWork | null;
  /** Preference / RL rows: the objective's work (time/objective.ts), timed instead of `work`. */
  objective: ObjectiveWork | null;
  ownedOverhead: number;
  rentedOverhead: number;
}

function rowFactsOf(ctx: Ctx, r: number): RowFacts {
  const { rows, mem, bases, baseBits } = ctx;
  const bi = rows.base[r]!;
  const vi = rows.variant[r]!;
  const mi = rows.mem[r]!;
  const bits = baseBits[bi]!;
  return {
    o: bases[bi]!.options,
    count: rows.count[r]!,
    dp: rows.dp[r]!,
    zero: rows.zero[r]!,
    device: mem.device[mi]!,
    host: mem.host[mi]!,
    share: mem.share[mi]!,
    floor: mem.floor[mi]!,
    engine: ctx.variants[vi]!.engine,
    flash: (bits & FLASH) !== 0,
    fp8: (bits & FP8) !== 0,
    bnb: (bits & BNB) !== 0,
    kvFp8: bases[bi]!.options.kvCacheDtype === 'fp8',
    noFp16Engine: ctx.noFp16Variant[vi] === 1,
    minCc: Math.max(
      minComputeCapability(ctx.variants[vi]!.engine, bases[bi]!.options.weights),
      minKvCapability(ctx.variants[vi]!.engine, bases[bi]!.options.kvCacheDtype),
    ),
    timed: null,
  };
}

// baseBits: what the hardware gate reads of a configuration, read per row from one typed array (the
// configurations' options objects take several V8 shapes, which cost the search loop deopts).
const FLASH = 1;
const FP8 = 2;
const BNB = 4;

const baseBitsOf = (bases: readonly BaseConfig[]): Uint8Array =>
  Uint8Array.from(
    bases,
    ({ options: o }) =>
      (o.attention === 'flash' ? FLASH : 0) |
      (o.weights === 'fp8' ? FP8 : 0) |
      (BNB_WEIGHTS.has(o.weights) ? BNB : 0),
  );

/** The row's timing facts (made once, on its first fitting GPU option). */
function rowTimingOf(ctx: Ctx, lim: Limits, r: number, f: RowFacts): RowTiming {
  if (f.timed) return f.timed;
  const { rows, P } = ctx;
  const o = f.o;
  const variant = ctx.variants[rows.variant[r]!]!;
  // One options object per row (none per candidate), with the engine's options as memory has them.
  const options: EstimateOptions = engineFieldsInto(
    {
      ...o,
      gpus: f.count,
      tp: rows.tp[r]!,
      pp: rows.pp[r]!,
      zero: f.zero as 0 | 1 | 2 | 3,
      offload: OFFLOADS[rows.offload[r]!]!,
      optimizerInBackward: variant.optimizerInBackward,
      liger: variant.liger,
    },
    f.engine,
  );
  // Per-job fixed time (cost.ts JOB_OVERHEAD): load the checkpoint, save the result (a full fine-tune
  // writes 16-bit weights; adapters are megabytes); rented machines also start up and download it.
  const saved = o.method === 'full' ? P.total * 2 : 0;
  const tOpts = timeOptionsOf(ctx, 0, 1, rows.accum[r]!);
  const rl = lim.training && isPreferenceOrRl(options);
  return (f.timed = {
    options,
    work: lim.training && !rl ? trainWork(ctx.facts, options, tOpts) : null,
    objective: rl ? objectiveWork(ctx.facts, options, tOpts, P.total) : null,
    ownedOverhead: overheadHours(lim.ckptBytes, saved, false),
    rentedOverhead: overheadHours(lim.ckptBytes, saved, true),
  });
}

/** The reason a GPU option cannot run the row at all (before memory), or -1. */
function hardwareGate(t: HwTable, f: RowFacts, h: number): number {
  if (f.count > t.maxCountOf[h]!) return REASON['not-enough-gpus'];
  const nodeSize = t.nodeSizeOf[h]!;
  if (t.isRent[h] === 1 && f.count % nodeSize !== 0 && f.count > 1) return REASON['partial-node'];
  if (f.flash && t.noFlash[h] === 1) return REASON['no-flash-attention'];
  // bf16 plans fall back to fp16 on GPUs without bf16 (materialize); some engines have no fp16.
  if (f.noFp16Engine && t.noBf16[h] === 1 && f.o.compute === 'bf16') return REASON['no-engine'];
  // Serving engines with their own kernel table (engines/kernels.ts: vLLM runs FP8 weight-only on Ampere).
  if (f.minCc > 0)
    return t.cc[h]! < f.minCc ? REASON[f.fp8 || f.kvFp8 ? 'no-fp8' : 'no-quant-kernels'] : -1;
  if (f.fp8 && t.noFp8[h] === 1) return REASON['no-fp8'];
  if (f.bnb && t.noBnb[h] === 1) return REASON['no-quant-kernels'];
  return -1;
}

/** One search pass: its state, inputs, limits, hardware table and reused scratch. */
interface Loop {
  st: LoopState;
  ctx: Ctx;
  lim: Limits;
  t: HwTable;
  overCache: Float64Array;
  tm: Timing;
  wall: NodeWatts;
  keys: RankKeys;
  cand: Objectives;
}

/** A deferred row's memory (MemTable.deferred), written now into the table and its facts. */
function deferredInto(ctx: Ctx, r: number, f: RowFacts): void {
  const { mem, rows } = ctx;
  const mi = rows.mem[r]!;
  mem.deferred[mi]!.into(f.o.batch, rows.dp[r]!, mem, mi);
  f.device = mem.device[mi]!;
  f.host = mem.host[mi]!;
  f.share = mem.share[mi]!;
  f.floor = mem.floor[mi]!;
}

/** Whether the row fits the GPU option's memory and the node's host RAM; prunes it otherwise. */
function fitsMemory(L: Loop, f: RowFacts, r: number, h: number): boolean {
  const { st, lim, t } = L;
  const nl = t.nLevels[h]!;
  const capacity = t.capBytes[h]!;
  if (Number.isNaN(f.device)) deferredInto(L.ctx, r, f);
  const device = onCapacity(f.device, f.share, f.floor, t.gpuBytes[h]!);
  if (device > capacity) {
    const score = device / capacity + f.count * 1e-6;
    prune(st, REASON.oom, nl, r, h, 0, device - capacity, capacity, score);
    return false;
  }
  const nodeSize = t.nodeSizeOf[h]!;
  const perNode = f.count < nodeSize ? f.count : nodeSize;
  const hostNeed = hostRamOf(f.engine, f.zero, perNode, f.host, lim.ckptBytes).perNodeBytes;
  const hostLimit = hostRamLimit(lim.hostRamGiven, t.gpuBytes[h]!, perNode);
  if (hostNeed > hostLimit) {
    const score = hostNeed / hostLimit;
    prune(st, REASON['host-ram'], nl, r, h, 0, hostNeed - hostLimit, hostLimit, score);
    return false;
  }
  return true;
}

/** Hours and tokens/s of a row on one GPU option at one power level (scratch: no allocation). */
function timeAt(
  ctx: Ctx,
  lim: Limits,
  f: RowFacts,
  ft: RowTiming,
  rate: GpuRates,
  rented: boolean,
  out: Timing,
): void {
  if (ft.work || ft.objective) {
    const step = ft.objective
      ? objectiveStep(ctx.facts, ft.objective, PLAN_DECODE_TIME, rate, OBJECTIVE_SCRATCH)
      : trainStep(ft.work!, rate);
    const perStep = ft.objective ? ft.objective.tokensPerStep : ft.work!.tokensPerStep;
    const hours = ((lim.totalTokens / perStep) * step) / 3600;
    out.tps = lim.totalTokens / (hours * 3600);
    out.hours = hours + (rented ? ft.rentedOverhead : ft.ownedOverhead);
    return;
  }
  const job = ctx.s.job;
  const replica = decodeStep(ctx.facts, ft.options, PLAN_DECODE_TIME, rate, false);
  out.tps = replica.tokensPerSecond * f.dp;
  out.hours = job.kind === 'inference' ? job.outputTokens / out.tps / 3600 : 0;
}

interface Timing {
  hours: number;
  tps: number;
}

/** objectiveStep's phases (scratch: the search reads only the step). */
const OBJECTIVE_SCRATCH = { rollout: 0, referenceLogprobs: 0, policyTraining: 0, weightSync: 0 };

/**
 * How far an inference plan misses the scenario's service level, as a fraction over its worst target (0 when
 * it meets them): time to first token and per output token (servingTime), and the requests per second the
 * replicas complete (each replica finishes `batch` requests per request latency: TTFT + output x TPOT).
 */
function sloMiss(ctx: Ctx, f: RowFacts, ft: RowTiming, rate: GpuRates): number {
  const job = ctx.s.job;
  if (job.kind !== 'inference' || (!job.slo && job.requestsPerSecond === undefined)) return 0;
  const sv = servingTime(ctx.facts, ft.options, PLAN_DECODE_TIME, rate);
  let miss = 0;
  if (job.slo?.ttftMs !== undefined) miss = Math.max(miss, (sv.ttft * 1000) / job.slo.ttftMs - 1);
  if (job.slo?.tpotMs !== undefined) miss = Math.max(miss, (sv.tpot * 1000) / job.slo.tpotMs - 1);
  if (job.requestsPerSecond !== undefined) {
    const out = ft.options.seq - promptTokensOf(ft.options);
    const perReplica = ft.options.batch / (sv.ttft + out * sv.tpot);
    miss = Math.max(miss, job.requestsPerSecond / (perReplica * f.dp) - 1);
  }
  return miss;
}

/** Every power level of a row on one GPU option: time, wall power, circuits, limits, then keep. */
function evalLevels(L: Loop, f: RowFacts, r: number, h: number): void {
  const { st, ctx, lim, t, overCache, tm, wall } = L;
  const s = ctx.s;
  const lv = ctx.levels[h]!;
  const rented = t.isRent[h] === 1;
  const nodeSize = t.nodeSizeOf[h]!;
  const ft = rowTimingOf(ctx, lim, r, f);
  for (let l = 0; l < lv.length; l++) {
    st.seq++;
    timeAt(ctx, lim, f, ft, t.rates[h * MAX_LEVELS + l]!, rented, tm);
    const hours = tm.hours;
    const miss = sloMiss(ctx, f, ft, t.rates[h * MAX_LEVELS + l]!);
    if (miss > 0) {
      prune(st, REASON.slo, 1, r, h, l, miss, 1, 1 + miss);
      continue;
    }
    planWallWatts(f.count, nodeSize, t.boardW[h]! * lv[l]!, s.power.systemDrawW, ctx.eff, wall);
    if (!rented && ctx.caps.length > 0) {
      const ci = (h * MAX_LEVELS + l) * (lim.maxCount + 1) + f.count;
      let over = overCache[ci]!;
      if (Number.isNaN(over))
        over = overCache[ci] = circuitOverWatts(wall.full, wall.fullW, wall.lastW, ctx.caps);
      if (over > 0) {
        prune(st, REASON['circuit-over'], 1, r, h, l, over, ctx.caps[ctx.caps.length - 1]!, over);
        continue;
      }
    }
    if (hours < st.fastest) st.fastest = hours;
    const cost = jobCostUsd(t.basis[h]!, hours, f.count, wall.total, s.power);
    if (hours > lim.deadline) {
      prune(st, REASON['over-deadline'], 1, r, h, l, hours - lim.deadline, lim.deadline, hours);
      continue;
    }
    if (cost > lim.budget) {
      prune(st, REASON['over-budget'], 1, r, h, l, cost - lim.budget, lim.budget, cost);
      continue;
    }
    if (hours > lim.maxSlow * lim.fastestKnown) {
      const over = hours / lim.fastestKnown - lim.maxSlow;
      prune(st, REASON['too-slow'], 1, r, h, l, over, lim.maxSlow, hours);
      continue;
    }
    const c = L.cand;
    c.cost = cost;
    c.hours = hours;
    c.watts = wall.total;
    c.tps = tm.tps;
    keepCandidate(L, r, h, l);
  }
}

/**
 * The search loop: every row (configuration x layout) on every GPU option and power level. Gates and
 * memory prune whole GPU options; time, power, circuits and limits prune single candidates.
 */
function runLoop(ctx: Ctx, fastestKnown: number, keep: number): LoopState {
  const st: LoopState = {
    reasons: new Float64Array(REASONS.length),
    candidates: 0,
    feasible: 0,
    fastest: Infinity,
    top: [],
    front: [],
    near: REASONS.map(() => null),
    lastDominator: 0,
    dominators: new Array<Kept | null>(ctx.hw.length * MAX_LEVELS).fill(null),
    seq: 0,
  };
  const lim = limitsOf(ctx, fastestKnown, keep);
  const t = hwTableOf(ctx);
  const L: Loop = {
    st,
    ctx,
    lim,
    t,
    overCache: new Float64Array(t.H * MAX_LEVELS * (lim.maxCount + 1)).fill(NaN),
    tm: { hours: 0, tps: 0 },
    wall: { full: 0, fullW: 0, lastW: 0, total: 0 },
    keys: { k0: 0, k1: 0, k2: 0 },
    cand: { cost: 0.5, hours: 0.5, watts: 0.5, tps: 0.5 }, // fractions: double fields from the start
  };
  const { onProgress, pause } = ctx.input;
  const rows = ctx.rows;
  for (let r = 0; r < rows.n; r++) {
    if (onProgress && (r & 2047) === 0) onProgress({ done: r, total: rows.n });
    if (pause && (r & 63) === 0) pause();
    const f = rowFactsOf(ctx, r);
    for (let h = 0; h < t.H; h++) {
      const nl = t.nLevels[h]!;
      st.candidates += nl;
      const gate = hardwareGate(t, f, h);
      if (gate >= 0) {
        st.reasons[gate] = st.reasons[gate]! + nl;
        continue;
      }
      if (!fitsMemory(L, f, r, h)) continue;
      evalLevels(L, f, r, h);
    }
  }
  return st;
}

/** Keep the Pareto front over (cost, hours, watts); hours stand in for slowdown (same order). */
function addFront(
  st: LoopState,
  row: number,
  hw: number,
  level: number,
  c: Objectives,
  seq: number,
) {
  const f = st.front;
  const { cost, hours, watts } = c;
  // Consecutive candidates are alike: the point that dominated the last one usually dominates this one.
  const slot = hw * MAX_LEVELS + level;
  const d = st.dominators[slot];
  if (d && d.cost <= cost && d.hours <= hours && d.watts <= watts) return;
  const last = f[st.lastDominator];
  if (last && last.cost <= cost && last.hours <= hours && last.watts <= watts) {
    st.dominators[slot] = last;
    return;
  }
  for (let i = 0; i < f.length; i++) {
    const p = f[i]!;
    if (p.cost <= cost && p.hours <= hours && p.watts <= watts) {
      // Dominated or equal (earlier wins). The dominator moves up the list (halfway to the start) so
      // strong points are met first; the front is a set, sorted in finish(), so its order is free.
      const k = i >> 1;
      f[i] = f[k]!;
      f[k] = p;
      st.lastDominator = k;
      st.dominators[slot] = p;
      return;
    }
  }
  let j = 0;
  for (let i = 0; i < f.length; i++) {
    const p = f[i]!;
    if (!(cost <= p.cost && hours <= p.hours && watts <= p.watts)) f[j++] = p;
  }
  f.length = j;
  f.push({ row, hw, level, cost, hours, watts, tokensPerSecond: c.tps, seq, variants: 0 });
}

// ---------------------------------------------------------------------------------------------
// Results

function choicesOf(
  ctx: Ctx,
  row: number,
  hw: number,
): { choices: PlanChoices; options: EstimateOptions } {
  const r = ctx.rows;
  const b = ctx.bases[r.base[row]!]!;
  const g = ctx.hw[hw]!.gpu;
  const zero = r.zero[row]! as 0 | 1 | 2 | 3;
  const offload = OFFLOADS[r.offload[row]!]!;
  const fp16 = b.options.compute === 'bf16' && !g.supportsBf16;
  const compute = fp16 ? 'fp16' : b.options.compute;
  const v = ctx.variants[r.variant[row]!]!;
  const options: EstimateOptions = onEngine(
    {
      ...b.options,
      // Without bf16 the 16-bit weights load as fp16 too (same bytes; what from_pretrained(dtype=) loads).
      weights: fp16 && b.options.weights === 'bf16' ? 'fp16' : b.options.weights,
      compute,
      gpus: r.count[row]!,
      tp: r.tp[row]!,
      pp: r.pp[row]!,
      zero,
      offload,
      optimizerInBackward: v.optimizerInBackward,
      liger: v.liger,
      // GRPO: one generation batch per optimizer step (TRL steps_per_generation = gradient accumulation).
      ...(b.options.objective === 'grpo' && r.accum[row]! > 1
        ? { stepsPerGeneration: r.accum[row]! }
        : {}),
    },
    v.engine,
  );
  return {
    options,
    choices: {
      method: options.method,
      weights: options.weights,
      doubleQuant: options.doubleQuant,
      compute,
      optimizer: options.optimizer,
      checkpointing: options.checkpointing,
      attention: options.attention,
      microBatch: options.batch,
      gradAccum: r.accum[row]!,
      globalBatch: options.batch * r.accum[row]! * r.dp[row]!,
      zero,
      offload,
      tp: options.tp,
      pp: options.pp,
      dp: r.dp[row]!,
      framework: options.framework,
      // By construction (onEngine) the options read back as the variant's engine.
      engine: engineOf(options),
    },
  };
}

function planId(ctx: Ctx, k: { row: number; hw: number; level: number }): string {
  const r = ctx.rows;
  const b = ctx.bases[r.base[k.row]!]!;
  const h = ctx.hw[k.hw]!;
  const level = ctx.levels[k.hw]![k.level]!;
  const where = h.kind === 'rent' ? `rent:${h.offer?.id ?? h.gpu.id}` : `${h.kind}:${h.gpu.id}`;
  const v = ctx.variants[r.variant[k.row]!]!;
  const par = `${v.engine}${v.optimizerInBackward ? '-oib' : ''}${v.liger ? '-liger' : ''}/z${r.zero[k.row]}${r.offload[k.row] ? `-off-${OFFLOADS[r.offload[k.row]!]}` : ''}/tp${r.tp[k.row]}/pp${r.pp[k.row]}`;
  return `${b.idPart}/${par}/${where}x${r.count[k.row]}${h.kind === 'rent' ? '' : `@${Math.round(level * 100)}%`}`;
}

/** Where a plan runs: the GPU option, its count and node shape, and the power cap. */
function planHardware(
  h: HardwareOption,
  count: number,
  level: number,
  gpuW: number,
): Plan['hardware'] {
  return {
    kind: h.kind,
    gpuId: h.gpu.id,
    gpuName: h.gpu.name,
    gpus: count,
    nodes: Math.ceil(count / h.nodeSize),
    gpusPerNode: Math.min(count, h.nodeSize),
    offerId: h.offer?.id ?? null,
    provider: h.offer?.provider ?? null,
    usdPerGpuHour: h.kind === 'rent' ? h.usdPerGpuHour : null,
    powerLimitFraction: level,
    powerLimitW: Math.round(gpuW),
  };
}

/** A plan's memory: the estimate's bytes against the GPU's capacity. */
function planMemory(m: MemoryEstimate, capacity: number): Plan['memory'] {
  return {
    deviceBytes: m.perGpu.deviceBytes,
    allocatedBytes: m.perGpu.allocatedBytes,
    reservedBytes: m.perGpu.reservedBytes,
    capacityBytes: capacity,
    // Paged optimizer states fill the free memory but page out under pressure: room is measured without them.
    headroomBytes: capacity - fitDeviceBytes(m),
    hostBytesPerGpu: m.hostBytesPerGpu,
    peakPhase: m.peakPhase,
    breakdown: m.perGpu.breakdown,
  };
}

/** Host RAM on the plan's busiest node (the same function the search checked) and its limit. */
function planHostRam(ctx: Ctx, h: HardwareOption, o: EstimateOptions, m: MemoryEstimate) {
  const perNode = Math.min(o.gpus, h.nodeSize);
  const need = hostRamOfOptions(ctx.arch, o, ctx.P.total, m.hostBytesPerGpu, h.nodeSize);
  const gpuBytes = h.gpu.memoryMiB * MiB;
  return { ...need, limitBytes: hostRamLimit(givenHostRamBytes(ctx.s), gpuBytes, perNode) };
}

/** A plan's power: its GPUs' capped draw, the wall draw the search found, and the circuit placement. */
function planPower(
  ctx: Ctx,
  h: HardwareOption,
  count: number,
  gpuW: number,
  wallW: number,
): Plan['power'] {
  return {
    gpuWatts: Math.round(gpuW * count),
    wallWatts: Math.round(wallW),
    perCircuit: h.kind === 'rent' ? [] : perCircuit(ctx, count, h.nodeSize, gpuW),
    ...(h.kind !== 'rent' && ctx.input.circuits.length > 0
      ? { assignment: 'greedy' as const }
      : {}),
  };
}

/** The job's figures from the search (hours, tokens/s) beside the time model's view of one step. */
function planTime(k: Kept, t: ReturnType<typeof estimateTime>): Plan['time'] {
  return {
    tokensPerSecond: k.tokensPerSecond,
    hours: k.hours,
    stepSeconds: t.stepSeconds,
    tokensPerSecondPerGpu: t.tokensPerSecondPerGpu,
    mfu: t.mfu,
    bound: t.bound,
    phases: t.phases,
    ...(t.moe ? { moe: t.moe } : {}),
    ...(t.ttftSeconds !== undefined
      ? { ttftSeconds: t.ttftSeconds, tpotSeconds: t.tpotSeconds }
      : {}),
  };
}

/** The searched cost split into its parts (rent, energy, purchase, amortisation) by the same function. */
function planCost(ctx: Ctx, h: HardwareOption, k: Kept, count: number): Plan['cost'] {
  const parts: CostParts = { rentUsd: 0, energyUsd: 0, purchaseUsd: 0, amortisedUsd: 0 };
  jobCostUsd(costBasisOf(h), k.hours, count, k.watts, ctx.s.power, parts);
  return { usd: k.cost, ...parts };
}

/** vLLM plans: a paged-KV engine fills the GPU up to its utilization; the pool it leaves is the answer. */
function planServing(arch: Arch, o: EstimateOptions, capacity: number): Plan['serving'] {
  if (o.method !== 'inference') return undefined;
  return servingOf(estimateMemory(arch, o, { gpuCapacityBytes: capacity }), o);
}

/** A kept candidate as a full Plan: the search's figures plus the estimates it did not need. */
function materialize(ctx: Ctx, k: Kept, fastest: number, onFront: boolean): Plan {
  const { choices, options } = choicesOf(ctx, k.row, k.hw);
  const h = ctx.hw[k.hw]!;
  const level = ctx.levels[k.hw]![k.level]!;
  const count = options.gpus;
  const capacity = h.gpu.memoryMiB * MiB;
  const gpuW = boardWatts(h.gpu) * level;
  const tOpts = timeOptionsOf(ctx, k.hw, level, choices.gradAccum);
  // A colocated vLLM fills its share of this GPU, paged optimizer states what it leaves free (what
  // `estimate` with the GPU reports).
  const m = estimateMemory(
    ctx.arch,
    options,
    options.rollout || options.optimizer.startsWith('paged-') ? { gpuCapacityBytes: capacity } : {},
  );
  const serving = planServing(ctx.arch, options, capacity);
  const t = isPreferenceOrRl(options)
    ? estimateObjectiveTime(ctx.arch, options, h.gpu, tOpts, ctx.P.total)
    : estimateTime(ctx.arch, options, h.gpu, tOpts);
  return {
    id: planId(ctx, k),
    rank: 0,
    onFront,
    variants: k.variants,
    choices:
      options.method === 'inference'
        ? { ...choices, quantFormat: t.settings.quantFormat }
        : choices,
    hardware: planHardware(h, count, level, gpuW),
    memory: planMemory(m, capacity),
    hostRam: planHostRam(ctx, h, options, m),
    quality: qualityOf(options),
    power: planPower(ctx, h, count, gpuW, k.watts),
    time: planTime(k, t),
    cost: planCost(ctx, h, k, count),
    slowdown: fastest > 0 && Number.isFinite(fastest) ? k.hours / fastest : 1,
    slowdownFactors: [
      ...slowdownFactors(ctx.arch, options, h.gpu, tOpts, t.stepSeconds),
      ...moeDispatchFactor(t),
    ],
    ...(serving ? { serving } : {}),
    options,
  };
}

/** Greedy placement of nodes on circuits (smallest first), as the search loop assumed. */
function perCircuit(
  ctx: Ctx,
  count: number,
  nodeSize: number,
  gpuW: number,
): Plan['power']['perCircuit'] {
  const circuits = reportedOrder(ctx.input.circuits);
  const sys = ctx.s.power.systemDrawW;
  const nodeWatts: number[] = [];
  for (let left = count; left > 0; left -= nodeSize)
    nodeWatts.push(nodeWallWatts(Math.min(left, nodeSize), gpuW, sys, ctx.eff));
  const { loads } = firstFit(
    nodeWatts,
    circuits.map((c) => c.continuousWatts),
  );
  return circuits.map((c, i) => ({
    circuit: c.id,
    loadW: Math.round(loads[i]!),
    limitW: c.continuousWatts,
  }));
}

function compareKept(ctx: Ctx, a: Kept, b: Kept, ids: Map<Kept, string>): number {
  const idx = RANK_KEYS[ctx.s.rank];
  const ao = [a.cost, a.hours, a.watts];
  const bo = [b.cost, b.hours, b.watts];
  for (const i of idx) if (ao[i] !== bo[i]) return ao[i]! - bo[i]!;
  if (a.seq !== b.seq) return a.seq - b.seq;
  const ia = ids.get(a)!;
  const ib = ids.get(b)!;
  return ia < ib ? -1 : ia > ib ? 1 : 0;
}

function finish(ctx: Ctx, st: LoopState, fastest: number, top: number): PlanResult {
  const ids = new Map<Kept, string>();
  for (const k of [...st.top, ...st.front]) ids.set(k, planId(ctx, k));
  const frontIds = new Set(st.front.map((k) => ids.get(k)!));
  const ranked = [...st.top].sort((a, b) => compareKept(ctx, a, b, ids)).slice(0, top);
  const plans = ranked.map((k, i) => ({
    ...materialize(ctx, k, fastest, frontIds.has(ids.get(k)!)),
    rank: i + 1,
  }));
  const front = [...st.front]
    .sort(
      (a, b) =>
        a.cost - b.cost ||
        a.hours - b.hours ||
        a.watts - b.watts ||
        (ids.get(a)! < ids.get(b)! ? -1 : 1),
    )
    .map((k) => materialize(ctx, k, fastest, true));
  const pruned = REASONS.map((code, i) => ({ code, count: st.reasons[i]! }))
    .filter((p) => p.count > 0)
    .sort((a, b) => b.count - a.count || (a.code < b.code ? -1 : 1));
  const s = ctx.s;
  const best = plans[0];
  return {
    schemaVersion: 1,
    scenario: { name: s.name, model: s.model, job: s.job.kind, rank: s.rank },
    model: { id: ctx.arch.id, params: ctx.P.total },
    fits: plans.length > 0,
    plans,
    front,
    pruned,
    searched: {
      candidates: st.candidates,
      feasible: st.feasible,
      configurations: ctx.rows.n,
      memoryEvaluations: ctx.memoryEvaluations,
    },
    fastestHours: Number.isFinite(fastest) ? fastest : null,
    largest: best
      ? largestThatFits(
          ctx.arch,
          best.options,
          best.memory.capacityBytes * (1 - s.limits.memoryMargin),
        )
      : null,
    engines: [],
    nearestFixes: plans.length > 0 ? [] : nearestFixes(ctx, st),
    ...(plans.length > 0 ? {} : sloNearestIn(ctx, st)),
  };
}

/** No plan and an SLO: the candidate that missed it least, searched downward in concurrency (slo.ts). */
function sloNearestIn(ctx: Ctx, st: LoopState): { sloNearest?: SloNearest } {
  const n = st.near[REASON.slo];
  const job = ctx.s.job;
  if (!n || job.kind !== 'inference' || !job.slo) return {};
  const { choices, options } = choicesOf(ctx, n.row, n.hw);
  const h = ctx.hw[n.hw]!;
  const tOpts = timeOptionsOf(ctx, n.hw, ctx.levels[n.hw]![n.level]!, 1);
  return { sloNearest: sloNearestOf(ctx.arch, options, h.gpu, tOpts, job.slo, choices.engine) };
}

/** Largest micro-batch and sequence length whose peak still fits `capacity` (memory is monotone in both). */
export function largestThatFits(
  arch: Arch,
  o: EstimateOptions,
  capacity: number,
): { microBatch: number; seq: number } {
  const fits = (x: EstimateOptions) => fitDeviceBytes(estimateMemory(arch, x)) <= capacity;
  const search = (lo: number, max: number, at: (v: number) => EstimateOptions): number => {
    if (!fits(at(lo))) return 0;
    let hi = lo;
    while (hi < max && fits(at(Math.min(max, hi * 2)))) hi = Math.min(max, hi * 2);
    if (hi >= max) return max;
    let bad = Math.min(max, hi * 2);
    while (bad - hi > 1) {
      const mid = Math.floor((hi + bad) / 2);
      if (fits(at(mid))) hi = mid;
      else bad = mid;
    }
    return hi;
  };
  return {
    microBatch: search(o.batch, 65_536, (v) => ({ ...o, batch: v })),
    seq: search(o.seq, 4_194_304, (v) => ({ ...o, seq: v })),
  };
}

function nearestFixes(ctx: Ctx, st: LoopState): NearestFix[] {
  const out: NearestFix[] = [];
  st.near.forEach((n, i) => {
    if (!n) return;
    const r = ctx.rows;
    out.push({
      code: REASONS[i]!,
      gpuId: ctx.hw[n.hw]!.gpu.id,
      gpus: r.count[n.row]!,
      method: ctx.bases[r.base[n.row]!]!.options.method,
      over: n.over,
      limit: n.limit,
    });
  });
  return out;
}
