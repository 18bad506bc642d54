/**
 * The estimate contract's result: per-GPU memory, the fits verdict against a GPU, the uncertainty band,
 * and the extra facts (phases, host RAM, dominant components) the reports show.
 */
// Registers the built-in engines (their profiles and memory profiles; launchers load on demand).
import './engines/registry.js';
import type { Arch } from './model/arch.js';
import type { Gpu } from '../schema/gpu.js';
import { meanContextOf, type EstimateOptions } from '../schema/estimate.js';
import {
  estimateMemory,
  roundParts,
  type Breakdown,
  type EstimateContext,
  type MemoryEstimate,
} from './memory/memory.js';
import { UNCERTAINTY, bandOf } from './memory/uncertainty.js';
import { fitDeviceBytes, pagedStatesSpill, type PagedStates } from './memory/paged.js';
import { FRAMEWORKS } from './memory/frameworks.js';
import { estimateTime, type TimeResult } from './time/index.js';
import { poolSequencesOf } from './time/admission-reserve.js';
import { gpuCapacityBytes } from './time/hardware.js';
import { servingGpuContext } from './time/gpu-memory-context.js';
import { compareNames } from './compare-names.js';
import { defaultTimeOptions, type TimeOptions } from '../schema/time.js';
import { estimateObjectiveTime } from './time/objective.js';
import { isPreferenceOrRl } from '../schema/estimate.js';
import { isFloatDtype } from './model/dtypes.js';

/** What the checkpoint's files hold beyond the loaded model: MTP layers (Arch.mtpParams). */
export interface CheckpointParams {
  /** Parameters in the checkpoint's files: params.total + mtpParams. */
  total: number;
  mtpLayers: number;
  mtpParams: number;
}

/** The checkpoint figure of an Arch with MTP layers, else undefined. */
export function checkpointParams(arch: Arch, total: number): CheckpointParams | undefined {
  const mtp = arch.mtpParams ?? 0;
  if (mtp <= 0) return undefined;
  return { total: total + mtp, mtpLayers: arch.mtpLayers ?? 0, mtpParams: mtp };
}

export interface EstimateResult {
  schemaVersion: 1;
  fits?: boolean;
  perGpu: MemoryEstimate['perGpu'];
  peakPhase: MemoryEstimate['peakPhase'];
  phases: MemoryEstimate['phases'];
  hostBytesPerGpu: number;
  /**
   * `total` is the model's headline count (what runs; MTP layers excluded, as DeepSeek-V3's "671B + 14B MTP").
   * `checkpoint` (optional, additive) appears when the checkpoint also stores MTP layers: what its files hold.
   */
  params: MemoryEstimate['params'] & { checkpoint?: CheckpointParams };
  parallel: MemoryEstimate['parallel'];
  /** Range the measured device peak is expected in (from calibration residuals). */
  uncertainty: { lowBytes: number; highBytes: number; basis: string };
  model: { id: string; hfId: string | null };
  gpu?: { id: string; name: string; capacityBytes: number; headroomBytes: number };
  /** Components sorted by size, largest first (what to attack when it does not fit). */
  dominant: { component: keyof Breakdown; bytes: number }[];
  options: EstimateOptions;
  /** With a GPU: step time, tokens/s, MFU and bound (docs/DESIGN.md "Time"), by the planner's time model. */
  time?: TimeResult;
  /**
   * Paged-KV serving (vLLM) with a GPU: the KV pool gpu_memory_utilization leaves, the tokens it holds and
   * the sequences of `seq` tokens that run at once (what max_num_seqs can be).
   */
  serving?: Serving;
  /**
   * Inference: one sequence's cache per GPU (KV bytes per token of context, sliding-window bytes once past
   * the window, fixed recurrent state bytes), as the engine lays it out (core/memory/kv-layout.ts).
   */
  cache?: MemoryEstimate['cache'];
  /**
   * Paged optimizer states (bitsandbytes paged-adamw*): all of them, the working set a step needs on the
   * device (what `fits` counts), the part nvidia-smi shows (in deviceBytes: what the card has free, at most
   * all) and the rest in host RAM (in hostBytesPerGpu).
   */
  paged?: PagedStates;
}

/**
 * A serving engine's KV cache as it runs it: the pool's bytes and tokens, the sequences of `seq` tokens it
 * holds at once (`concurrency`, the old meaning), the sequences admitted at the mean context (prompt + half
 * the output; fewer where the engine reserves for running requests' output, time/admission-reserve.ts) and at the
 * maximum context, each capped by max-num-seqs (the plan's batch).
 */
