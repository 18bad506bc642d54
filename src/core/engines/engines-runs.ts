/**
 * What each engine runs (its folder's runs.ts), beside what vramplan writes (engines.ts ENGINE_PROFILES):
 * `estimate --framework <engine>` accepts the first set, the planner and `launch` only the second. Launcher-free,
 * for the estimate's cold path.
 */
import type { Engine } from '../../schema/engine.js';
import type { Attention, EstimateOptions } from '../../schema/estimate.js';
import { ENGINE_PROFILES, engineRejects } from './engines.js';
import type { EngineProfile } from './profile.js';
import { refusedSet, runsProfile, runsSource, type EngineRuns } from './runs.js';
import { HF_TRAINER_RUNS } from './hf-trainer/runs.js';
import { HF_FSDP_RUNS } from './hf-fsdp/runs.js';
import { HF_DEEPSPEED_RUNS } from './hf-deepspeed/runs.js';
import { HF_GENERATE_RUNS } from './hf-generate/runs.js';
import { TORCHTUNE_RUNS } from './torchtune/runs.js';
import { TORCHTITAN_RUNS } from './torchtitan/runs.js';
import { LITGPT_RUNS } from './litgpt/runs.js';
import { UNSLOTH_RUNS } from './unsloth/runs.js';
import { VLLM_RUNS } from './vllm/runs.js';
import { SGLANG_RUNS } from './sglang/runs.js';
import { LLAMA_CPP_RUNS } from './llama-cpp/runs.js';

export const ENGINE_RUNS: Record<Engine, EngineRuns> = {
  'hf-trainer': HF_TRAINER_RUNS,
  'hf-fsdp': HF_FSDP_RUNS,
  'hf-deepspeed': HF_DEEPSPEED_RUNS,
  torchtune: TORCHTUNE_RUNS,
  torchtitan: TORCHTITAN_RUNS,
  litgpt: LITGPT_RUNS,
  unsloth: UNSLOTH_RUNS,
  vllm: VLLM_RUNS,
  'hf-generate': HF_GENERATE_RUNS,
  sglang: SGLANG_RUNS,
  'llama.cpp': LLAMA_CPP_RUNS,
};

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
  return `${engine} ${why} (${runsSource(ENGINE_RUNS[engine], refusedSet(p, o, dp))})`;
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
  return why
    ? `vramplan writes no ${engine} launch files for this configuration (what it writes: ${why}); the engine runs it, and estimate models it`
    : null;
}

/** The note for a given `--chunked-loss` the engine runs without (it has no switch), or null. */
export function lossNote(engine: Engine, given: unknown, o: EstimateOptions): string | null {
  const loss = ENGINE_RUNS[engine].loss;
  if (!loss || given === undefined || given === false || o.chunkedLoss) return null;
  return `--chunked-loss runs unchunked on ${engine} here: ${loss.why}`;
}

/** The note for an `--attention` the engine maps to the kernel it picks itself, or null. */
export function attentionNote(engine: Engine, given: unknown): string | null {
  const a = ENGINE_RUNS[engine].attention;
  const runs = a?.map[given as Attention];
  if (!a || !runs || runs === given) return null;
  return `--attention ${String(given)} runs as ${runs} on ${engine}: ${a.why}`;
}
