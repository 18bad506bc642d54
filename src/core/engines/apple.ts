/**
 * Which engines run on Apple GPUs (Metal / MPS): an engine whose profile says why it does not (`notOnApple`, its
 * own docs or source) is kept off them by the planner's hardware gate and refused by `estimate --gpu`, naming the
 * engines not refused there.
 */
import type { Engine } from '../../schema/engine.js';
import type { Gpu } from '../../schema/gpu.js';
import type { Optimizer } from '../../schema/estimate.js';
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
