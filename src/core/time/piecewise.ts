/**
 * A decode step under piecewise CUDA graphs (TimeOptions.piecewiseGraphs): the captured pieces between attention ops
 * replay on the GPU while the host issues each layer's attention op from Python, one torch call after another (the
 * engine's piecewiseAttentionCalls, each at EAGER_OP_SECONDS of dispatch). The host runs ahead of the GPU as far as
 * the GPU's work lets it: the step takes the longer of the GPU's work and these calls (decode.ts). Pricing a view or
 * slice as a whole dispatch is an assumption, listed in calibration/assumed.json.
 */
import type { FrameworkProfile } from '../memory/framework-profile.js';
import type { TimeOptions } from '../../schema/time.js';
import type { ModelFacts } from './model-facts.js';
import { EAGER_OP_SECONDS } from './train-work.js';

/** Host seconds a decode step spends issuing its attention layers' eager calls under piecewise graphs; else 0. */
export function piecewiseAttentionSeconds(
  m: ModelFacts,
  fw: FrameworkProfile,
  t: TimeOptions,
): number {
  const calls = fw.piecewiseAttentionCalls;
  if (!t.piecewiseGraphs || !calls) return 0;
  let seconds = 0;
  for (const g of m.arch.groups) {
    if (g.name !== 'decoder' || g.recurrent) continue;
    seconds += g.count * (g.mlaCacheWidth === null ? calls.kv : calls.mla) * EAGER_OP_SECONDS;
  }
  return seconds;
}
