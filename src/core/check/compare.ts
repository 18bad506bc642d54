/**
 * A finished run against its plan: per component (torch allocated, reserved, device; step time, tokens/s; time to
 * first token, time per output token) the measured / planned ratio, whether the measurement lies inside the
 * plan's uncertainty band, and the likeliest reasons when it does not. Pure.
 */
import { UNCERTAINTY } from '../memory/uncertainty.js';
import { ENGINE_PROFILES, FRAMEWORKS } from '../engines/store.js';
import { isEngine } from '../../schema/engine.js';
import type { RunPlan } from '../../schema/measured.js';

/**
 * The check's time band per kind of figure: the time model's out-of-sample p90 absolute error of that kind on the
 * shipped speed set (`vramplan validate --throughput`, summary groups kind:training, kind:decode, kind:serving and
 * kind:rl; nearest-rank p90), rounded up to 0.01. test/check/time-band.test.ts fails when a band is below its p90 or
 * 0.02 or more above it, so a change that moves a p90 moves its band. How each band got here: CHANGELOG.md.
 * Where each p90 stands on the shipped set (error = estimate / run - 1 in speed; + is a plan faster than its run):
 * - training: 451 rows, p90 0.543 (Scicom's small-ablation Qwen3-1.7B full fine-tune on one H100,
 *   scicom-q3-1.7b-full-h100, +54.3%; it rose from 0.443 with the sixteen MoE fine-tuning benchmark rows of Unsloth's
 *   MoE page and the RTX 5090 lane, yandex/YaFSDP's FSDP1 baseline table and the single-GPU Hugging Face path rows of
 *   Vertex Model Garden's OpenLLaMA-7B report, all scored before any model change).
 * - decode: 232 rows, p90 0.368 (huggingface/optimum-benchmark's Llama-2-7B FlashAttention-2 forward of 16 x 256 tokens
 *   on an A100, runllamas-fwd-l2-7b-fp16-fa2-a100-hf4352-b16, +36.8%; the band rose from 0.23 with the MoE microbatch
 *   rows of ggml-org/llama.cpp#15525 and ggml-org/llama.cpp#15631, from 0.29 with huggingface/optimum's ten prefill-only
 *   rows of Llama-2-13B on an A100, five of them past 0.283, and from 0.33 with optimum-benchmark's fourteen Llama-2-7B
 *   forward rows, +76.7% at most scored before any change).
 * - serving: 725 rows, p90 0.567 (sgl-project/sglang#30812's GLM-5.1 FP8 over TP 8 on eight MI300X at 64 in flight,
 *   sglang30812-glm51-fp8-8xmi300x-tp8-c64, +56.7%).
 * - rl: 90 rows, p90 0.331 (WYR186/RLVR's Qwen2.5-0.5B-Instruct full GRPO on an A100,
 *   rlvr-grpo-qwen2.5-0.5b-instruct-full-a100-c1280, +33.1%; three Unsloth GRPO runs of Qwen3-1.7B whose completions run
 *   far past their mean took the band up from 0.31).
 * The rows past each p90 and what they point to: docs/time-model.md "Known misses".
 * Time to first token has no calibration rows: it takes the serving band.
 */
export const TIME_UNCERTAINTY = { training: 0.55, decode: 0.37, serving: 0.58, rl: 0.34 } as const;

/**
 * Used memory a GPU showed before the run started above which other processes are named as a reason: most of
 * one CUDA context with its kernels (~1343 MiB on a V100: the notes of calibration/cases.json hfdocs-bert-02), so a GPU
 * past it holds at least one other process's context.
 */
export const OTHER_PROCESS_BYTES = 1024 ** 3;

export type Component =
  | 'allocated'
  | 'reserved'
  | 'device'
  | 'step time'
  | 'tokens/s per GPU'
  | 'time to first token'
  | 'time per output token';

