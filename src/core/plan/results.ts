/** Turning kept candidates into plans: choices, hardware, memory, power, time, cost, the front and fixes. */
import { plannedTokens } from '../launch/common.js';
import { rollsOut } from '../../schema/objectives.js';
import { NEAR_TIE, rankHours, rankValue } from './context.js';
import { expertChoice, withExpertGroup } from './expert-parallel.js';
import { modelRepo, type Arch } from '../model/arch.js';
import { engineOf } from '../engines/engine.js';
import { BNB_OPTIMIZERS, ENGINE_PROFILES, onEngine } from '../engines/engines.js';
import { gfxOf } from '../engines/kernels.js';
import { hostRamOfOptions } from '../memory/host-ram.js';
import { qualityOf, tierRank } from './quality.js';
import { HIDDEN_COPIES_NOTE, restsOnHiddenCopies } from './overlap.js';
import { pastPositionsNote } from './context-note.js';
import { sloNearestOf, type SloNearest } from './slo.js';
import { estimateMemory, type MemoryEstimate } from '../memory/memory.js';
import { fitDeviceBytes, pagedStatesSpill } from '../memory/paged.js';
import { bandOf } from '../memory/uncertainty.js';
import { OPTIMIZER_PROFILES } from '../engines/optimizers.js';
import { estimateObjectiveTime } from '../time/objective.js';
import { isPreferenceOrRl } from '../../schema/estimate.js';
import { moeDispatchFactor, slowdownFactors } from '../time/slowdown.js';
import { estimateTime, servingLatency } from '../time/index.js';
import { jobCostUsd, type CostParts } from '../time/cost.js';
import { firstFit, nodeWallWatts, reportedOrder } from '../hardware/power.js';
import { GiB, MiB } from '../units.js';
import { quantizerHostBytes } from './made-weights.js';
import { servingGpuContext } from '../time/gpu-memory-context.js';
import { upcastsMxfp4Experts } from '../time/mxfp4-upcast.js';
import { admittedOr, planServing, queuedAt } from './admitted.js';
import type { Gpu } from '../../schema/gpu.js';
import type { TimeOptions } from '../../schema/time.js';
import { keptOr } from './kept.js';
import { gpuTable, type PlanTiming } from './view-memo.js';
import { type EstimateOptions } from '../../schema/estimate.js';
import {
  OFFLOADS,
  RANK_KEYS,
  boardWatts,
  givenHostRamBytes,
  hostRamLimit,
  idPartOn,
} from './configs.js';
import { REASON, timeOptionsOf } from './context.js';
import type { Ctx, Kept, LoopState } from './context.js';
import { REASONS, costBasisOf } from './types.js';
import type {
  HardwareOption,
  NearestFix,
  Plan,
  PlanChoices,
  PlanResult,
  ReplicaPlan,
} from './types.js';

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
  const options: EstimateOptions = withExpertGroup(
    onEngine(
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
        ...(v.tiledMlp === true ? { tiledMlp: true } : {}),
        // GRPO: one generation batch per optimizer step (TRL steps_per_generation = gradient accumulation).
        ...(rollsOut(b.options) && r.accum[row]! > 1 ? { stepsPerGeneration: r.accum[row]! } : {}),
      },
      v.engine,
    ),
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
      ...(options.dpAttention ? { dpAttention: true, ep: options.ep ?? 1 } : expertChoice(options)),
      ...(options.speculative
        ? {
            speculative: {
              method: options.speculative,
              tokens: options.specTokens ?? 0,
              acceptance: options.specAcceptance ?? 0,
            },
          }
        : {}),
    },
  };
}

