/**
 * Which engines run on Apple GPUs (Metal / MPS): an engine whose profile says why it does not (`notOnApple`, its
 * own docs or source) is kept off them by the planner's hardware gate and refused by `estimate --gpu`, naming the
 * engines not refused there. Of an engine that runs there, its quantized base weights run where its profile's
 * `appleWeights` says its pinned quantization path runs them on MPS; both refuse the formats it fails on there.
 */
import type { Engine } from '../../schema/engine.js';
import type { Gpu } from '../../schema/gpu.js';
import type { Optimizer, WeightDtype } from '../../schema/estimate.js';
import { ENGINE_PROFILES } from './store.js';
import { OPTIMIZER_PROFILES } from './optimizers.js';

/** Whether `engine` runs on Apple GPUs (its profile has no `notOnApple`). */
export const runsOnApple = (engine: Engine): boolean =>
  ENGINE_PROFILES[engine]?.notOnApple === undefined;

/** Why `engine` cannot run on `gpu` (an Apple GPU), or null (it can, or the GPU is not Apple's). */
export function appleRefusal(engine: Engine, gpu: Pick<Gpu, 'vendor'>): string | null {
  if (gpu.vendor !== 'apple') return null;
  const why = ENGINE_PROFILES[engine]?.notOnApple;
  if (why === undefined) return null;
  const runs = (Object.keys(ENGINE_PROFILES) as Engine[]).filter(runsOnApple);
  return `${engine} has no Apple GPU path: ${why}; engines not refused on Apple GPUs: ${runs.join(', ') || 'none'}`;
}

/** Whether `optimizer` steps on Apple GPUs (its profile has no `notOnApple`: bitsandbytes' 8-bit and paged ones do not). */
export const optimizerRunsOnApple = (optimizer: Optimizer): boolean =>
  OPTIMIZER_PROFILES[optimizer]?.notOnApple === undefined;

/** Why `optimizer` cannot step on `gpu` (an Apple GPU), or null. */
export function appleOptimizerRefusal(
  optimizer: Optimizer,
  gpu: Pick<Gpu, 'vendor'>,
): string | null {
  if (gpu.vendor !== 'apple') return null;
  const why = OPTIMIZER_PROFILES[optimizer]?.notOnApple;
  return why === undefined ? null : `${optimizer} does not step on Apple GPUs: ${why}`;
}

/** Quantized base-weight formats whose Apple GPU path an engine's profile reads (EngineProfile.appleWeights). */
const APPLE_QUANTIZED: ReadonlySet<WeightDtype> = new Set<WeightDtype>([
  'nf4',
  'fp4',
  'int8',
  'int4',
]);

/**
 * How `engine`'s quantization path takes `weights` on Apple GPUs: `runs` and `fails` as its profile's appleWeights
 * lists them, `unread` for a quantized format in neither, null for weights that are not quantized this way.
 */
export function appleWeightsOf(
  engine: Engine,
  weights: WeightDtype,
): 'runs' | 'fails' | 'unread' | null {
  if (!APPLE_QUANTIZED.has(weights)) return null;
  const a = ENGINE_PROFILES[engine]?.appleWeights;
  if (a?.runs?.weights.includes(weights) === true) return 'runs';
  return a?.fails?.weights.includes(weights) === true ? 'fails' : 'unread';
}

/** Why `engine` cannot run `weights` on `gpu` (an Apple GPU): its profile's source for a format it fails on, or null. */
export function appleWeightsRefusal(
  engine: Engine,
  gpu: Pick<Gpu, 'vendor'>,
  weights: WeightDtype,
): string | null {
  if (gpu.vendor !== 'apple' || appleWeightsOf(engine, weights) !== 'fails') return null;
  const a = ENGINE_PROFILES[engine]!.appleWeights!;
  const runs = a.runs?.weights.join(', ') ?? '';
  return `${engine} does not run ${weights} weights on Apple GPUs: ${a.fails!.why}; quantized weights it runs there: ${runs || 'none'}`;
}

// liger-kernel 0.8.5 requires triton>=2.3.1 on every platform (its wheel's Requires-Dist,
// https://pypi.org/project/liger-kernel/0.8.5/), and PyPI publishes Triton wheels for Linux only (no macOS file at
// https://pypi.org/project/triton/3.9.0/#files; Triton's README lists Linux as its supported platform).
const LIGER_NOT_ON_APPLE =
  "Liger's kernels are Triton kernels: liger-kernel 0.8.5 requires triton>=2.3.1 (its wheel's Requires-Dist, https://pypi.org/project/liger-kernel/0.8.5/) and PyPI has no Triton wheel for macOS (https://pypi.org/project/triton/3.9.0/#files), so it does not install next to an Apple GPU";

/**
 * Whether a run of `engine` loads Liger's kernels: `--liger`, or a chunked loss on an engine that loads Liger
 * (its profile's liger: the Hugging Face engines write use_liger_kernel for either, hf/trainer.ts and hf/axolotl.ts).
 */
export const loadsLiger = (engine: Engine, o: { liger: boolean; chunkedLoss: boolean }): boolean =>
  ENGINE_PROFILES[engine]?.liger === true && (o.liger || o.chunkedLoss);

/** Why a run of `engine` with `o` cannot load its kernels on `gpu` (an Apple GPU): Liger's, or null. */
export function appleKernelsRefusal(
  engine: Engine,
  gpu: Pick<Gpu, 'vendor'>,
  o: { method: string; liger: boolean; chunkedLoss: boolean },
): string | null {
  if (gpu.vendor !== 'apple' || o.method === 'inference' || !loadsLiger(engine, o)) return null;
  return `${engine} with ${o.liger ? 'Liger kernels' : "a chunked loss (Liger's fused linear cross-entropy)"} does not run on Apple GPUs: ${LIGER_NOT_ON_APPLE}; without them it does`;
}
