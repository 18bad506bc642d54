/**
 * A decode step's routed experts on the engine's default fused_moe tiles. The Triton fused_moe picks its tiles from a
 * tuned config file named for the layer's local experts, the down projection's input width on one rank, the card and
 * the experts' dtype family, else from `get_default_config` (vLLM's `try_get_optimal_moe_config`,
 * vllm/model_executor/layers/fused_moe/fused_moe.py; SGLang's `get_moe_configs`, fused_moe_triton_config.py), whose
 * kernel runs longer than a tuned file's at some token counts. The engine's profile (`fusedMoeTile16.defaults`) gives,
 * per dtype family, which files each release ships, which kernel runs the experts and the default tiles' slowdown by
 * tokens, each from its own source (engines/vllm/moe-tiles.ts, engines/sglang/fused-moe-configs.ts), and where a
 * tuned file applies, its BLOCK_SIZE_M by M-bucket (tunedBlockM; the padded rows of moe-pad-rows.ts). The experts'
 * GEMMs at decode are the step's routed-expert bytes at the card's read rate (the model's expert time), so the default
 * tiles add (slowdown - 1) of it.
 */
import { FRAMEWORKS } from '../memory/frameworks.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import type { TimeOptions } from '../../schema/time.js';
import { isBlockScaledFp8, runsBlockFp8Path } from './block-fp8.js';
import { routedBatch } from './graph-step.js';
import type { GpuRates } from './hardware.js';
import type { ModelFacts } from './model-facts.js';
import type { MoeFamilyTiles, MoeTileFamily, MoeTileMN, TunedFileTile } from './moe-grid-types.js';

/** The layer's local experts and the down projection's input width on one rank (vLLM's `E, _, N = w2_shape`). */
function localShape(m: ModelFacts, o: EstimateOptions): { e: number; n: number } {
  const ep = o.ep ?? 1;
  return { e: m.experts / ep, n: m.expertFfn / (ep > 1 ? 1 : o.tp) };
}

/**
 * The dtype family whose files the step's experts look up: block-scaled FP8 experts on that path (block-fp8.ts
 * runsBlockFp8Path), or run with their FP8 weights on an AMD GPU (no compute capability; which kernel runs them is
 * the profile's `rocmTriton`), else 16-bit experts on the Triton fused_moe (`triton16`, decode.ts moeLayersSeconds);
 * none else.
 */
function tileFamily(
  m: ModelFacts,
  o: EstimateOptions,
  r: GpuRates,
  triton16: boolean,
): MoeTileFamily | undefined {
  if (runsBlockFp8Path(m.arch, o, r.cc)) return 'blockFp8';
  if (r.rocm && o.weights === 'fp8' && isBlockScaledFp8(m.arch)) return 'blockFp8';
  return triton16 ? 'bits16' : undefined;
}

/**
 * Whether the Triton fused_moe runs the family's experts: on an AMD GPU the profile's `rocmTriton` at the run's AITER
 * setting (TimeOptions.rocmAiter), required; elsewhere its `triton` at the card's compute capability, where listed.
 */
function runsTriton(
  d: MoeFamilyTiles,
  t: TimeOptions,
  r: GpuRates,
  tokens: number,
): boolean | undefined {
  if (r.rocm) return d.rocmTriton?.(t.engineVersion, t.rocmAiter === true);
  return d.triton === undefined ? true : d.triton(t.engineVersion, r.cc, tokens);
}

/** A step's tuned-file lookup: its family's listing, the release and the layer's local shape. */
interface FamilyLookup {
  d: MoeFamilyTiles;
  v: string | undefined;
  gpuId: string;
  e: number;
  n: number;
}

/**
 * The step's tuned-file lookup where it can be read: the Triton fused_moe runs the experts of a family the engine lists
 * at the call's `tokens` (the step's routed batch); undefined where that is not so or not known (on an AMD GPU, a
 * profile without `rocmTriton`), under DP attention (its gathered tokens' shapes are not read), under expert
 * parallelism where the family's lookup is not read per rank, or where the run added a tuned file
 * (TimeOptions.moeTunedConfig: its contents are not known).
 */
