/** The contract's `time` object: the step or decode time of one configuration on one GPU. */
import type { Arch } from '../model/arch.js';
import { upcastOptions, upcastsMxfp4Experts } from './mxfp4-upcast.js';
import { towerTime } from './vision.js';
import type { Gpu } from '../../schema/gpu.js';
import { moeGroupOf, promptTokensOf, type EstimateOptions } from '../../schema/estimate.js';
import { dpAttentionTime, dpAttentionTimed, type DpAttentionTime } from './expert-parallel.js';
import { replicaServingTime } from './serving-step.js';
import { loraStepTime, unmergedServingOptions } from './multi-lora.js';
import { breakEvenAcceptance, breakEvenBatch, speculates, speculativeStep } from './speculative.js';
import type { ModelFacts } from './model-facts.js';
import { FRAMEWORKS } from '../memory/frameworks.js';
import { releaseNamedBeforePost } from '../compare-releases.js';
import type { GpuRates } from './hardware.js';
import { type Interconnect, type KernelName, type TimeOptions } from '../../schema/time.js';
import { decodeStep, kernelOn } from './decode.js';
import { burstPrefill, burstTime, type BurstTime } from './burst.js';
import { burstSteps, steppedBurst, type BurstPool } from './stepped-burst.js';
import { poolRunning, queuedBurst, queuedLatency, queuesOnPool } from './pool-queue.js';
import {
  defaultInterconnect,
  defaultQuantFormat,
  kernelName,
  gpuContext,
  gpuRates,
  type GpuContext,
} from './hardware.js';
import { DECODE_PHASES, TRAIN_PHASES, modelFacts, servedArch } from './model-facts.js';
import type { Bound } from './model-facts.js';
import { trainStep } from './train-step.js';
import { consolidatedSaveSeconds } from './model-save.js';
import { trainWork } from './train-work.js';
import type { MoeDispatch } from './train-work.js';

// ---------------------------------------------------------------------------------------------
// The contract's `time` object.

export interface TimeResult {
  stepSeconds: number;
  tokensPerSecondPerGpu: number;
  mfu: number;
  bound: Bound;
  /** Inference: tokens generated per second by one replica, summed over the batch. */
  decodeTokensPerSecond?: number;
  /** Inference: a request's time to first token and time per output token under the batch (servingTime). */
  ttftSeconds?: number;
  tpotSeconds?: number;
  /**
   * Inference on an engine that batches continuously, --batch > 1: the same requests sent at once from a cold
   * start (time/burst.ts), where ttftSeconds / tpotSeconds are the steady state.
   */
  burst?: BurstTime;
  /** Multi-LoRA serving: the distinct adapters a decode step reads, and their reads and kernels per step. */
  lora?: { adaptersPerStep: number; seconds: number };
  /**
   * Serving with speculative decoding: the method, draft tokens and acceptance used, the tokens a sequence keeps
   * per step, one step's verify pass and K draft passes, the same batch's decode without speculation, and where
   * speculation stops paying: the batch (null: beyond 4096) and the acceptance at this batch (null: never).
   */
  speculative?: {
    method: string;
    tokens: number;
    acceptance: number;
    tokensPerStep: number;
    verifySeconds: number;
    draftSeconds: number;
    plainDecodeTokensPerSecond: number;
    speedup: number;
    breakEvenBatch: number | null;
    breakEvenAcceptance: number | null;
  };
  /**
   * Serving with DP attention: the expert-parallel degree, the GPUs each MoE layer spans, the engine's
   * data-parallel ranks and decode tokens/s over all of them (decodeTokensPerSecond is one rank's), and one
   * rank's step by part: its attention and dense layers, the routed experts, the token gathers and scatters.
   */
  expertParallel?: {
    ep: number;
    moeGpus: number;
    dataParallelRanks: number;
    engineDecodeTokensPerSecond: number;
    rankSeconds: number;
    expertSeconds: number;
    gatherSeconds: number;
  };
  /** Seconds per step by phase (training: per optimizer step; inference: per decode step + prefill). */
  phases: { phase: string; seconds: number }[];
  /** The time settings used (flags or their defaults). */
  settings: Omit<TimeOptions, 'quantFormat'> & {
    /** The kernel the quantized weights run through, by its name on the GPU (time/hardware.ts kernelName). */
    quantFormat: KernelName | null;
    interconnect: Interconnect;
  };
  /**
   * Dense 16-bit tensor TFLOPS: the GPU's spec and what it sustains at its board power and power limit; training in
   * bf16 on a card without bf16 tensor cores adds `bf16Emulated`, the TFLOPS its bf16 matmuls run at on CUDA cores
   * (time/hardware.ts bf16Rate).
   */
  tensorTflops: { spec: number; sustained: number; bf16Emulated?: number };
  /**
   * MoE models only: how the engine runs the routed experts (its profile's moeDispatch), the expert-parallel
   * degree used (1: the contract has no expert-parallel flag), the experts hit per layer per micro-batch, and
   * the seconds per step the per-expert loop costs over one grouped GEMM per layer (0 when grouped).
   */
  moe?: {
    dispatch: MoeDispatch;
    expertParallel: number;
    expertsHitPerLayer: number;
    loopSeconds: number;
    /** Seconds per step PEFT's ParamWrapper adds (LoRA on fused experts: ΔW, W + ΔW, its weight gradient). */
    adapterDeltaSeconds: number;
  };
}