export function planId(ctx: Ctx, k: { row: number; hw: number; level: number }): string {
  const r = ctx.rows;
  const b = ctx.bases[r.base[k.row]!]!;
  const h = ctx.hw[k.hw]!;
  const level = ctx.levels[k.hw]![k.level]!;
  const where = h.kind === 'rent' ? `rent:${h.offer?.id ?? h.gpu.id}` : `${h.kind}:${h.gpu.id}`;
  const v = ctx.variants[r.variant[k.row]!]!;
  const par = `${v.engine}${v.optimizerInBackward ? '-oib' : ''}${v.liger ? '-liger' : ''}${v.tiledMlp === true ? '-tiled-mlp' : ''}/z${r.zero[k.row]}${r.offload[k.row] ? `-off-${OFFLOADS[r.offload[k.row]!]}` : ''}/tp${r.tp[k.row]}/pp${r.pp[k.row]}`;
  return `${idPartOn(b, h.gpu)}/${par}/${where}x${r.count[k.row]}${h.kind === 'rent' ? '' : `@${Math.round(level * 100)}%`}`;
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

/**
 * The searched cost split into its parts (rent, energy, purchase, amortisation) by the same function; with weights
 * to make first, the share their GPU-hours add (loop.ts evalLevels charges them on the plan's GPUs).
 */
function planCost(ctx: Ctx, h: HardwareOption, k: Kept, count: number): Plan['cost'] {
  const parts: CostParts = { rentUsd: 0, energyUsd: 0, purchaseUsd: 0, amortisedUsd: 0 };
  const make = ctx.makeGpuHours[ctx.rows.base[k.row]!]!;
  jobCostUsd(costBasisOf(h), k.hours + make / count, count, k.watts, ctx.s.power, parts);
  if (make === 0) return { usd: k.cost, ...parts };
  const serveOnly = jobCostUsd(costBasisOf(h), k.hours, count, k.watts, ctx.s.power);
  return { usd: k.cost, ...parts, quantizeUsd: k.cost - serveOnly };
}

/**
 * Memory estimates made while a result is finished, by (row, GPU option): a plan's estimate reads its options
 * (choicesOf: the row on the option's GPU) and the GPU, neither the power level nor the search's figures, so the
 * near-tie order (fitsOnlyInsideBand) and the plans of one row on one option at each power level share one.
 */
type PlanEstimates = Map<number, MemoryEstimate>;

/** The memory estimate of `k`'s options on its GPU (what `estimate` with the GPU reports), from `memo` when made. */
function planEstimate(
  ctx: Ctx,
  k: Kept,
  options: EstimateOptions,
  memo: PlanEstimates | undefined,
  optionsKey?: string,
): MemoryEstimate {
  const key = k.row * ctx.hw.length + k.hw;
  const kept = memo?.get(key);
  if (kept) return kept;
  const gpu = ctx.hw[k.hw]!.gpu;
  // A colocated vLLM fills its share of this GPU, paged optimizer states what it leaves free.
  const paged = options.rollout || OPTIMIZER_PROFILES[options.optimizer].paged;
  const make = () =>
    admittedOr(
      ctx,
      options,
      gpu,
      estimateMemory(
        ctx.arch,
        options,
        // MXFP4 experts the engine upcasts on this GPU are held in BF16 (time/mxfp4-upcast.ts).
        paged
          ? servingGpuContext(gpu, options)
          : { mxfp4Upcast: upcastsMxfp4Experts(options, gpu) },
      ),
    );
  // Another view of the model estimated these options on this GPU already (view-memo.ts).
  const m = ctx.views
    ? keptOr(gpuTable(ctx.views.estimates, gpu), optionsKey ?? JSON.stringify(options), make)
    : make();
  memo?.set(key, m);
  return m;
}

/**
 * A plan's time estimate and slowdown factors: what `estimate` reports for its options on its GPU under its time
 * options, pool and paged spill, from another view of the model where one timed them (view-memo.ts).
 */
function planTiming(
  ctx: Ctx,
  options: EstimateOptions,
  gpu: Gpu,
  tOpts: TimeOptions,
  pool: number | undefined,
  spill: boolean,
  optionsKey: string | undefined,
): PlanTiming {
  const make = (): PlanTiming => {
    const t = isPreferenceOrRl(options)
      ? estimateObjectiveTime(ctx.arch, options, gpu, tOpts, ctx.P.total, spill)
      : estimateTime(ctx.arch, options, gpu, tOpts, pool, spill);
    const factors = [
      ...slowdownFactors(ctx.arch, options, gpu, tOpts, t.stepSeconds),
      ...moeDispatchFactor(t),
    ];
    return { t, factors };
  };
  if (!ctx.views || optionsKey === undefined) return make();
  const key = `${optionsKey}|${JSON.stringify(tOpts)}|${pool}|${spill}`;
  return keptOr(gpuTable(ctx.views.timings, gpu), key, make);
}

/**
 * What a result's plans of one (row, GPU option) share whatever their power level: the options' JSON that files
 * their figures among other views' (view-memo.ts, where a host keeps them), the memory estimate, the serving pool
 * and the host RAM, each a function of the options and the GPU option (choicesOf).
 */
interface RowParts {
  key: string | undefined;
  m: MemoryEstimate;
  serving: Plan['serving'];
  hostRam: Plan['hostRam'];
}

/** `k`'s RowParts, from `parts` (by row and GPU option) when a plan of another level made them. */
function rowPartsOf(
  ctx: Ctx,
  k: Kept,
  options: EstimateOptions,
  estimates: PlanEstimates,
  parts: Map<number, RowParts>,
): RowParts {
  const at = k.row * ctx.hw.length + k.hw;
  let p = parts.get(at);
  if (!p) {
    const h = ctx.hw[k.hw]!;
    const key = ctx.views ? JSON.stringify(options) : undefined;
    const m = planEstimate(ctx, k, options, estimates, key);
    const serving = planServing(ctx.arch, options, h.gpu);
    parts.set(at, (p = { key, m, serving, hostRam: planHostRam(ctx, h, options, m) }));
  }
  return p;
}

/** A kept candidate as a full Plan: the search's figures plus the estimates it did not need. */
function materialize(
  ctx: Ctx,
  k: Kept,
  fastest: number,
  onFront: boolean,
  estimates: PlanEstimates,
  parts: Map<number, RowParts>,
): Plan {
  const { choices, options } = choicesOf(ctx, k.row, k.hw);
  const h = ctx.hw[k.hw]!;
  const level = ctx.levels[k.hw]![k.level]!;
  const count = options.gpus;
  const capacity = h.gpu.memoryMiB * MiB;
  const gpuW = boardWatts(h.gpu) * level;
  const tOpts = timeOptionsOf(ctx, k.hw, level, choices.gradAccum);
  const { key: optionsKey, m, serving, hostRam } = rowPartsOf(ctx, k, options, estimates, parts);
  // Serving: the sequences the KV pool holds run, the rest queue (time/pool-queue.ts), as the search timed them.
  const pool = serving?.sequencesAtMeanContext;
  const { t, factors } = planTiming(
    ctx,
    options,
    h.gpu,
    tOpts,
    pool,
    pagedStatesSpill(m),
    optionsKey,
  );
  return {
    id: planId(ctx, k),
    rank: 0,
    onFront,
    variants: k.variants,
    choices:
      options.method === 'inference'
        ? { ...choices, quantFormat: t.settings.quantFormat, ...weightsToMake(ctx, k.row) }
        : choices,
    hardware: planHardware(h, count, level, gpuW),
    memory: planMemory(m, capacity),
    hostRam,
    quality: qualityOf(options, ctx.arch.modelType),
    power: planPower(ctx, h, count, gpuW, k.watts),
    time: planTime(k, t),
    cost: planCost(ctx, h, k, count),
    slowdown: fastest > 0 && Number.isFinite(fastest) ? rankHours(k) / fastest : 1,
    slowdownFactors: [...factors],
    ...(serving ? { serving } : {}),
    ...planNotes(ctx, k, choices, options, hostRam.limitBytes),
    options,
  };
}

/** A serving plan's weights to make first (made-weights.ts), as `choices.weightsToMake`; nothing otherwise. */
function weightsToMake(ctx: Ctx, row: number): Pick<PlanChoices, 'weightsToMake'> {
  const m = ctx.made[ctx.rows.base[row]!];
  return m ? { weightsToMake: { ...m } } : {};
}

/**
 * The sentence that says a plan's weights are made first, by what, and what it costs; and where the quantizer holds
 * more host RAM than the plan's node has (made-weights.ts quantizerHostBytes), that it is made elsewhere.
 */
function madeWeightsNote(ctx: Ctx, k: Kept, weights: string, hostLimit: number): string | null {
  const m = ctx.made[ctx.rows.base[k.row]!];
  if (!m) return null;
  const model = modelRepo(ctx.arch) ?? ctx.arch.id;
  const how =
    m.quantizer === 'llama-quantize'
      ? "with llama.cpp's convert_hf_to_gguf.py and llama-quantize on the CPU, whose wall time is not counted in the hours or the cost (no published rate of llama-quantize on a CPU to count it by; docs/assumptions.md)"
      : `with llm-compressor first: about ${Math.round(m.gpuHours)} GPU-hours (its guide's A100 rate, by parameters), counted in the cost and in the hours it ranks on`;
  const host = quantizerHostBytes(m, ctx.arch, ctx.P.total);
  const ram =
    host > hostLimit
      ? `; ${m.quantizer} holds the whole 16-bit model in host RAM (${Math.ceil(host / GiB)} GiB, its memory guide), more than the ${Math.floor(hostLimit / GiB)} GiB of this plan's node (hardware.hostRamGiB, or its default): make it on a machine with more`
      : '';
  return `${weights} weights: no published checkpoint of ${model} in ${weights} is known, so ${m.ref} is made ${how}${ram}; check its quality before serving (job.haveCheckpoints: [${weights}] if you already have one)`;
}

/**
 * The plan's `notes`: a global batch rounded up because its data-parallel ranks do not divide the scenario's; a
 * time that rests on host copies hidden behind compute (overlap.ts); a sequence past the model's positions
 * (context-note.ts); weights to make first (made-weights.ts).
 */
function planNotes(
  ctx: Ctx,
  k: Kept,
  c: PlanChoices,
  o: EstimateOptions,
  hostLimit: number,
): { notes?: string[] } {
  const job = ctx.s.job;
  const notes: string[] = [];
  if (job.kind === 'fine-tune' && c.globalBatch !== job.globalBatch)
    notes.push(
      `global batch ${c.globalBatch}, rounded up from the scenario's ${job.globalBatch}: ${c.dp} data-parallel ranks do not divide ${job.globalBatch} (micro-batch ${c.microBatch} x accumulation ${c.gradAccum} x ${c.dp})`,
    );
  if (restsOnHiddenCopies(o)) notes.push(HIDDEN_COPIES_NOTE);
  const past = pastPositionsNote(ctx.arch, o);
  if (past) notes.push(past);
  const made = madeWeightsNote(ctx, k, c.weights, hostLimit);
  if (made) notes.push(made);
  return notes.length > 0 ? { notes } : {};
}

/** Greedy placement of nodes on circuits (smallest first), as the search loop assumed. */
export function perCircuit(
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
  const ao = [a.cost, rankHours(a), a.watts];
  const bo = [b.cost, rankHours(b), b.watts];
  for (const i of idx) if (ao[i] !== bo[i]) return ao[i]! - bo[i]!;
  if (a.seq !== b.seq) return a.seq - b.seq;
  const ia = ids.get(a)!;
  const ib = ids.get(b)!;
  return ia < ib ? -1 : ia > ib ? 1 : 0;
}

/**
 * What a plan asks beyond a plain layout, which a near-tie should not be won by: pipeline parallelism (its
 * schedule and bubble), an optimizer stepped inside backward, a bitsandbytes optimizer under a ZeRO sharding that
 * takes it only as untested (the engine profile's bnbOptimizersUntested: DeepSpeed's zero_allow_untested_optimizer),
 * a ZeRO stage the engine's documentation does not describe (the profile's zeroUndocumented) or several machines
 * where its guides launch on one (oneMachineDocumented), a ZeRO stage on one
 * GPU without offload (nothing to partition), CPU offload of
 * the optimizer, parameters or checkpoints (its speed rests on host copies hidden behind compute over a PCIe link
 * other processes share), and DP attention (its ranks step in lockstep, their time resting on the stated arrival
 * assumption, docs/assumptions.md "DP attention's arrivals"; vLLM's data-parallel guide names it for MLA models such
 * as DeepSeek, https://docs.vllm.ai/en/latest/serving/data_parallel_deployment.html, and vLLM's Qwen3 recipe
 * serves Qwen3-235B-A22B with tensor parallelism, vllm-project/recipes Qwen/Qwen3.md), and an engine on a platform
 * where its time leaves out kernel costs nobody read for it (the profile's timeUnread: SGLang's ROCm prefill
 * attention, which vLLM's time counts), each counted.
 */
function riskOf(ctx: Ctx, k: Kept): number {
  const r = ctx.rows;
  const v = ctx.variants[r.variant[k.row]!]!;
  const o = ctx.bases[r.base[k.row]!]!.options;
  const profile = ENGINE_PROFILES[v.engine];
  const undocumented = profile.zeroUndocumented?.includes(r.zero[k.row]!) === true ? 1 : 0;
  // Over several machines on an engine whose guides launch on one (searched with search.undocumented only).
  const machines =
    profile.oneMachineDocumented === true && r.count[k.row]! > ctx.hw[k.hw]!.nodeSize ? 1 : 0;
  const untested =
    profile.bnbOptimizersUntested === true && r.zero[k.row]! > 0 && BNB_OPTIMIZERS.has(o.optimizer);
  const offloads = r.offload[k.row]! > 0 ? 1 : 0; // OFFLOADS[0] is 'none'
  // A ZeRO stage over one GPU partitions nothing ("partitions the model states across data-parallel processes",
  // https://deepspeed.readthedocs.io/en/latest/zero3.html): without offload, it is an engine layer on a plain layout.
  const zeroAlone = r.zero[k.row]! > 0 && r.count[k.row]! === 1 && offloads === 0 ? 1 : 0;
  // Checkpoints offloaded to the host rest on their copies hiding behind compute as parameter offload does.
  const ckptOffload = o.checkpointing === 'offload' ? 1 : 0;
  const rocm = gfxOf(ctx.hw[k.hw]!.gpu.computeCapability) !== null;
  const unread = rocm && profile.timeUnread?.includes('rocm') === true ? 1 : 0;
  return (
    (r.pp[k.row]! > 1 ? 1 : 0) +
    (v.optimizerInBackward ? 1 : 0) +
    (untested ? 1 : 0) +
    undocumented +
    machines +
    zeroAlone +
    offloads +
    ckptOffload +
    unread +
    (o.dpAttention === true ? 1 : 0)
  );
}

/**
 * A fine-tune plan whose data-parallel ranks do not divide the scenario's global batch, so it runs a larger one
 * (planNotes says so): a job with other optimizer steps than the one asked for.
 */
const roundsGlobalBatch = (ctx: Ctx, c: PlanChoices): boolean =>
  ctx.s.job.kind === 'fine-tune' && c.globalBatch !== ctx.s.job.globalBatch;

/**
 * A fine-tune whose peak fits the GPU only if the memory estimate does not under-estimate it by as much as the
 * calibration set's largest under-estimate (uncertainty.ts bandOf's high edge passes the GPU's memory). Serving
 * engines size their pools to the memory they are given, so only training plans are asked.
 */
function fitsOnlyInsideBand(
  ctx: Ctx,
  k: Kept,
  options: EstimateOptions,
  estimates?: PlanEstimates,
): boolean {
  if (options.method === 'inference') return false;
  const m = planEstimate(ctx, k, options, estimates);
  return bandOf(fitDeviceBytes(m)).highBytes > ctx.hw[k.hw]!.gpu.memoryMiB * MiB;
}

/**
 * The ranked plans with their near-ties ordered by quality tier (plain SGD does not win a tie with AdamW), then
 * weights that exist before weights to make (made-weights.ts: a quantized copy nobody publishes is hours of GPU time
 * and a quality the user must check), then the scenario's global batch before one rounded up (roundsGlobalBatch: a
 * larger batch is another job, whose fewer steps and larger rollouts the first key credits), then by how little they ask beyond a plain layout (riskOf), then fitting outside the memory estimate's band before
 * fitting only inside it (fitsOnlyInsideBand), then by how many of its techniques are lossy (qualityOf's items:
 * within the lossy tier, pure bf16 weights with SGD do not win a tie with pure bf16 weights and 8-bit AdamW), the
 * rank order kept among equals. Near techniques are not counted: 8-bit AdamW is the optimizer Unsloth's notebooks
 * write (`optim = "adamw_8bit"`), and a tie between it and AdamW keeps the rank order. Then a plan more than
 * NEAR_TIE behind the window's best on the second rank key goes after those that are not: the first key cannot call
 * the tie, the second can (owned GPUs ranked by cost: two of four L40S at 0.4% less energy than all four, which
 * finish in 63% of the time). Ties are windows down the
 * ranking: the first unplaced plan and those after it within NEAR_TIE of its first rank key, so a tie below the
 * best plan (a pipeline-parallel layout 0.4% cheaper than plain sharding on the same engine) is called as the best
 * plan's is.
 */
function simplerFirstAmongTies(ctx: Ctx, ranked: Kept[], estimates?: PlanEstimates): Kept[] {
  const [key, key2] = RANK_KEYS[ctx.s.rank];
  const first = (k: Kept) => rankValue(k, key!);
  const second = (k: Kept) => rankValue(k, key2!);
  const out: Kept[] = [];
  for (let start = 0; start < ranked.length;) {
    const bound = first(ranked[start]!) * (1 + NEAR_TIE);
    let end = start + 1;
    while (end < ranked.length && first(ranked[end]!) <= bound) end++;
    if (end - start < 2) {
      out.push(ranked[start]!);
      start = end;
      continue;
    }
    const window = ranked.slice(start, end);
    const best2 = Math.min(...window.map(second));
    const ties = window.map((k, i) => {
      const { choices, options } = choicesOf(ctx, k.row, k.hw);
      const quality = qualityOf(options, ctx.arch.modelType);
      return {
        k,
        i,
        tier: tierRank(quality.tier),
        made: ctx.made[ctx.rows.base[k.row]!] ? 1 : 0,
        rounded: roundsGlobalBatch(ctx, choices) ? 1 : 0,
        risk: riskOf(ctx, k),
        tight: fitsOnlyInsideBand(ctx, k, options, estimates) ? 1 : 0,
        lossy: quality.items.filter((q) => q.tier === 'lossy').length,
        behind: second(k) > best2 * (1 + NEAR_TIE) ? 1 : 0,
      };
    });
    ties.sort(
      (a, b) =>
        a.tier - b.tier ||
        a.made - b.made ||
        a.rounded - b.rounded ||
        a.risk - b.risk ||
        a.tight - b.tight ||
        a.lossy - b.lossy ||
        a.behind - b.behind ||
        a.i - b.i,
    );
    out.push(...ties.map((t) => t.k));
    start = end;
  }
  return out;
}

/** The best `top` kept candidates in rank order (the plans finish makes of them), `ids` their plan ids. */
function rankedKept(
  ctx: Ctx,
  st: LoopState,
  top: number,
  ids: Map<Kept, string>,
  estimates?: PlanEstimates,
): Kept[] {
  for (const k of st.top) if (!ids.has(k)) ids.set(k, planId(ctx, k));
  return simplerFirstAmongTies(
    ctx,
    [...st.top].sort((a, b) => compareKept(ctx, a, b, ids)),
    estimates,
  ).slice(0, top);
}

/**
 * The figures a serving fleet reads of each plan finish would rank (types.ts ReplicaPlan), by the same
 * functions, without the memory, power, quality and front that only a report reads.
 */
export function replicaPlans(ctx: Ctx, st: LoopState, top: number): ReplicaPlan[] {
  const ids = new Map<Kept, string>();
  return rankedKept(ctx, st, top, ids).map((k) => {
    const { choices, options } = choicesOf(ctx, k.row, k.hw);
    const h = ctx.hw[k.hw]!;
    const level = ctx.levels[k.hw]![k.level]!;
    const latency =
      options.method === 'inference'
        ? servingLatency(
            ctx.arch,
            options,
            h.gpu,
            timeOptionsOf(ctx, k.hw, level, choices.gradAccum),
            queuedAt(ctx, options, h.gpu),
          )
        : {};
    const quantizeUsd = planCost(ctx, h, k, options.gpus).quantizeUsd;
    return {
      id: ids.get(k)!,
      choices: {
        method: choices.method,
        tp: choices.tp,
        pp: choices.pp,
        dp: choices.dp,
        ...weightsToMake(ctx, k.row),
      },
      hardware: {
        kind: h.kind,
        gpuId: h.gpu.id,
        offerId: h.offer?.id ?? null,
        powerLimitFraction: level,
      },
      time: { tokensPerSecond: k.tokensPerSecond, hours: k.hours, ...latency },
      cost: { usd: k.cost, ...(quantizeUsd !== undefined ? { quantizeUsd } : {}) },
      options,
    };
  });
}

export function finish(ctx: Ctx, st: LoopState, fastest: number, top: number): PlanResult {
  const ids = new Map<Kept, string>();
  for (const k of [...st.top, ...st.front]) ids.set(k, planId(ctx, k));
  const frontIds = new Set(st.front.map((k) => ids.get(k)!));
  // A plan with a front plan's very objectives is not dominated either (the front keeps one of equals; a near-tie
  // may rank another of them first).
  const objectives = (k: Kept) => `${k.cost}|${rankHours(k)}|${k.watts}`;
  const frontObjectives = new Set(st.front.map(objectives));
  const estimates: PlanEstimates = new Map();
  const parts = new Map<number, RowParts>();
  const ranked = rankedKept(ctx, st, top, ids, estimates);
  const plans = ranked.map((k, i) => ({
    ...materialize(
      ctx,
      k,
      fastest,
      frontIds.has(ids.get(k)!) || frontObjectives.has(objectives(k)),
      estimates,
      parts,
    ),
    rank: i + 1,
  }));
  const front = [...st.front]
    .sort(
      (a, b) =>
        a.cost - b.cost ||
        rankHours(a) - rankHours(b) ||
        a.watts - b.watts ||
        (ids.get(a)! < ids.get(b)! ? -1 : 1),
    )
    .map((k) => materialize(ctx, k, fastest, true, estimates, parts));
  const pruned = REASONS.map((code, i) => ({ code, count: st.reasons[i]! }))
    .filter((p) => p.count > 0)
    .sort((a, b) => b.count - a.count || (a.code < b.code ? -1 : 1));
  const s = ctx.s;
  const best = plans[0];
  return {
    schemaVersion: 1,
    scenario: {
      name: s.name,
      model: s.model,
      job: s.job.kind,
      rank: s.rank,
      ...(s.job.kind === 'inference' && s.job.haveCheckpoints
        ? { haveCheckpoints: [...s.job.haveCheckpoints] }
        : {}),
      ...(s.job.kind === 'fine-tune' ? { trainTokens: plannedTokens(s.job) } : {}),
    },
    model: { id: ctx.arch.id, params: ctx.P.total },
    fits: plans.length > 0,
    plans,
    front,
    pruned,
    searched: {
      candidates: st.candidates,
      feasible: st.feasible,
      distinctPlans: st.distinct.size,
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

export function nearestFixes(ctx: Ctx, st: LoopState): NearestFix[] {
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
