/**
 * Training expert parallelism (torchtitan parallelism.expert_parallel_degree) in a step's communication. The
 * routed experts sit whole on ep ranks and FSDP shards them over efsdp = dp_shard x cp x tp / ep of the others
 * (torchtitan distributed/parallel_dims.py, models/common/MOE_SHARDING.md at b5bcd76c): their all-gathers and
 * reduce-scatters move 1/ep of the layer's experts over that smaller group. Each MoE layer sends its tokens to the
 * ranks holding their experts and back: AllToAllTokenDispatcher (models/common/token_dispatcher.py) runs a token-count
 * all-to-all, then all_to_all_single of the T x K routed rows of the hidden size in dispatch and again in combine;
 * backward runs the two transposes; a full-checkpointing recompute runs the forward's again (SelectiveAC saves
 * all_to_all_single's outputs: distributed/activation_checkpoint.py comm_ops).
 */
import type { EstimateOptions } from '../../schema/estimate.js';
import type { ModelFacts } from './model-facts.js';
import type { EpComm, WorkLayout } from './train-work-types.js';

/** The expert-parallel degree a training step runs (1: none, or a dense model). */
const epOf = (m: ModelFacts, o: EstimateOptions): number =>
  o.method !== 'inference' && m.experts > 1 && m.moeLayers > 0 ? (o.ep ?? 1) : 1;

const wire = (n: number): number => (n - 1) / n;

type ShardLayout = Pick<WorkLayout, 'shard' | 'zeroRanks' | 'tp' | 'pp'>;

/**
 * `elems` parameters split over this stage's FSDP groups, each share weighed by `per(ranks)` of its group: under EP
 * the routed experts, where `elems` holds them, are 1/ep of theirs over the efsdp group; the rest over TP x PP then
 * the data- and context-parallel ranks (WorkLayout.zeroRanks).
 */
function overShardGroups(
  m: ModelFacts,
  o: EstimateOptions,
  w: ShardLayout,
  elems: number,
  per: (ranks: number) => number,
): number {
  const ep = epOf(m, o);
  const experts = m.expertWeightsPerLayer * m.experts * m.moeLayers;
  if (ep <= 1 || elems < experts) return (elems / w.shard) * per(w.zeroRanks);
  const efsdp = (w.zeroRanks * w.tp) / ep;
  return ((elems - experts) / w.shard) * per(w.zeroRanks) + (experts / (ep * w.pp)) * per(efsdp);
}

/**
 * Elements one rank receives in one FSDP all-gather (or sends in one reduce-scatter) of `elems` parameters over
 * this stage (ring: (n - 1) / n of the unsharded size).
 */
export const shardedWire = (
  m: ModelFacts,
  o: EstimateOptions,
  w: ShardLayout,
  elems: number,
): number => overShardGroups(m, o, w, elems, wire);

/**
 * Elements of `elems` parameters one rank holds unsharded after an FSDP all-gather over this stage (what it gathers
 * them into): shardedWire's groups without the ring's (n - 1) / n, a group of one rank gathering nothing.
 */
export const shardedUnsharded = (
  m: ModelFacts,
  o: EstimateOptions,
  w: ShardLayout,
  elems: number,
): number => overShardGroups(m, o, w, elems, (n) => (n > 1 ? 1 : 0));

/** The step's all-to-alls (module comment); none without EP. */
export function expertParallelComm(
  m: ModelFacts,
  o: EstimateOptions,
  w: Pick<WorkLayout, 'tokens' | 'tp' | 'pp' | 'recompute'>,
): EpComm {
  const ep = epOf(m, o);
  if (ep <= 1) return { bytes: 0, calls: 0, group: 1 };
  // With sequence parallelism each TP rank dispatches its own T / tp tokens (MOE_SHARDING.md: Shard(1) in).
  const tokens = w.tokens / (o.sequenceParallel && w.tp > 1 ? w.tp : 1);
  const layers = m.moeLayers / w.pp;
  const passes = 4 + 2 * w.recompute;
  // Routed rows travel in the compute dtype (16-bit; FP8 recipes quantize inside the grouped GEMM).
  const bytes = passes * layers * tokens * m.topK * m.hidden * (o.compute === 'fp32' ? 4 : 2);
  return {
    bytes: bytes * wire(ep),
    calls: layers * (passes + (1 + w.recompute)),
    group: ep,
  };
}