export interface CheckRow {
  component: Component;
  unit: 'bytes' | 'seconds' | 'tokens/s';
  planned: number;
  measured: number;
  /** measured / planned */
  ratio: number;
  /** Where the measurement may lie and still agree with the plan. */
  band: { low: number; high: number };
  inside: boolean;
  /** Likeliest reasons, most likely first (empty when inside). */
  reasons: string[];
}

/** Everything the probe and the logs saw, reduced to one figure per component (null: not measured). */
export interface Observed {
  allocatedBytes: number | null;
  reservedBytes: number | null;
  deviceBytes: number | null;
  stepSeconds: number | null;
  tokensPerSecondPerGpu: number | null;
  ttftSeconds: number | null;
  tpotSeconds: number | null;
  concurrency: number | null;
  /** The largest used memory any of the run's GPUs showed before it started. */
  baselineBytes: number | null;
  gpuName: string | null;
  versions: Record<string, string | null>;
  fallbacks: string[];
  exitCode: number | null;
}

export interface CheckResult {
  rows: CheckRow[];
  inside: boolean;
  /** Notes that hold for the whole run (exit code, GPU, versions), shown even when every row is inside. */
  notes: string[];
}

const memoryBand = (planned: number) => ({
  // uncertainty.ts bandOf, applied to each memory component alike.
  low: planned * (1 - UNCERTAINTY.p90AbsError),
  high: planned / (1 - UNCERTAINTY.maxUnderError),
});

/** Band of a duration whose speed error (planned speed / measured speed - 1) may reach ±e. */
const durationBand = (planned: number, e: number) => ({
  low: planned / (1 + e),
  high: planned / (1 - e),
});
/** Band of a speed: measured within planned / (1 ± e). */
const speedBand = (planned: number, e: number) => ({
  low: planned * (1 - e),
  high: planned * (1 + e),
});

/** Pinned packages whose installed version differs (or that are not installed). */
export function versionDrift(plan: RunPlan, versions: Record<string, string | null>): string[] {
  const norm = (s: string) => s.toLowerCase().replace(/[-_.]+/g, '-');
  const installed = new Map(Object.entries(versions).map(([k, v]) => [norm(k), v]));
  const out: string[] = [];
  for (const [name, pin] of Object.entries(plan.pins)) {
    if (!installed.has(norm(name))) continue;
    const got = installed.get(norm(name));
    if (got !== pin) out.push(`${name} ${got ?? 'not installed'} (pinned ${pin})`);
  }
  return out;
}

/** The GPU model token of a name ("H100", "A100", "4090", "L40S"), upper case. */
const gpuToken = (name: string): string | null =>
  /\b([A-Z]{0,3}\d{2,4}[A-Z]?)\b/.exec(name.toUpperCase())?.[1] ?? null;

function reasonsFor(
  row: Omit<CheckRow, 'reasons'>,
  plan: RunPlan,
  seen: Observed,
  planGpuName: string,
): string[] {
  if (row.inside) return [];
  const high = row.measured > row.band.high;
  const memory = row.unit === 'bytes';
  // "Worse than planned": more memory, a longer duration, fewer tokens/s.
  const worse = row.unit === 'tokens/s' ? !high : high;
  const out: string[] = [];
  const measuredToken = seen.gpuName ? gpuToken(seen.gpuName) : null;
  const plannedToken = gpuToken(planGpuName);
  if (measuredToken && plannedToken && measuredToken !== plannedToken)
    out.push(`the run was on ${seen.gpuName}, the plan on ${planGpuName}`);
  const drift = versionDrift(plan, seen.versions);
  if (drift.length > 0) out.push(`library versions differ from the pins: ${drift.join(', ')}`);
  if (row.component === 'device' && high && (seen.baselineBytes ?? 0) > OTHER_PROCESS_BYTES)
    out.push(
      `other processes held ${(seen.baselineBytes! / 1024 ** 3).toFixed(1)} GiB on the GPU before the run started`,
    );
  if (seen.fallbacks.length > 0 && worse)
    out.push(`a kernel fell back to a slower path (log: "${seen.fallbacks[0]}")`);
  if (!worse && plan.estimate.tokensPerStep > 0 && row.component !== 'time to first token') {
    const seq = plan.flags.seq ?? 2048;
    out.push(
      memory
        ? `the data's sequences may be shorter than the planned ${seq} tokens (activations and logits scale with the real length)`
        : `the real sequences or outputs may be shorter than the planned ${seq} tokens`,
    );
  }
  if (
    (row.component === 'time to first token' || row.component === 'time per output token') &&
    seen.concurrency !== null &&
    plan.estimate.concurrency !== null &&
    Math.abs(seen.concurrency - plan.estimate.concurrency) > 0.5
  )
    out.push(
      `the observed concurrency (${seen.concurrency.toFixed(1)} requests at once) differs from the planned ${plan.estimate.concurrency}`,
    );
  if (seen.exitCode !== null && seen.exitCode !== 0)
    out.push(`the run exited with code ${seen.exitCode}: its peaks may be from a partial run`);
  if (out.length === 0)
    out.push(
      worse
        ? 'nothing in the record explains it: the estimate may miss an allocation or a cost of this configuration (send the run with --case)'
        : 'nothing in the record explains it: the estimate may count something this run did not allocate or do (send the run with --case)',
    );
  return out;
}

