/**
 * What a per-expert MoE loop moves around its experts' matmuls (the engine profile's `moeLoopTraffic`: transformers
 * 4.x's sparse MoE blocks, engines/hf/memory.ts): each routed row gathered, scaled by its routing weight and
 * index-added into the layer's output, and backward's gradients of those three; the output's zeros once a token; the
 * router's one-hot expert mask written once and read by the experts' torch.where. Priced as elementwise traffic on
 * the loop's own side of the forward and backward (train-step.ts), recomputed with the forward. 0 for other
 * dispatches, or engines whose profile does not say.
 */
import { FRAMEWORKS } from '../memory/frameworks.js';
import { type EstimateOptions } from '../../schema/estimate.js';
import type { ModelFacts } from './model-facts.js';

export interface MoeLoopTraffic {
  /** Bytes of one forward on this rank. */
  fwd: number;
  /** Bytes of one backward on this rank (the gather's own gradient apart: train-work.ts LOOP_INDEX_GRAD_PASSES). */
  bwd: number;
}

const NONE: MoeLoopTraffic = { fwd: 0, bwd: 0 };

export function moeLoopTraffic(
  m: ModelFacts,
  o: EstimateOptions,
  tokens: number,
  layersHere: number,
  loop: boolean,
  tp: number,
): MoeLoopTraffic {
  const lt = FRAMEWORKS[o.framework].moeLoopTraffic;
  if (lt === undefined || !loop || m.experts <= 1 || m.moeLayers === 0) return NONE;
  const layers = (m.moeLayers * layersHere) / m.layers;
  const elem = o.compute === 'fp32' ? 4 : 2;
  const rows = tokens * m.topK;
  const fwd =
    layers *
    ((elem * m.hidden * (rows * lt.rowFwdPasses + tokens * lt.tokenFwdPasses)) / tp +
      rows * m.experts * lt.maskBytes);
  const bwd = (layers * elem * m.hidden * rows * lt.rowBwdPasses) / tp;
  return { fwd, bwd };
}