export const round = (x: number, d = 4) => Number(x.toPrecision(d));

/** A speculative engine's step and the contract's `time.speculative` (docs/estimate.md). */
function speculativeOf(m: ModelFacts, o: EstimateOptions, t: TimeOptions, r: GpuRates) {
  const s = speculativeStep(m, o, t, r);
  const k = o.specTokens ?? 0;
  return {
    stepSeconds: s.stepSeconds,
    tokensPerSecond: s.tokensPerSecond,
    report: {
      method: o.speculative!,
      tokens: k,
      acceptance: o.specAcceptance ?? 0,
      tokensPerStep: round(s.tokensPerStep),
      verifySeconds: round(s.verifySeconds),
      draftSeconds: round(s.draftSeconds),
      plainDecodeTokensPerSecond: round(s.plainTokensPerSecond),
      speedup: round(s.tokensPerSecond / s.plainTokensPerSecond, 3),
      breakEvenBatch: breakEvenBatch(m, o, t, r),
      breakEvenAcceptance: nullableRound(breakEvenAcceptance(s, k)),
    },
  };
}

const nullableRound = (x: number | null): number | null => (x === null ? null : round(x, 3));

/** The contract's `time.expertParallel`: the engine's layout and a rank's step by part. */
function expertParallelOf(
  o: EstimateOptions,
  d: DpAttentionTime,
  rankTokensPerSecond: number,
): NonNullable<TimeResult['expertParallel']> {
  const ranks = moeGroupOf(o) / o.tp;
  return {
    ep: o.ep ?? 1,
    moeGpus: moeGroupOf(o),
    dataParallelRanks: ranks,
    engineDecodeTokensPerSecond: round(rankTokensPerSecond * ranks),
    rankSeconds: round(d.rankSeconds),
    expertSeconds: round(d.expertSeconds),
    gatherSeconds: round(d.gatherSeconds),
  };
}

/**
 * A request's time to first token and per output token, rounded as estimateTime reports them: the replica's
 * (or a DP-attention rank's, `dpa`) serving time, the vision tower's pass over one request's images in the TTFT.
 */
function latencyOf(
  arch: Arch,
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
  dpa: DpAttentionTime | null,
): { ttftSeconds: number; tpotSeconds: number } {
  const sv =
    dpa && !speculates(o) && o.maxLoras === undefined ? dpa : replicaServingTime(m, o, t, r);
  const towerOne = towerTime(arch, o, r, 1);
  return { ttftSeconds: round(sv.ttft + (towerOne?.seconds ?? 0)), tpotSeconds: round(sv.tpot) };
}

/**
 * estimateTime's `ttftSeconds` and `tpotSeconds` of a serving configuration (method inference), without the
 * rest of its result (a serving fleet reads only these of each candidate replica: plan/plan-fleet.ts);
 * `poolSequences` as estimateTime's (a short pool runs that many, the rest queue).
 */
export function servingLatency(
  model: Arch,
  o: EstimateOptions,
  gpu: Gpu,
  t: TimeOptions,
  poolSequences?: number,
): { ttftSeconds: number; tpotSeconds: number } {
  const arch = servedArch(model, o);
  const m = modelFacts(arch);
  const r = gpuRates(gpu, t, true);
  t = unmergedServingOptions(o, t);
  const c = poolRunning(o, poolSequences);
  if (c !== undefined && queuesOnPool(m, o)) {
    const q = queuedLatency(latencyOf(arch, m, { ...o, batch: c }, t, r, null), o, c);
    return { ttftSeconds: round(q.ttftSeconds), tpotSeconds: round(q.tpotSeconds) };
  }
  return latencyOf(arch, m, o, t, r, dpAttentionTimed(m, o) ? dpAttentionTime(m, o, t, r) : null);
}

