/** The breakdown's parts (all but overhead) at zero: the base every phase's parts are built on. */
import type { Breakdown } from './types.js';

export const ZERO_PARTS: Readonly<Omit<Breakdown, 'overhead'>> = {
  weights: 0,
  quantConstants: 0,
  adapters: 0,
  masterWeights: 0,
  gradients: 0,
  optimizer: 0,
  activations: 0,
  logits: 0,
  kvCache: 0,
  buffers: 0,
};
