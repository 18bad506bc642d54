/**
 * Configurations whose memory estimates are the same at every micro-batch and GPU count (a serving search's
 * flash and SDPA twins: memory/inference.ts attentionAlike), so that their surfaces share one set of estimates
 * (memory/surface.ts AlikeEstimates) while each still counts the estimates it asks for.
 */
import type { EstimateOptions } from '../../schema/estimate.js';
import { attentionAlike } from '../memory/inference.js';
import { alikeEstimates, type AlikeEstimates } from '../memory/surface.js';
import { keptOr } from './kept.js';

/**
 * Per configuration, the index of the first configuration whose options are its own but for the micro-batch and
 * an attention its estimates do not tell apart, or -1 where none is shared (the attention is read, or a training
 * method): configurations of one index estimate alike at equal micro-batch, layout and engine variant.
 */
export function memoryTwinsOf(bases: readonly { options: EstimateOptions }[]): number[] {
  const first = new Map<string, number>();
  return bases.map((b, bi) => {
    if (!attentionAlike(b.options)) return -1;
    // JSON leaves out keys whose value is undefined: the options less these two.
    const key = JSON.stringify({ ...b.options, batch: undefined, attention: undefined });
    let i = first.get(key);
    if (i === undefined) first.set(key, (i = bi));
    return i;
  });
}

/**
 * A memory surface's estimates kept in `kept` (where a host keeps them: model-side.ts ModelSides.surfaces) by its
 * options `opts`; a memory twin's (`twin`: attentionAlike) by its options less the two that twins do not tell
 * apart (the micro-batch, which each estimate sets, and an attention the estimates do not read), so twins share.
 */
export const keptEstimates = (
  kept: Map<string, AlikeEstimates>,
  opts: EstimateOptions,
  twin: boolean,
): AlikeEstimates =>
  keptOr(
    kept,
    twin
      ? `twins|${JSON.stringify({ ...opts, batch: undefined, attention: undefined })}`
      : JSON.stringify(opts),
    alikeEstimates,
  );
