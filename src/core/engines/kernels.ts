/**
 * Which GPUs each serving engine has kernels for, by weight format (compute capability, CUDA; gfx targets on ROCm)
 * and its fp8 KV cache: the planner's hardware gate and `estimate --gpu` refuse a format the engine cannot run on
 * the card, with one line naming the engine and what it runs there. Each engine's table is its def's `kernels`
 * (engines/<engine>/kernels.ts).
 */
import type { Engine } from '../../schema/engine.js';
import type { KvCacheDtype, WeightDtype } from '../../schema/estimate.js';
import { QUANT_FORMATS_FOR, type QuantFormat } from '../../schema/time.js';
import { engineDef } from './store.js';

const kernelsOf = (engine: Engine) => engineDef(engine).kernels;
const isRocm = (cc: string | null | undefined): boolean =>
  typeof cc === 'string' && cc.startsWith('gfx');

/** Compute capability as a number (null: not CUDA). */
export const ccOf = (cc: string | null | undefined): number => (cc ? Number(cc) : 0);

/** The least compute capability `engine` needs for `weights` (0: none). */
export function minComputeCapability(engine: Engine, weights: WeightDtype): number {
  return kernelsOf(engine)?.needs[weights]?.cc ?? 0;
}

/** Why `engine` runs nothing on a CUDA GPU of compute capability `cc` (its def's `floor`), or null. */
export function floorRefusal(engine: Engine, cc: string | null | undefined): string | null {
  const floor = kernelsOf(engine)?.floor;
  // CUDA GPUs only: AMD GPUs read the ROCm tables, Apple GPUs (no compute capability) the engine's own platforms.
  if (!floor || !cc || isRocm(cc) || ccOf(cc) >= floor.cc) return null;
  return `${engine} runs on compute capability ${floor.cc.toFixed(1)} and newer, not ${cc ?? 'none (not CUDA)'}: ${floor.why} (${floor.source})`;
}

/** The least compute capability `engine` runs anything on, on CUDA GPUs (0: none). */
export const engineFloorCapability = (engine: Engine): number => kernelsOf(engine)?.floor?.cc ?? 0;

/**
 * Whether `engine` runs `weights` on the AMD GPU of gfx target `gfx` (its def's `rocm` table; without one, or for
 * a format it needs nothing for, the CUDA table's verdict stands and this says true); `planner`: and the search
 * offers it there.
 */
export function runsOnRocm(
  engine: Engine,
  weights: WeightDtype,
  gfx: string,
  planner = false,
): boolean {
  const k = kernelsOf(engine);
  if (!k?.rocm || !k.needs[weights]) return true;
  const on = k.rocm[weights];
  return on?.targets.includes(gfx) === true && !(planner && on.searched === false);
}

/** The gfx target of an AMD GPU's compute capability, or null (CUDA, Apple). */
export const gfxOf = (cc: string | null | undefined): string | null => (isRocm(cc) ? cc! : null);

/**
 * Why `engine` cannot run `weights` on a GPU of compute capability `cc`, or null; `format`: the kernel family asked
 * for (`--quant-format`), where one runs below the format's least capability (needs `formats`).
 */
export function kernelRefusal(
  engine: Engine,
  weights: WeightDtype,
  cc: string | null | undefined,
  format?: QuantFormat | null,
): string | null {
  const k = kernelsOf(engine);
  const need = k?.needs[weights];
  if (!k || !need) return null;
  const source = k.source;
  const rocm = k.rocm;
  if (isRocm(cc) && rocm) {
    const family = format ? rocm[weights]?.refusedFormats?.[format] : undefined;
    if (family) return `${engine} has no ${format} ${weights} kernel on AMD GPUs: ${family}`;
    if (runsOnRocm(engine, weights, cc!)) return null;
    // A row with no targets only quotes the engine's refusal: it runs that format on no AMD GPU.
    const runs = Object.values(rocm)
      .filter((r) => r.targets.length > 0)
      .map((r) => r.why);
    const own = rocm[weights]?.elsewhere;
    return `${engine} has no ${weights} kernel for ${cc}${own ? `: ${own}` : ''} (on AMD GPUs it runs ${runs.join(', ')}; ${source})`;
  }
  const least = (format ? need.formats?.[format] : undefined) ?? need.cc;
  if (ccOf(cc) >= least) return null;
  return `${engine} has no ${weights} kernel for compute capability ${cc ?? 'none (not CUDA)'} (it runs ${need.why}; ${source})`;
}