/** Compare what was measured with the plan, component by component where both have a figure. */
export function checkRun(plan: RunPlan, seen: Observed, planGpuName: string): CheckResult {
  const e = plan.estimate;
  const serving = plan.flags.method === 'inference';
  const timeE = serving
    ? isEngine(plan.engine) && FRAMEWORKS[ENGINE_PROFILES[plan.engine].framework].server
      ? TIME_UNCERTAINTY.serving
      : TIME_UNCERTAINTY.decode
    : plan.flags.objective === 'grpo'
      ? TIME_UNCERTAINTY.rl
      : TIME_UNCERTAINTY.training;
  const pending: Omit<CheckRow, 'reasons' | 'ratio' | 'inside'>[] = [];
  const add = (
    component: Component,
    unit: CheckRow['unit'],
    planned: number | null,
    measured: number | null,
    band: (p: number) => { low: number; high: number },
  ) => {
    if (planned === null || measured === null || !(planned > 0) || !(measured > 0)) return;
    pending.push({ component, unit, planned, measured, band: band(planned) });
  };
  add('allocated', 'bytes', e.allocatedBytes, seen.allocatedBytes, memoryBand);
  add('reserved', 'bytes', e.reservedBytes, seen.reservedBytes, memoryBand);
  add('device', 'bytes', e.deviceBytes, seen.deviceBytes, memoryBand);
  if (!serving) {
    add('step time', 'seconds', e.stepSeconds, seen.stepSeconds, (p) => durationBand(p, timeE));
    add('tokens/s per GPU', 'tokens/s', e.tokensPerSecondPerGpu, seen.tokensPerSecondPerGpu, (p) =>
      speedBand(p, timeE),
    );
  } else {
    add('time to first token', 'seconds', e.ttftSeconds, seen.ttftSeconds, (p) =>
      durationBand(p, timeE),
    );
    add('time per output token', 'seconds', e.tpotSeconds, seen.tpotSeconds, (p) =>
      durationBand(p, timeE),
    );
  }
  const rows = pending.map((r) => {
    const inside = r.measured >= r.band.low && r.measured <= r.band.high;
    const row = { ...r, ratio: r.measured / r.planned, inside };
    return { ...row, reasons: reasonsFor(row, plan, seen, planGpuName) };
  });
  const notes: string[] = [];
  if (seen.exitCode !== null && seen.exitCode !== 0)
    notes.push(`the run exited with code ${seen.exitCode}`);
  const drift = versionDrift(plan, seen.versions);
  if (drift.length > 0) notes.push(`versions differ from the pins: ${drift.join(', ')}`);
  return { rows, inside: rows.every((r) => r.inside), notes };
}
