/**
 * Ulysses sequence parallelism (DeepSpeed's UlyssesSPAttentionHF, what the Trainer runs for accelerate's
 * ParallelismConfig sp_backend "deepspeed") in a step's communication. Each rank of the cp group holds seq / cp of
 * every activation outside attention; around each attention layer an all-to-all turns the rank's sequence shard of
 * all heads into the whole sequence of heads / cp heads: q, k and v in (_combine_local_sequences), the attention
 * output back (_partition_global_sequence), each one `_dim_zero_all_to_all` (all_to_all_single) of the tensor the rank
 * holds (deepspeed 0.19.8 runtime/sequence_parallel/ulysses_sp.py L168-L229, sequence/layer.py L326-L348: its autograd backward is the same all-to-all of the gradient). Where the
 * model has fewer k/v heads than cp ranks, k and v are first repeated to cp heads (kv_replication_factor, L133-L138,
 * L183-L187). Backward runs each all-to-all's transpose, the same bytes; a full-checkpointing recompute runs the
 * forward's again. The calls are synchronous on the compute stream (no async_op), so none hides behind compute.
 */
import type { EstimateOptions } from '../../schema/estimate.js';
import { FRAMEWORKS } from '../memory/frameworks.js';
import type { ModelFacts } from './model-facts.js';
import type { EpComm, WorkLayout } from './train-work-types.js';

/** What one rank of n keeps of an all-to-all's buffer: the other (n - 1) / n goes over the link. */
const wire = (n: number): number => (n - 1) / n;

/** Elements of q, k, v and the attention output a rank sends per token of its shard, per attention layer. */
export function ulyssesElemsPerToken(m: ModelFacts, cp: number): number {
  const headDim = m.attnWidth / Math.max(1, m.heads);
  const kvHeads = Math.max(1, Math.round(m.kvWidth / headDim));
  // k and v: repeat_interleave to cp heads where kv heads < cp (ulysses_sp.py L134, L186).
  const kv = Math.max(kvHeads, cp) * headDim;
  return 2 * m.attnWidth + 2 * kv;
}

/** The step's Ulysses all-to-alls (module comment); none without context parallelism or on a ring engine. */
export function sequenceParallelComm(
  m: ModelFacts,
  o: EstimateOptions,
  w: Pick<WorkLayout, 'tokens' | 'cp' | 'pp' | 'recompute'>,
): EpComm {
  if (w.cp <= 1 || o.method === 'inference' || FRAMEWORKS[o.framework].cpAllToAll !== true)
    return { bytes: 0, calls: 0, group: 1 };
  const layers = m.attnLayers / w.pp;
  const passes = 2 + w.recompute; // forward, backward, and the recompute's forward
  // Activations travel in the compute dtype (the attention inputs and output; 4 bytes in fp32).
  const bytes =
    passes * layers * w.tokens * ulyssesElemsPerToken(m, w.cp) * (o.compute === 'fp32' ? 4 : 2);
  // Four all_to_all_single calls per layer and pass: q, k, v in, the output back.
  return { bytes: bytes * wire(w.cp), calls: 4 * passes * layers, group: w.cp };
}
