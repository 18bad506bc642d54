/**
 * A decode step under piecewise CUDA graphs (TimeOptions.piecewiseGraphs): the captured pieces between attention ops
 * replay on the GPU while the host issues each layer's attention op from Python, one torch call after another (the
 * engine's piecewiseAttentionCalls, each at EAGER_OP_SECONDS of dispatch). The host runs ahead of the GPU as far as
 * the GPU's work lets it: the step takes the longer of the GPU's work and these calls (decode.ts). The GPU's work
 * grows too: at each split it idles between the last piece and the eager kernels and the next piece's graph launch
 * (the engine's gapSeconds per attention layer). Pricing a view or slice as a whole dispatch is an assumption, listed
 * in calibration/assumed.json. A model with attention sinks runs the engine's sink-capable backend where the GPU
 * lacks the usual one (the engine's piecewiseAttentionCalls.sinks): FlashInfer's, or a Triton backend whose JIT
 * launches cost TRITON_LAUNCH_SECONDS each on the host besides its torch calls.
 */
import type { FrameworkProfile } from '../memory/framework-profile.js';
import type { TimeOptions } from '../../schema/time.js';
import type { ModelFacts } from './model-facts.js';
import { EAGER_OP_SECONDS } from './train-work.js';

// Host time of one launch of a compiled Triton kernel through its Python JIT entry (JITFunction.run: binding and
// specializing the arguments, the cache lookup, the launch): 18 µs after triton-lang/triton#3648 (2024-04, down from
// 49 µs; the benchmark of triton-lang/triton#3619, a kernel of a user's argument types).
export const TRITON_LAUNCH_SECONDS = 18e-6;

type Calls = NonNullable<FrameworkProfile['piecewiseAttentionCalls']>;

/** Host seconds of one K/V-head layer's eager attention op on a decode step of `rows` sequences. */
function kvLayerSeconds(
  calls: Calls,
  sinks: boolean,
  cc: number,
  rows: number,
  heads: number,
  kvHeads: number,
): number {
  const s = calls.sinks;
  const major = Math.floor(cc);
  if (!sinks || !s || s.kvCc.includes(major)) return calls.kv * EAGER_OP_SECONDS;
  if (s.flashinfer.cc.includes(major)) return s.flashinfer.torch * EAGER_OP_SECONDS;
  const blockQ = Math.max(1, Math.floor(s.blockQueries / Math.max(1, heads / kvHeads)));
  const blocks = Math.floor(rows / blockQ) + rows;
  const k = blocks * kvHeads <= s.splitGrid ? s.split : s.single;
  return k.torch * EAGER_OP_SECONDS + k.triton * TRITON_LAUNCH_SECONDS;
}

/**
 * What the piecewise split costs a decode step of `rows` sequences on a GPU of compute capability `cc` (0: not
 * CUDA), the heads split over `tp` ranks: `host`, the seconds the host spends issuing the attention layers' eager
 * calls; `gpu`, the seconds the GPU idles at the splits (the engine's gapSeconds per attention layer). Both 0 unless
 * the step runs piecewise graphs.
 */
export function piecewiseAttentionSeconds(
  m: ModelFacts,
  fw: FrameworkProfile,
  t: TimeOptions,
  step: { cc: number; rows: number; tp: number },
): { host: number; gpu: number } {
  const calls = fw.piecewiseAttentionCalls;
  if (!t.piecewiseGraphs || !calls) return { host: 0, gpu: 0 };
  const sinks = m.arch.attentionSinks === true;
  let host = 0;
  let layers = 0;
  for (const g of m.arch.groups) {
    if (g.name !== 'decoder' || g.recurrent) continue;
    const heads = Math.max(1, g.heads / step.tp);
    const kvHeads = Math.max(1, g.kvHeads / step.tp);
    const layer =
      g.mlaCacheWidth === null
        ? kvLayerSeconds(calls, sinks, step.cc, step.rows, heads, kvHeads)
        : calls.mla * EAGER_OP_SECONDS;
    host += g.count * layer;
    layers += g.count;
  }
  return { host, gpu: layers * calls.gapSeconds };
}
