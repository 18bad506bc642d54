/**
 * The host housekeeping of a colocated vLLM put to sleep between generation batches (--rollout-sleep): the full
 * garbage collections and caching-allocator flushes its engine's sleep and wake-up run around each batch
 * (FrameworkProfile.rolloutSleepCycle), paid on the host whatever the batch's length.
 */
import type { FrameworkProfile } from '../memory/framework-profile.js';

// One full gc.collect() in a training process that holds torch, transformers and PEFT: dropping it from every step of
// PEFT's MetaMathQA method-comparison script took 250 steps from 108 s to 65 s, 0.172 s a call
// (https://github.com/huggingface/peft/pull/2894). A process that also holds vLLM's engine has more objects to scan.
export const GC_COLLECT_SECONDS = (108 - 65) / 250;
// One torch.cuda.empty_cache() with the caching allocator's blocks re-allocated by the next step's work: dropping it
// from every step as well took the same 250 steps from 65 s to 45 s, 0.08 s a call
// (https://github.com/huggingface/peft/pull/2894).
export const EMPTY_CACHE_SECONDS = (65 - 45) / 250;

/** Host seconds of one sleep / wake-up cycle of the engine's colocated vLLM; 0 where its profile names none. */
export function sleepCycleSeconds(fw: FrameworkProfile): number {
  const c = fw.rolloutSleepCycle;
  return c === undefined
    ? 0
    : c.gcCollects * GC_COLLECT_SECONDS + c.emptyCaches * EMPTY_CACHE_SECONDS;
}
