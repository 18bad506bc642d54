/** The planner's inputs and outputs: hardware options, plans, fleets, prune reasons, the result. */
import type { Arch } from '../model/arch.js';
import type { ModelSides } from './model-side.js';
import type { MadeWeights } from './made-weights.js';
import { type HostRam } from '../memory/host-ram.js';
import { type Quality } from './quality.js';
import { type SloNearest } from './slo.js';
import { type Engine } from '../../schema/engine.js';
import { type Breakdown, type Phase } from '../memory/memory.js';
import type { SlowdownFactor } from '../time/slowdown.js';
import { type Bound, type KernelName, type TimeResult } from '../time/index.js';
import { billingOf, type CostBasis } from '../time/cost.js';
import { type CircuitCap } from '../hardware/power.js';
import { type Serving } from '../estimate.js';
import {
  type EstimateOptions,
  type Method,
  type SpeculativeMethod,
  type WeightDtype,
} from '../../schema/estimate.js';
import type { Gpu } from '../../schema/gpu.js';
import type { Offer } from '../../schema/offer.js';
import type { RankBy, Scenario } from '../../schema/scenario.js';

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
export const costBasisOf = (h: HardwareOption): CostBasis => ({
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
  /** Model sides shared with other searches of this scenario object and model (model-side.ts). */
  modelSides?: ModelSides;
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
  /**
   * Runs only on a path the engine's own guides do not describe (its profile's zeroUndocumented, or several machines
   * where oneMachineDocumented); the scenario's
   * search.undocumented puts such paths back.
   */
  'undocumented',
  /**
   * Flash attention the engine swaps for a model-specific kernel this GPU has no build of (engines/kernels.ts
   * flashCapabilities: gpt-oss on the Hugging Face engines, Hopper only).
   */
  'no-model-flash',
  /**
   * Quantized weights the engine's quantization path does not run on Apple GPUs (engines/apple.ts: its profile's
   * appleWeights, where `estimate --gpu` quotes the source).
   */
  'no-apple-weights',
  /** Kernels the row loads that do not install next to an Apple GPU (Liger's Triton kernels: engines/apple.ts). */
  'no-apple-kernels',
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
   * `cutlass`, `bnb`, `gguf`; on AMD GPUs the engine's own, e.g. `hipblaslt` for FP8 W8A8; null for 16-bit), as
   * `estimate --json` reports it in time.settings.quantFormat.
   */
  quantFormat?: KernelName | null;
  /**
   * MoE serving with DP attention: the data-parallel ranks are one engine, its MoE layers expert parallel over
   * `ep` GPUs (tp x dp). `ep` alone: tensor-parallel attention with the MoE layers expert parallel over the TP group
   * (ep = tp, vLLM --enable-expert-parallel). Absent for every other plan.
   */
  dpAttention?: true;
  ep?: number;
  /** Serving with speculative decoding: the method, draft tokens per step and the acceptance assumed. */
  speculative?: { method: SpeculativeMethod; tokens: number; acceptance: number };
  /**
   * Serving plans whose weights no published checkpoint holds (made-weights.ts): the copy made before serving, the
   * tool that makes it and its one-off GPU-hours (in the cost as `cost.quantizeUsd`). Absent when the weights exist.
   */
  weightsToMake?: MadeWeights;
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
    /** The share of `usd` that makes the weights first (choices.weightsToMake); absent when none are made. */
    quantizeUsd?: number;
  };
  /**
   * "x fastest": the hours the plan ranks on (its job's, plus those its GPUs spend first making its weights,
   * choices.weightsToMake) over the fastest plan's among those considered (1 = fastest); limits.maxSlowdown caps it.
   */
  slowdown: number;
  /** Step-time factors of the plan's techniques (slowdown.ts), listed apart from "x fastest". */
  slowdownFactors: SlowdownFactor[];
  /** vLLM plans: the KV pool gpu_memory_utilization leaves per GPU, its tokens and the sequences that fit. */
  serving?: Serving;
  /**
   * What the plan runs differently from the scenario's job, in sentences (absent when nothing): a global batch
   * rounded up to the next multiple of the data-parallel ranks that do not divide it.
   */
  notes?: string[];
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
  /** Sequences one replica serves: its share of the job's concurrency (replicas.ts), as its plan timed it. */
  concurrency: number;
  powerLimitFraction: number;
  /** Decode tokens/s of one replica. */
  tokensPerSecond: number;
  /**
   * Requests/s one replica completes while meeting the plan's TTFT/TPOT (its concurrency over TTFT + output
   * × TPOT, core/plan/slo.ts); null when the plan has no serving times.
   */
  requestsPerSecond?: number | null;
  /** Running cost of one replica: rent, or energy (+ amortisation) for owned GPUs (a one-off quantize apart). */
  usdPerHour: number;
  /** The plan these per-replica figures come from. */
  planId: string;
  /** The plan's weights are made before serving (its choices.weightsToMake). */
  weightsToMake?: true;
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

/**
 * What a serving fleet reads of a ranked plan (plan-fleet.ts replicaOf): a Plan has it all; planReplicas makes
 * only this, for the fleet's per-source searches.
 */
export interface ReplicaPlan {
  id: string;
  choices: Pick<PlanChoices, 'method' | 'tp' | 'pp' | 'dp' | 'weightsToMake'>;
  hardware: Pick<Plan['hardware'], 'kind' | 'gpuId' | 'offerId' | 'powerLimitFraction'>;
  time: Pick<Plan['time'], 'tokensPerSecond' | 'hours' | 'ttftSeconds' | 'tpotSeconds'>;
  cost: Pick<Plan['cost'], 'usd' | 'quantizeUsd'>;
  options: EstimateOptions;
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
  scenario: {
    name: string;
    model: string;
    job: Scenario['job']['kind'];
    rank: RankBy;
    /** The formats the scenario holds checkpoints in (`job.haveCheckpoints`): `launch --from-plan` makes none. */
    haveCheckpoints?: WeightDtype[];
    /** Fine-tunes: the training tokens planned (launch/common.ts plannedTokens), which `launch --from-plan` writes. */
    trainTokens?: number;
  };
  model: { id: string; params: number };
  fits: boolean;
  plans: Plan[];
  /** The Pareto front over (cost, slowdown, wall power), cheapest first. */
  front: Plan[];
  pruned: PrunedCount[];
  searched: {
    candidates: number;
    feasible: number;
    /** The distinct plans the feasible configurations make (`plans` is the best `top` of them). */
    distinctPlans: number;
    configurations: number;
    memoryEvaluations: number;
  };
  /** The fastest plan's hours among those considered, weights made first included: what `slowdown` divides by. */
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
