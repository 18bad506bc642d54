/**
 * A decode step under piecewise CUDA graphs (TimeOptions.piecewiseGraphs): the captured pieces between attention ops
 * replay on the GPU while the host issues each layer's attention op from Python, one torch call after another (the
 * engine's piecewiseAttentionCalls, each at EAGER_OP_SECONDS of dispatch). The GPU's work hides the calls of a
 * K/V-head layer on the rows of such builds (vLLM of April to September 2025: tt143, tt340, vllm-rtn); an MLA layer
 * issues more calls than the GPU's share of the layer takes, and the step waits for them: the host time of the calls
 * an MLA layer makes beyond a K/V-head layer's adds to the step (an upper bound of the longer of the two; the
 * assumption is listed in calibration/assumed.json).
 */
import type { FrameworkProfile } from '../memory/framework-profile.js';
import type { TimeOptions } from '../../schema/time.js';
import type { ModelFacts } from './model-facts.js';
import { EAGER_OP_SECONDS } from './train-work.js';

/** Seconds a decode step adds for its attention layers' eager calls under piecewise CUDA graphs; 0 otherwise. */
export function piecewiseAttentionSeconds(
  m: ModelFacts,
  fw: FrameworkProfile,
  t: TimeOptions,
): number {
  const calls = fw.piecewiseAttentionCalls;
  if (!t.piecewiseGraphs || !calls) return 0;
  let seconds = 0;
  for (const g of m.arch.groups) {
    if (g.name !== 'decoder' || g.recurrent || g.mlaCacheWidth === null) continue;
    seconds += g.count * Math.max(0, calls.mla - calls.kv) * EAGER_OP_SECONDS;
  }
  return seconds;
}
