/**
 * What an engine itself runs, kept apart from what vramplan writes for it. The profile (profile.ts) is the
 * second set: the planner ranks, and `launch` writes, only what it accepts. An EngineRuns (the engine folder's
 * runs.ts) widens it to the first set, which `estimate --framework <engine>` accepts and models: each widening
 * and each remaining refusal cites the engine's own source (a file at a tag or commit) where it raises, lacks
 * the kernel or has no such entry point.
 */
import {
  isFloat8Compute,
  type Attention,
  type EstimateOptions,
  type Float8Compute,
} from '../../schema/estimate.js';
import type { Arch } from '../model/arch.js';
import { refusesShardedBnb, refusesShardedQuantized, type EngineProfile } from './profile.js';

/** The profile sets a refusal can come from (the source a refusal cites is the set's). */
export type RunsSet =
  | 'methods'
  | 'objectives'
  | 'parallel'
  | 'weights'
  | 'checkpointing'
  | 'attention'
  | 'optimizers'
  | 'float8'
  | 'optimizerInBackward';

/** The profile sets an engine's own runs may widen. */
export type Widened = Partial<
  Pick<
    EngineProfile,
    | 'methods'
    | 'objectives'
    | 'baseWeights'
    | 'fullWeights'
    | 'attention'
    | 'checkpointing'
    | 'optimizers'
    | 'float8'
    | 'maxDp'
    | 'tp'
    | 'pp'
    | 'cp'
    | 'zero'
    | 'shardedQuantized'
    | 'bnbOptimizersSharded'
    | 'offload'
    | 'offloadOptimizers'
  >
>;

export interface EngineRuns {
  /** Sets widened to what the engine runs (absent: what vramplan writes is all it runs). */
  widen: Widened;
  /** Where each set comes from in the engine's own source (a file at a tag or commit); `other` for the rest. */
  sources: Partial<Record<RunsSet, string>> & { other: string };
  /**
   * The engine picks its attention kernel itself: an `--attention` in `map` runs as the kernel it maps to,
   * `why` says how, with its source (the estimate models that kernel and says so in its notes).
   */
  attention?: { map: Partial<Record<Attention, Attention>>; why: string };
  /**
   * The loss kernel where the engine has no switch for it: the engine always runs `chunked(o)` (the planner and
   * `--framework` count that one: engines.ts engineFieldsInto); `why` says how, with its source (noted in the
   * estimate where `--chunked-loss` asks otherwise).
   */
  loss?: { chunked: (o: EstimateOptions) => boolean; why: string };
  /**
   * The engine runs sequences past the positions the model's config declares (it scales RoPE itself): why,
   * with its source. Absent: the config's length (max_position_embeddings or its rope-scaled length) bounds it.
   */
  extendsContext?: string;
  /**
   * The engine computes rotary positions for any index, so a sequence past the config's positions runs
   * (untrained): why, with its source, for a model of this type, or null where its positions come from a table.
   * The estimate runs past the bound with a warning; the planner keeps the config's bound (only extendsContext
   * widens it).
   */
  positionsPastConfig?: (modelType: string) => string | null;
  /**
   * Where the engine itself raises (or caps) on the model's structural limits (model/structure.ts): `tp`, a
   * tensor-parallel degree that does not split the attention heads; `seq`, a context past the positions the
   * model declares. The refusal cites it (a file at a tag or commit); absent: the limit is the model's alone.
   */
  limits?: { tp?: string; seq?: string };
  /**
   * LoRA over the linears FP8 training converts (`--method lora --compute fp8`/`mxfp8`): the engine wraps its
   * FP8 linear in an adapter class whose frozen base keeps its weight dtype, cast to 8 bits per forward and
   * backward, and trains 16-bit adapters beside it. What it runs and what the estimate approximates, with its
   * source; absent: FP8 training converts full fine-tunes only. Estimate only.
   */
  float8Lora?: string;
  /**
   * Where the engine trains a `--compute` FP8 recipe through another library than the one the estimate models
   * (torchao): what it runs, with its source, and what the estimate approximates. Estimate only.
   */
  float8Runs?: Partial<Record<Float8Compute, string>>;
  /**
   * Why the engine does not run Liger's kernels (`--liger`), with its own source (its config schema or trainer
   * code at a tag or commit, where Liger is not wired); the flag's refusal cites it. Absent on engines that run them.
   */
  noLiger?: string;
  /**
   * Where the engine's own check of the GPU's FP8 capability raises (a file at a tag or commit, and what it
   * checks), per recipe it runs: the source kernels/float8.ts float8Refusal cites. Absent: torch's own check.
   */
  float8Check?: Partial<Record<Float8Compute, string>>;
  /**
   * Where the engine's own hardware check refuses its FP8 recipe on a GPU whose FP8 kernels exist
   * (kernels/float8.ts float8Refusal passes it): why, with its source, or null. Estimate only.
   */
  float8Gpu?: (compute: Float8Compute, cc: string | null | undefined) => string | null;
  /**
   * A layout the engine runs that places this model as another layout does: rewrites `o` to that layout and says
   * what is estimated and why (with its source), or null where it does not apply. Estimate only.
   */
  estimatedAs?: (arch: Arch, o: EstimateOptions) => string | null;
  /**
   * The engine reads a GGUF file (`--weights q4_k_m`, ...) by dequantizing every tensor as it loads: the GPU
   * holds the float model in `dtype`, computing in it. Why, with its source; the estimate runs as that dtype with
   * this note (context.ts estimatedAs). Absent: a GGUF `--weights` is refused unless the engine loads GGUF
   * kernels. Estimate only: the planner searches no GGUF types on it and `launch` writes none.
   */
  ggufDequantized?: {
    dtype: 'fp32' | 'bf16' | 'fp16';
    why: string;
    /** The model_types whose GGUF architecture the loader reads; another is refused with `refuses`. */
    modelTypes: readonly string[];
    refuses: string;
  };
  /**
   * The engine splits weight matrices by rows at any degree (llama.cpp --split-mode row): the attention heads do
   * not bound `--tp` on it. Why, with its source.
   */
  tpAnyDegree?: string;
  /**
   * What an estimate on `dp` > 1 data-parallel ranks runs as on this engine (its launch and sharding layout),
   * with its source, or null; absent: nothing to say.
   */
  parallelNote?: (o: EstimateOptions, dp: number) => string | null;
  /**
   * The engine's own account of a refusal of `set` where the set's line says less: what it runs instead, with
   * its source (a file at a tag or commit), or null for the set's line.
   */
  refusal?: (o: EstimateOptions, set: RunsSet | 'other') => string | null;
}