export interface Serving {
  kvPoolBytes: number;
  kvTokens: number;
  concurrency: number;
  maxNumSeqs: number;
  meanContext: number;
  sequencesAtMeanContext: number;
  sequencesAtMaxContext: number;
  /**
   * The server's start-up error (its profile's startRefusal) where the pool is short of what it starts with: one
   * sequence of `seq` tokens (vLLM) or one token (SGLang), the reason `fits` is false.
   */
  startRefusal?: string;
}

/** The serving object of a memory estimate with a GPU (paged pools; llama.cpp's static slots), or undefined. */
export function servingOf(m: MemoryEstimate, o: EstimateOptions): Serving | undefined {
  if (o.method !== 'inference') return undefined;
  const mean = meanContextOf(o);
  const slots = (tokens: number, bytes: number): Serving => ({
    kvPoolBytes: bytes,
    kvTokens: tokens,
    concurrency: Math.floor(tokens / o.seq),
    maxNumSeqs: o.batch,
    meanContext: mean,
    sequencesAtMeanContext: poolSequencesOf(tokens, o),
    sequencesAtMaxContext: Math.min(o.batch, Math.floor(tokens / o.seq)),
  });
  if (m.kvPool) return slots(m.kvPool.tokens, m.kvPool.poolBytes);
  // Slot servers (llama.cpp): -c tokens of KV split evenly over -np slots, allocated at start (GPU and host).
  if (FRAMEWORKS[o.framework].kvSlots) return slots(o.seq * o.batch, m.perGpu.breakdown.kvCache);
  return undefined;
}

export { gpuCapacityBytes };

/** What a measured or read build ran that the contract's flags do not say (memory's EstimateContext fields). */
export type BuildContext = Pick<
  EstimateContext,
  | 'eagerLoss'
  | 'lossCompiledAlone'
  | 'adamForeach'
  | 'gradsFreedEachStep'
  | 'kbitFp32Stream'
  | 'shiftedLogitsCopy'
  | 'kbitNormsCastBack'
  | 'linearizedExperts'
  | 'quantizedExperts'
  | 'kbitFp32Adapters'
  | 'adaptersInWeightDtype'
  | 'quantizerLoadsWhole'
>;

/**
 * What of a read build a changed configuration still runs (`plan --from`'s fixes, explain.ts): each field holds
 * while what it describes is unchanged, and is dropped where a change replaces it. No field survives a change of
 * engine (every one describes that tool's loader, trainer or pinned libraries). `accum`: the micro-batches per
 * optimizer step the changed configuration runs.
 * - eagerLoss, lossCompiledAlone, shiftedLogitsCopy: the engine build's loss (its compile switch, its transformers'
 *   label shift); the memory model already skips them where a chunked or compiled loss runs.
 * - adamForeach: torch AdamW's foreach step, while the optimizer and its offload stay as given.
 * - gradsFreedEachStep: gradients freed after each step, only while the changed run still takes one micro-batch a
 *   step (a smaller micro-batch accumulates).
 * - kbitFp32Stream, kbitNormsCastBack, kbitFp32Adapters, quantizerLoadsWhole: the loader's and trainer's k-bit
 *   preparation and load, while the method is unchanged and the weights stay k-bit (ZeRO-3's skip of the cast-back
 *   is read by memory itself: setup.ts).
 * - linearizedExperts, quantizedExperts: the experts quantized at load to the load's k-bit type (4-bit or int8), while
 *   the weights stay k-bit, whichever type (the patch quantizes to what the config loads in).
 * - adaptersInWeightDtype: adapters built in the frozen weights' dtype, while method and weights are unchanged.
 */
export function buildAfterChange(
  build: BuildContext | undefined,
  from: EstimateOptions,
  to: EstimateOptions,
  accum: number,
): BuildContext | undefined {
  if (!build || to.framework !== from.framework) return undefined;
  const kbit = to.method === from.method && !isFloatDtype(to.weights);
  const quantized = !isFloatDtype(to.weights);
  const holds: Record<keyof BuildContext, boolean> = {
    eagerLoss: true,
    lossCompiledAlone: true,
    shiftedLogitsCopy: true,
    adamForeach: to.optimizer === from.optimizer && to.offload === from.offload,
    gradsFreedEachStep: accum === 1,
    kbitFp32Stream: kbit,
    kbitNormsCastBack: kbit,
    kbitFp32Adapters: kbit,
    quantizerLoadsWhole: kbit,
    linearizedExperts: quantized,
    quantizedExperts: quantized,
    adaptersInWeightDtype: to.weights === from.weights && to.method === from.method,
  };
  const kept = Object.fromEntries(
    (Object.keys(build) as (keyof BuildContext)[])
      .filter((k) => holds[k])
      .map((k) => [k, build[k]]),
  ) as BuildContext;
  return Object.keys(kept).length > 0 ? kept : undefined;
}

