/**
 * Which AMD GPUs a training engine runs on through the torch its launch folder pins (its profile's `torch`): the
 * ROCm wheels of that torch carry kernels for some gfx targets only (launch/rocm-torch.ts torchRocmRefusal). The
 * planner's hardware gate and `estimate --gpu` refuse the others, naming the engines whose torch runs there.
 */
import type { Engine } from '../../schema/engine.js';
import { torchRocmRefusal } from '../launch/rocm-torch.js';
import { ENGINE_PROFILES } from './store.js';

// Per engine, per gfx target (the planner's hardware gate asks per row and GPU option).
const cache = new Map<Engine, Map<string, string | null>>();

/** Why `engine`'s pinned torch has no kernels for the AMD gfx target `gfx`, or null (it has, or no pin). */
function torchLacks(engine: Engine, gfx: string): string | null {
  let byGfx = cache.get(engine);
  if (!byGfx) cache.set(engine, (byGfx = new Map()));
  const hit = byGfx.get(gfx);
  if (hit !== undefined) return hit;
  const torch = ENGINE_PROFILES[engine]?.torch;
  const why = torch === undefined ? null : torchRocmRefusal(torch, gfx);
  byGfx.set(gfx, why);
  return why;
}

/** Whether `engine`'s pinned torch runs on the AMD gfx target `gfx` (the planner's hardware gate). */
export const torchRunsOn = (engine: Engine, gfx: string): boolean =>
  torchLacks(engine, gfx) === null;

/** The engines that pin a torch whose ROCm wheels run on `gfx`. */
export const enginesWithTorchOn = (gfx: string): Engine[] =>
  (Object.keys(ENGINE_PROFILES) as Engine[]).filter(
    (e) => ENGINE_PROFILES[e].torch !== undefined && torchRunsOn(e, gfx),
  );

/** Why `engine` cannot run on a GPU of compute capability `cc` (a gfx target) through its pinned torch, or null. */
export function torchTargetRefusal(engine: Engine, cc: string | null | undefined): string | null {
  if (!cc?.startsWith('gfx')) return null;
  const why = torchLacks(engine, cc);
  if (!why) return null;
  const runs = enginesWithTorchOn(cc);
  return `${engine}'s pinned torch has no ${cc} kernels: ${why}; engines whose pinned torch runs on ${cc}: ${runs.join(', ') || 'none'}`;
}