/** estimateTime's inference side: a decode step (DP attention, speculation, multi-LoRA) and TTFT / TPOT. */
function inferenceTime(
  arch: Arch,
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
  settings: TimeResult['settings'],
  tensorTflops: TimeResult['tensorTflops'],
  device: GpuContext,
): TimeResult {
  // DP attention: one rank's step of the engine whose MoE layers span every rank (time/expert-parallel.ts).
  const dpa = dpAttentionTimed(m, o) ? dpAttentionTime(m, o, t, r) : null;
  const d = dpa ? dpa.step : decodeStep(m, o, t, r, true, o.seq, promptTokensOf(o));
  const latency = latencyOf(arch, m, o, t, r, dpa);
  // Speculative decoding: the engine step drafts and verifies, each sequence keeps tokensPerStep tokens.
  // With DP attention each rank drafts and verifies its own sequences (time/speculative.ts).
  const spec = speculates(o) ? speculativeOf(m, o, t, r) : null;
  // The vision tower encodes a request's images before its prefill (time/vision.ts): in its TTFT, and a
  // phase of its own for the batch's images.
  const tower = towerTime(arch, o, r);
  const phases = DECODE_PHASES.map((p, i) => ({
    phase: p as string,
    seconds: round(d.phases[i]!),
  })).filter((p) => (p.phase !== 'decode-host' && p.phase !== 'expert-parallel') || p.seconds > 0);
  if (tower) phases.push({ phase: 'vision-encoder', seconds: round(tower.seconds) });
  // Multi-LoRA serving: the adapters' reads and kernels on every step (time/multi-lora.ts), a speculative
  // verify's and a DP-attention rank's too (the drafts run unadapted: vLLM's LoRAConfig, SGLang's lora_hook.py).
  const lora = loraStepTime(m, o, r, o.batch, t);
  const base = spec ? spec.stepSeconds : d.stepSeconds;
  const step = base + (lora?.seconds ?? 0);
  const tps = spec
    ? (spec.tokensPerSecond * spec.stepSeconds) / step
    : lora
      ? o.batch / step
      : d.tokensPerSecond;
  if (lora) phases.push({ phase: 'lora', seconds: round(lora.seconds) });
  // A burst from a cold start (time/burst.ts), for plain decoding (one replica, no speculation or adapters).
  const b = dpa || spec || lora ? undefined : burstTime(m, o, t, r, device);
  return {
    stepSeconds: round(step),
    tokensPerSecondPerGpu: round(tps / o.tp),
    mfu: round(d.flopsPerGpu / d.stepSeconds / r.peak16, 3),
    bound: d.bound,
    decodeTokensPerSecond: round(tps),
    ...latency,
    ...(b
      ? {
          burst: {
            ...b,
            ttftMeanSeconds: round(b.ttftMeanSeconds),
            ttftMaxSeconds: round(b.ttftMaxSeconds),
            outputTokensPerSecond: round(b.outputTokensPerSecond),
          },
        }
      : {}),
    phases,
    settings,
    tensorTflops,
    ...(dpa ? { expertParallel: expertParallelOf(o, dpa, tps) } : {}),
    ...(spec ? { speculative: spec.report } : {}),
    ...(lora
      ? { lora: { adaptersPerStep: lora.adaptersPerStep, seconds: round(lora.seconds) } }
      : {}),
  };
}

/**
 * Serving where the KV pool holds fewer sequences than --batch (time/pool-queue.ts): the step, rates and burst of the
 * c sequences that run, the queue in the steady TTFT and in the burst. Plain decoding only (one replica, no
 * speculation or adapters).
 */
/** The prefill of one wave's c prompts and of all --batch of them, packed in whole chunks (time/pool-queue.ts). */
function queuedPrefill(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
  device: GpuContext,
  c: number,
): { wave: number; packed: number } | undefined {
  const wave = burstPrefill(m, { ...o, batch: c }, t, r, device);
  const packed = burstPrefill(m, o, t, r, device);
  return wave && packed ? { wave: wave.seconds, packed: packed.seconds } : undefined;
}

