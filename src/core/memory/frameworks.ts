/**
 * What each software stack really allocates: the memory profile each engine folder registers (engines/store.ts),
 * by the contract's framework name (the fields and their meaning: framework-profile.ts).
 */
import type { EstimateOptions } from '../../schema/estimate.js';
import { FRAMEWORKS } from '../engines/store.js';

export type { FrameworkProfile } from './framework-profile.js';
export { FRAMEWORKS };

/**
 * --chunked-loss fuses the loss's passes over the logits, except a chunked output layer (profile
 * loss.chunkedHead): it runs the engine's eager loss chunk by chunk, the same bytes moved unless compiled
 * (pytorch/torchtitan#996: the chunked loss reduces peak memory 'without affecting training throughput').
 */
export const chunkedLossFuses = (o: EstimateOptions): boolean =>
  o.chunkedLoss && !FRAMEWORKS[o.framework].loss.chunkedHead;