/** The profile `estimate` checks a configuration against: what vramplan writes, widened to what the engine runs. */
export const runsProfile = (p: EngineProfile, r: EngineRuns): EngineProfile =>
  Object.keys(r.widen).length === 0 ? p : { ...p, ...r.widen };

/** The layout falls outside the engine's: its degrees, its ZeRO stage, an offload at a stage without it. */
const PARALLEL_LIMITED = (p: EngineProfile, o: EstimateOptions, dp: number): boolean =>
  dp > p.maxDp ||
  (o.tp > 1 && !p.tp) ||
  (o.pp > 1 && !p.pp) ||
  (o.cp > 1 && !p.cp) ||
  !p.zero.includes(o.zero) ||
  (o.offload !== 'none' && !(p.offload[o.offload] ?? []).includes(o.zero));

/**
 * The set of `p` a refused configuration falls outside (for the source its refusal cites), in the order
 * engineRejects (engines.ts) checks them, so the source is the one of the line it gives.
 */
export function refusedSet(p: EngineProfile, o: EstimateOptions, dp: number): RunsSet | 'other' {
  if (!p.methods.includes(o.method)) return 'methods';
  if (o.objective !== undefined && !p.objectives.includes(o.objective)) return 'objectives';
  if (PARALLEL_LIMITED(p, o, dp)) return 'parallel';
  const weights = o.method === 'full' ? p.fullWeights : p.baseWeights;
  if (!weights.includes(o.weights)) return 'weights';
  if (refusesShardedQuantized(p, o, dp)) return 'other';
  if (!p.checkpointing.includes(o.checkpointing)) return 'checkpointing';
  if (!p.attention.includes(o.attention)) return 'attention';
  if (!p.optimizers.includes(o.optimizer)) return 'optimizers';
  // A host step for an optimizer the engine runs on the GPU only is its offload layout's.
  if (o.offload !== 'none' && !p.offloadOptimizers.includes(o.optimizer)) return 'parallel';
  // A bitsandbytes optimizer over sharded ranks: the optimizer's (checked before FP8, as engineRejects does).
  if (refusesShardedBnb(p, o, dp)) return 'optimizers';
  if (isFloat8Compute(o.compute) && !(p.float8 ?? []).includes(o.compute)) return 'float8';
  if (o.optimizerInBackward && !p.optimizerInBackward) return 'optimizerInBackward';
  return 'other';
}

/** The source a refusal of `set` cites. */
export const runsSource = (r: EngineRuns, set: RunsSet | 'other'): string =>
  (set === 'other' ? undefined : r.sources[set]) ?? r.sources.other;