function queuedInferenceTime(
  run: TimeResult,
  o: EstimateOptions,
  c: number,
  prefill?: { wave: number; packed: number },
): TimeResult {
  const lat = { ttftSeconds: run.ttftSeconds ?? 0, tpotSeconds: run.tpotSeconds ?? 0 };
  const q = queuedLatency(lat, o, c);
  const b = queuedBurst(run.burst, lat, o, c, prefill);
  return {
    ...run,
    ttftSeconds: round(q.ttftSeconds),
    tpotSeconds: round(q.tpotSeconds),
    burst: {
      ...b,
      ttftMeanSeconds: round(b.ttftMeanSeconds),
      ttftMaxSeconds: round(b.ttftMaxSeconds),
      outputTokensPerSecond: round(b.outputTokensPerSecond),
    },
  };
}

/** A bf16 training step on a card without bf16 tensor cores: the TFLOPS its matmuls run at there (bf16Rate). */
function withEmulatedBf16(
  tf: TimeResult['tensorTflops'],
  bf16: boolean,
  r: GpuRates,
): TimeResult['tensorTflops'] {
  return bf16 && r.gemmBf16Emulated !== undefined
    ? { ...tf, bf16Emulated: round(r.gemmBf16Emulated / 1e12, 2) }
    : tf;
}

/**
 * Time of one configuration on one GPU type: the same trainWork/trainStep/decodeStep the planner calls.
 * `poolSequences`: a serving estimate's KV pool, the sequences it holds at the mean context (the memory model's
 * `serving.sequencesAtMeanContext`); where fewer than --batch, that many run and the rest queue (time/pool-queue.ts).
 * `pagedSpilled`: training whose paged optimizer states do not all fit on the card (memory/paged.ts
 * pagedStatesSpill): each step migrates them (time/paged-migration.ts). Serving without images times the layers a
 * text-only request runs (model-facts.ts servedArch). `burstPool`: the KV pool's tokens (and a max_num_seqs below
 * --batch): a burst runs step by step on it (time/stepped-burst.ts); without it the burst is the static model of
 * time/burst.ts and time/pool-queue.ts, the cheap figure for callers that read only the steady state (the planner).
 */
export function estimateTime(
  model: Arch,
  o: EstimateOptions,
  gpu: Gpu,
  t: TimeOptions,
  poolSequences?: number,
  pagedSpilled = false,
  burstPool?: BurstPool,
): TimeResult {
  // MXFP4 experts the engine upcasts at load run as a BF16 model through its BF16 fused MoE (time/mxfp4-upcast.ts).
  const upcast = upcastsMxfp4Experts(o, gpu);
  if (upcast) o = upcastOptions(o);
  const arch = servedArch(model, o);
  const m = modelFacts(arch);
  const r = gpuRates(gpu, t, o.method === 'inference');
  const settings = {
    ...t,
    quantFormat: upcast
      ? 'triton-bf16'
      : kernelName(kernelOn(t.quantFormat ?? defaultQuantFormat(o), o, r), o, r),
    interconnect: t.interconnect ?? defaultInterconnect(gpu),
  } as TimeResult['settings'];
  const tensorTflops = { spec: r.spec16, sustained: round(r.sustained16) };
  if (o.method === 'inference') {
    t = serialLoopOptions(m, o, t);
    const res = servedTime(
      arch,
      m,
      o,
      unmergedServingOptions(o, t),
      r,
      settings,
      tensorTflops,
      gpu,
      poolSequences,
    );
    // With the pool's tokens known, the burst runs step by step as the engine admits it (time/stepped-burst.ts).
    const b =
      burstPool && burstSteps(m, o, t)
        ? steppedBurst(model, o, gpu, t, poolSequences, burstPool)
        : undefined;
    return b ? { ...res, burst: roundBurst(b) } : res;
  }
  return trainTime(m, o, t, r, settings, tensorTflops, arch, pagedSpilled);
}

/**
 * A served model the engine schedules in series with the GPU (FrameworkProfile.serialLoopModelTypes, or
 * serialLoopModelTypeReleases for the timing's release: its prefix cache on, `prefixCacheFraction` given, and no
 * speculation): TimeOptions.serialScheduler set.
 */