/**
 * The contract's result. `burst: false`: the caller reads only the steady state (the planner's searches), so a
 * serving burst keeps the static model (time/burst.ts) instead of running step by step (time/stepped-burst.ts).
 */
export function buildEstimate(
  arch: Arch,
  options: EstimateOptions,
  gpu?: Gpu,
  time?: TimeOptions,
  build?: BuildContext,
  { burst = true }: { burst?: boolean } = {},
): EstimateResult {
  const capacity = gpu ? gpuCapacityBytes(gpu) : undefined;
  const m = estimateMemory(arch, options, {
    ...(gpu ? servingGpuContext(gpu, options, time) : {}),
    ...build,
  });
  const device = m.perGpu.deviceBytes;
  const dominant = (Object.entries(m.perGpu.breakdown) as [keyof Breakdown, number][])
    .filter(([, b]) => b > 0)
    .sort((a, b) => b[1] - a[1] || compareNames(a[0], b[0]))
    .map(([component, bytes]) => ({ component, bytes }));
  const result: EstimateResult = {
    schemaVersion: 1,
    perGpu: m.perGpu,
    peakPhase: m.peakPhase,
    phases: m.phases.map((p) => ({ ...p, parts: roundParts(p.parts) })),
    hostBytesPerGpu: m.hostBytesPerGpu,
    params: withCheckpoint(arch, m.params),
    parallel: m.parallel,
    uncertainty: { ...bandOf(device), basis: UNCERTAINTY.basis },
    model: { id: arch.id, hfId: arch.hfId },
    dominant,
    options,
    ...(m.cache ? { cache: m.cache } : {}),
  };
  if (m.paged) result.paged = m.paged;
  if (gpu && capacity !== undefined) {
    // Paged optimizer states page out under pressure: the fit needs only their working set on the device.
    const fit = fitDeviceBytes(m);
    result.fits = fit <= capacity;
    result.gpu = {
      id: gpu.id,
      name: gpu.name,
      capacityBytes: capacity,
      headroomBytes: capacity - fit,
    };
    const t = timeOfBuild(time ?? defaultTimeOptions(options.gpus), build);
    const serving = servingOf(m, options);
    // Preference / RL: rollout, reference log-probs, policy training and weight sync (time/objective.ts). Serving:
    // the sequences the KV pool holds run, the rest queue (time/pool-queue.ts).
    result.time = isPreferenceOrRl(options)
      ? estimateObjectiveTime(arch, options, gpu, t, m.params.total, pagedStatesSpill(m))
      : estimateTime(
          arch,
          options,
          gpu,
          t,
          serving?.sequencesAtMeanContext,
          pagedStatesSpill(m),
          burst && serving ? { poolTokens: serving.kvTokens } : undefined,
        );
    if (serving) {
      const server = FRAMEWORKS[options.framework].server;
      const least = server?.poolHoldsMaxLen ? options.seq : 1;
      if (
        !result.fits &&
        server?.startRefusal &&
        (m.poolStartBudget ?? 0) > 0 &&
        serving.kvTokens < least
      )
        serving.startRefusal = server.startRefusal;
      result.serving = serving;
    }
  }
  return result;
}

/**
 * The time options with what the build ran that memory reads too (BuildContext): foreach AdamW, the k-bit stream and
 * adapters' widths (memory/trainable-width.ts). A loader that prepared the k-bit model and cast its norms back keeps
 * a 16-bit stream (EstimateContext.kbitNormsCastBack).
 */
export function timeOfBuild(t: TimeOptions, build?: BuildContext): TimeOptions {
  if (!build) return t;
  const stream = build.kbitNormsCastBack ? false : build.kbitFp32Stream ? true : t.kbitFp32Stream;
  return {
    ...t,
    ...(build.adamForeach ? { adamForeach: true } : {}),
    ...(build.kbitFp32Adapters ? { kbitFp32Adapters: true } : {}),
    ...(build.adaptersInWeightDtype ? { adaptersInWeightDtype: true } : {}),
    ...(build.linearizedExperts ? { denseMoeLoop: true } : {}),
    ...(build.quantizedExperts ? { quantizedExperts: true } : {}),
    ...(stream === undefined ? {} : { kbitFp32Stream: stream }),
  };
}

function withCheckpoint(arch: Arch, p: MemoryEstimate['params']): EstimateResult['params'] {
  const checkpoint = checkpointParams(arch, p.total);
  return checkpoint ? { ...p, checkpoint } : p;
}
