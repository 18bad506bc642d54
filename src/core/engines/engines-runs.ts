/**
 * What each engine runs (its folder's runs.ts), beside what vramplan writes (engines.ts ENGINE_PROFILES):
 * `estimate --framework <engine>` accepts the first set, the planner and `launch` only the second. Launcher-free,
 * for the estimate's cold path.
 */
import type { Engine } from '../../schema/engine.js';
import {
  isFloat8Compute,
  type Attention,
  type EstimateOptions,
  type Float8Compute,
} from '../../schema/estimate.js';
import { ENGINE_PROFILES, engineRejects } from './engines.js';
import type { EngineProfile } from './profile.js';
import { refusedSet, runsProfile, runsSource } from './runs.js';
import { ENGINE_RUNS } from './store.js';

export { ENGINE_RUNS };

/** What `engine` runs: its profile widened by its runs.ts. */
export const engineRuns = (engine: Engine): EngineProfile =>
  runsProfile(ENGINE_PROFILES[engine], ENGINE_RUNS[engine]);

/**
 * Why `engine` itself cannot run `o` (outside what it runs), citing the engine's source for the set the
 * configuration falls outside, or null.
 */
export function runsRefusal(
  engine: Engine,
  o: EstimateOptions,
  dp: number,
  accum: number,
): string | null {
  const p = engineRuns(engine);
  const why = engineRejects(engine, o, dp, accum, true, p);
  if (!why) return null;
  const set = refusedSet(p, o, dp);
  const own = ENGINE_RUNS[engine].refusal?.(o, set);
  if (own) return `${engine}: ${own}`;
  return `${engine} ${why} (${runsSource(ENGINE_RUNS[engine], set)})`;
}

/**
 * Why vramplan writes no files for `o` on `engine` although the engine runs it (what `launch` refuses and the
 * planner never ranks), or null.
 */
export function notWritten(
  engine: Engine,
  o: EstimateOptions,
  dp: number,
  accum: number,
): string | null {
  const why = engineRejects(engine, o, dp, accum);
  if (!why) return null;
  // The engine's own account of the layout (how it is told, with its source), where it has one.
  const how = ENGINE_RUNS[engine].parallelNote?.(o, dp);
  return `vramplan writes no ${engine} launch files for this configuration (what it writes: ${why}); the engine runs it, and estimate models it${how ? ` (${how})` : ''}`;
}

/** The note for a given `--chunked-loss` the engine runs otherwise (it has no switch), or null. */
export function lossNote(engine: Engine, given: unknown, o: EstimateOptions): string | null {
  const loss = ENGINE_RUNS[engine].loss;
  if (!loss || given === undefined || Boolean(given) === o.chunkedLoss) return null;
  const asked = given ? '--chunked-loss' : '--chunked-loss false';
  return `${asked} runs ${o.chunkedLoss ? 'chunked' : 'unchunked'} on ${engine} here: ${loss.why}`;
}

/** The note for an `--attention` the engine maps to the kernel it picks itself, or null. */
export function attentionNote(engine: Engine, given: unknown): string | null {
  const a = ENGINE_RUNS[engine].attention;
  const runs = a?.map[given as Attention];
  if (!a || !runs || runs === given) return null;
  return `--attention ${String(given)} runs as ${runs} on ${engine}: ${a.why}`;
}

/** The note saying which of the engine's multi-GPU launches an estimate on several ranks is, or null. */
export function parallelNote(engine: Engine, o: EstimateOptions): string | null {
  const dp = Math.floor(o.gpus / (o.tp * o.pp * o.cp));
  return ENGINE_RUNS[engine].parallelNote?.(o, dp) ?? null;
}

/** The note for LoRA over the engine's FP8 linears (`--method lora --compute fp8`/`mxfp8`), or null. */
export function float8LoraNote(engine: Engine, o: EstimateOptions): string | null {
  if (o.method !== 'lora' || !isFloat8Compute(o.compute)) return null;
  return ENGINE_RUNS[engine].float8Lora ?? null;
}

/** The note for an FP8 recipe the engine trains through another library than torchao, or null. */
export function float8RunsNote(engine: Engine, o: EstimateOptions): string | null {
  if (!isFloat8Compute(o.compute)) return null;
  return ENGINE_RUNS[engine].float8Runs?.[o.compute] ?? null;
}

/**
 * torch's FP8 GEMM gate, for an engine whose runs name no FP8 check of their own: _scaled_mm_allowed_device
 * raises "torch._scaled_mm is only supported on CUDA devices with compute capability >= 9.0 or 8.9, or ROCm MI300+".
 */
const TORCH_SCALED_MM =
  'torch._scaled_mm_allowed_device, https://github.com/pytorch/pytorch/blob/v2.12.1/aten/src/ATen/native/cuda/ScaledBlas.cpp';

/** The source the FP8 capability refusal of `compute` on `engine` cites: the engine's own check. */
export const float8CheckSource = (engine: Engine, compute: Float8Compute): string =>
  ENGINE_RUNS[engine].float8Check?.[compute] ?? TORCH_SCALED_MM;

/** Why the engine's own hardware check refuses its FP8 recipe on a GPU of compute capability `cc`, or null. */
export const float8GpuRefusal = (
  engine: Engine,
  compute: Float8Compute,
  cc: string | null | undefined,
): string | null => ENGINE_RUNS[engine].float8Gpu?.(compute, cc) ?? null;

/** The note for LoRA targets the engine's recipes chose (no --lora-targets given), or null. */
export function loraTargetsNote(engine: Engine, given: unknown, o: EstimateOptions): string | null {
  if (given !== undefined || (o.method !== 'lora' && o.method !== 'qlora')) return null;
  const d = ENGINE_PROFILES[engine].defaults.find((x) => x.flag === 'lora-targets');
  if (!d) return null;
  const t = o.loraAllLinear ? 'all-linear' : o.loraTargets.join(',');
  return `LoRA targets ${t} on ${engine}: ${d.why}; --lora-targets to change`;
}