export function serialLoopOptions(m: ModelFacts, o: EstimateOptions, t: TimeOptions): TimeOptions {
  const profile = FRAMEWORKS[o.framework];
  const v = t.engineVersion;
  // A span of releases that ran the serial loop for the model type (serialLoopModelTypeReleases): only where the
  // timing names its release.
  const inSpan =
    v !== undefined &&
    (profile.serialLoopModelTypeReleases ?? []).some(
      (s) =>
        s.modelType === m.modelType &&
        !releaseNamedBeforePost(v, s.from) &&
        releaseNamedBeforePost(v, s.before),
    );
  const serial =
    o.prefixCacheFraction !== undefined &&
    !o.speculative &&
    (profile.serialLoopModelTypes?.includes(m.modelType) === true || inSpan);
  return serial && !t.serialScheduler ? { ...t, serialScheduler: true, serialLoop: true } : t;
}

/** The burst's rounded figures (its duration kept whole: the figure validate scores). */
const roundBurst = (b: BurstTime): BurstTime => ({
  ...b,
  ttftMeanSeconds: round(b.ttftMeanSeconds),
  ttftMaxSeconds: round(b.ttftMaxSeconds),
  outputTokensPerSecond: round(b.outputTokensPerSecond),
});

/** estimateTime's serving side: the c sequences the pool holds running and the rest queued, or all of them. */
function servedTime(
  arch: Arch,
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
  settings: TimeResult['settings'],
  tensorTflops: TimeResult['tensorTflops'],
  gpu: Gpu,
  poolSequences: number | undefined,
): TimeResult {
  const c = poolRunning(o, poolSequences);
  if (c === undefined || !queuesOnPool(m, o))
    return inferenceTime(arch, m, o, t, r, settings, tensorTflops, gpuContext(gpu));
  const run = inferenceTime(
    arch,
    m,
    { ...o, batch: c },
    t,
    r,
    settings,
    tensorTflops,
    gpuContext(gpu),
  );
  return queuedInferenceTime(run, o, c, queuedPrefill(m, o, t, r, gpuContext(gpu), c));
}

/** estimateTime's training side: one optimizer step (trainWork + trainStep), its phases and MoE figures. */
function trainTime(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
  settings: TimeResult['settings'],
  tensorTflops: TimeResult['tensorTflops'],
  arch: Arch,
  pagedSpilled: boolean,
): TimeResult {
  const w = trainWork(m, o, t);
  const phases = new Float64Array(TRAIN_PHASES.length);
  const bound = { value: 'compute' as Bound };
  const save = (t.savesPerStep ?? 0) * consolidatedSaveSeconds(m, o, w, r); // a timed run's saves
  const lmStep = trainStep(w, r, phases, bound, pagedSpilled);
  phases[TRAIN_PHASES.indexOf('overhead')]! += save;
  // The vision tower's forward (and backward when it takes part) per micro-batch (time/vision.ts).
  const tower = towerTime(arch, o, r);
  const step = lmStep + save + (tower ? tower.seconds * w.microBatches : 0);
  const tps = w.tokensPerStep / step / o.gpus;
  const towerFlopsPerSecond = tower ? (tower.modelFlops * w.microBatches) / step : 0;
  const moe =
    m.experts > 1
      ? {
          dispatch: w.moeDispatch,
          expertParallel: 1,
          expertsHitPerLayer: round(w.expertsHit, 3),
          loopSeconds:
            w.moeDispatch === 'loop'
              ? round(
                  lmStep -
                    trainStep(trainWork(m, o, t, 'grouped'), r, undefined, undefined, pagedSpilled),
                )
              : 0,
          adapterDeltaSeconds:
            w.deltaFwdBytes > 0
              ? round(
                  lmStep -
                    trainStep(
                      trainWork(m, o, t, w.moeDispatch, false),
                      r,
                      undefined,
                      undefined,
                      pagedSpilled,
                    ),
                )
              : 0,
        }
      : undefined;
  return {
    stepSeconds: round(step),
    tokensPerSecondPerGpu: round(tps),
    mfu: round((w.modelFlopsPerToken * tps + towerFlopsPerSecond) / r.peak16, 3),
    bound: bound.value,
    phases: [
      ...TRAIN_PHASES.map((p, i) => ({ phase: p as string, seconds: round(phases[i]!) })),
      { phase: 'vision-encoder', seconds: tower ? round(tower.seconds * w.microBatches) : 0 },
    ].filter((p) => p.seconds > 0),
    settings,
    tensorTflops: withEmulatedBf16(tensorTflops, w.bf16, r),
    ...(moe ? { moe } : {}),
  };
}