function familyLookup(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
  call: { triton16: boolean; tokens: number },
): FamilyLookup | undefined {
  const family = tileFamily(m, o, r, call.triton16);
  const d =
    family === undefined ? undefined : FRAMEWORKS[o.framework].fusedMoeTile16?.defaults?.[family];
  if (d === undefined || r.gpuId === undefined || m.experts <= 1) return undefined;
  if (t.moeTunedConfig === true || o.dpAttention === true) return undefined;
  if ((o.ep ?? 1) > 1 && d.localUnderEp !== true) return undefined;
  const v = t.engineVersion;
  if (runsTriton(d, t, r, call.tokens) !== true) return undefined;
  const { e, n } = localShape(m, o);
  return Number.isInteger(n) ? { d, v, gpuId: r.gpuId, e, n } : undefined;
}

/** Whether the lookup's tuned file applies: the listing's answer, false where the run's build had none (moeDefaultTiles). */
function tunedAt(l: FamilyLookup, t: TimeOptions): boolean | undefined {
  return t.moeDefaultTiles === true ? false : l.d.tuned(l.v, l.e, l.n, l.gpuId);
}

/** The family's listing where the step runs the default tiles: no tuned file matches its lookup (familyLookup). */
function untunedFamily(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
  call: { triton16: boolean; tokens: number },
): MoeFamilyTiles | undefined {
  const l = familyLookup(m, o, t, r, call);
  return l !== undefined && tunedAt(l, t) === false ? l.d : undefined;
}

/** The tuned file's tile the step's Triton fused_moe reads at `tokens` token rows (MoeFamilyTiles.tile), if any. */
function tunedFileTile(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
  s: { triton16: boolean; tokens: number },
): TunedFileTile | undefined {
  const l = familyLookup(m, o, t, r, s);
  if (l === undefined || tunedAt(l, t) !== true) return undefined;
  return l.d.tile?.(l.v, l.e, l.n, l.gpuId, s.tokens);
}

/**
 * BLOCK_SIZE_M of the tuned file the step's Triton fused_moe reads at `tokens` token rows, where the engine ships one
 * for the step's lookup (familyLookup) and keeps its entries (MoeFamilyTiles.tile); undefined elsewhere (the default
 * tiles' BLOCK_SIZE_M then holds).
 */
export function tunedBlockM(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
  s: { triton16: boolean; tokens: number },
): number | undefined {
  return tunedFileTile(m, o, t, r, s)?.m;
}

/**
 * BLOCK_SIZE_M and BLOCK_SIZE_N of the tuned file's bucket the step's Triton fused_moe reads at `tokens` token rows
 * (tunedBlockM's file and bucket), where both are kept; undefined elsewhere (the default tiles then hold). One config
 * serves both GEMMs of the call (`fused_experts_impl` passes it to both `invoke_fused_moe_kernel` calls: vllm==0.10.2
 * fused_moe.py, sglang==0.5.23 fused_moe.py).
 */
export function tunedTile(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
  s: { triton16: boolean; tokens: number },
): MoeTileMN | undefined {
  const tile = tunedFileTile(m, o, t, r, s);
  return tile?.n === undefined ? undefined : { m: tile.m, n: tile.n };
}

/**
 * Seconds a decode step's MoE layers spend beyond a tuned file's kernels on the default tiles (untunedFamily says
 * where); 0 elsewhere. `layerBytes`: one MoE layer's routed-expert bytes on one GPU this step; `triton16`: the step
 * runs 16-bit experts through the Triton fused_moe.
 */
export function defaultTileSeconds(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  r: GpuRates,
  layerBytes: number,
  triton16: boolean,
): number {
  const tokens = routedBatch(o, t, r, o.batch);
  const d = untunedFamily(m, o, t, r, { triton16, tokens });
  if (d === undefined || layerBytes <= 0) return 0;
  const factor = d.slowdown(tokens, localShape(m, o).e);
  return m.moeLayers * (layerBytes / r.mem) * (factor - 1);
}