/**
 * Where `engine` refuses the kernel family `format` (`--quant-format`) for `weights` on a CUDA GPU of compute capability
 * `cc` (its `refusedBelow`), the families it takes there and its refusal; else null.
 */
export function formatRefusal(
  engine: Engine,
  weights: WeightDtype,
  cc: string | null | undefined,
  format: QuantFormat | null | undefined,
): { allowed: QuantFormat[]; says: string } | null {
  const refused = kernelsOf(engine)?.needs[weights]?.refusedBelow;
  if (!refused || !format || isRocm(cc) || !cc) return null;
  const below = (f: QuantFormat) => {
    const r = refused[f];
    return r !== undefined && ccOf(cc) < r.cc;
  };
  if (!below(format)) return null;
  const allowed = (QUANT_FORMATS_FOR[weights] ?? []).filter((f) => !below(f));
  return { allowed, says: refused[format]!.says };
}

const NATIVE_FP8_CC = 8.9; // Ada, Hopper, Blackwell convert FP8 in hardware (vLLM fp8.md: "compute capability >= 8.9")

/** The engines the planner searches an fp8 KV cache on (vLLM, SGLang; llama.cpp as q8_0). */
export const searchesFp8Kv = (engine: Engine): boolean => kernelsOf(engine)?.kvFp8 !== undefined;

/** The least compute capability `engine` needs for a KV cache of `kv` (0: none; Infinity: not searched there). */
export function minKvCapability(engine: Engine, kv: KvCacheDtype | undefined): number {
  if (kv !== 'fp8') return 0;
  return kernelsOf(engine)?.kvFp8?.cc ?? Infinity;
}

/**
 * The engine's --kv-cache-dtype value for an fp8 KV cache on a GPU of compute capability `cc`. An AMD GPU whose
 * gfx target the engine runs FP8 on (MI300-class: its `rocm` fp8 row) converts FP8 in hardware as Hopper does
 * ("AMD MI300, NVIDIA Hopper or later support native hardware conversion", vLLM quantized_kvcache.md at v0.11.2:
 * https://docs.vllm.ai/en/v0.11.2/features/quantization/quantized_kvcache/), so it takes the native value;
 * other gfx targets (RDNA) the software one.
 */
export function fp8KvFlag(engine: Engine, cc: string | null | undefined): string {
  const k = kernelsOf(engine)?.kvFp8;
  if (!k) return 'fp8';
  const gfx = gfxOf(cc);
  if (gfx !== null) return kernelsOf(engine)?.rocm?.fp8?.targets.includes(gfx) ? k.native : k.below;
  return ccOf(cc) >= NATIVE_FP8_CC ? k.native : k.below;
}

/**
 * The compute capabilities `engine` runs flash attention of `modelType` on (its def's `flashOnly`), or null where
 * its flash kernel is the one the GPU catalog's supportsFlashAttention2 stands for.
 */
export function flashCapabilities(engine: Engine, modelType: string): readonly number[] | null {
  const f = engineDef(engine).flashOnly;
  return f?.modelTypes.includes(modelType) ? f.cc : null;
}

/** Why `engine` cannot run flash attention of `modelType` on a GPU of compute capability `cc`, or null. */
export function flashRefusal(
  engine: Engine,
  modelType: string,
  cc: string | null | undefined,
): string | null {
  const on = flashCapabilities(engine, modelType);
  if (on === null || on.includes(ccOf(cc))) return null;
  const f = engineDef(engine).flashOnly!;
  return `${engine} has no flash attention for ${modelType} on compute capability ${cc ?? 'none (not CUDA)'} (${f.why}; ${f.source})`;
}
