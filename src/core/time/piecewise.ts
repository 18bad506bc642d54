/**
 * A decode step under piecewise CUDA graphs (TimeOptions.piecewiseGraphs): the captured pieces between attention ops
 * replay on the GPU while the host issues each layer's attention op from Python, one torch call after another (the
 * engine's piecewiseAttentionCalls, each at EAGER_OP_SECONDS of dispatch). The host runs ahead of the GPU as far as
 * the GPU's work lets it: the step takes the longer of the GPU's work and these calls (decode.ts). The GPU's work
 * grows too: at each split it idles between the last piece and the eager kernels and the next piece's graph launch
 * (the engine's gapSeconds per attention layer). Pricing a view or slice as a whole dispatch is an assumption, listed
 * in calibration/assumed.json.
 */
import type { FrameworkProfile } from '../memory/framework-profile.js';
import type { TimeOptions } from '../../schema/time.js';
import type { ModelFacts } from './model-facts.js';
import { EAGER_OP_SECONDS } from './train-work.js';

/**
 * What the piecewise split costs a decode step: `host`, the seconds the host spends issuing the attention layers' eager
 * calls; `gpu`, the seconds the GPU idles at the splits (the engine's gapSeconds per attention layer). Both 0 unless
 * the step runs piecewise graphs.
 */
export function piecewiseAttentionSeconds(
  m: ModelFacts,
  fw: FrameworkProfile,
  t: TimeOptions,
): { host: number; gpu: number } {
  const calls = fw.piecewiseAttentionCalls;
  if (!t.piecewiseGraphs || !calls) return { host: 0, gpu: 0 };
  let host = 0;
  let layers = 0;
  for (const g of m.arch.groups) {
    if (g.name !== 'decoder' || g.recurrent) continue;
    host += g.count * (g.mlaCacheWidth === null ? calls.kv : calls.mla) * EAGER_OP_SECONDS;
    layers += g.count;
  }
  return { host, gpu: layers * calls.gapSeconds };
}
