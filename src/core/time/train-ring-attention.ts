/**
 * torch's ring attention around a context-parallel rank's attention kernels: what `context_parallel` runs where the
 * engine's context parallelism is a ring (torchtitan's `context_parallel_degree`, Accelerate's cp_size), read at
 * pytorch/pytorch@0123248a torch/distributed/tensor/experimental/_attention.py (`_templated_ring_attention`,
 * `_templated_ring_attention_backward`, `_SDPAMerger`, `_AllGatherRotater`): the default rotate method all-gathers
 * K/V (`_ContextParallelOptions.rotate_method`; torchtitan's `context_parallel_rotate_method` "allgather" at
 * pytorch/torchtitan@9dec370 config_manager.py), merges in fp32 (`convert_to_f32` True) and balances causal work
 * round-robin (`enable_load_balance` True). Per attention layer and pass, for a rank's q of Eq elements, k and v of
 * Ekv (at the width SDPA receives them: `ringKvWidth`, the query's where the engine repeats the k/v heads first) and c
 * bytes an element in the compute dtype:
 * - forward: the K/V shard is all-gathered once (`ft_c.all_gather_tensor`, async) and waited on at the second block,
 *   so the gather hides behind the first block only, the local causal one: 1 / cp of the rank's attention. Each later
 *   block's output merges into fp32 (`_SDPAMerger._merge_one`): the block cast to fp32 (c + 4 B an element), out -
 *   block_out (12), sigmoid(lse gap) times it (8), out minus that (12): c + 36 over the rank's whole q on a block of an
 *   earlier rank's K/V (the load balance halves the K/V instead), half that over half of q plus the accumulator's
 *   `_partial_update` copy (`torch.cat`, 8 over the whole q) on a later rank's; the last rank merges cp - 1 whole
 *   blocks, the slowest. The first block's cast and the result's cast back add c + 4 each; k and v are concatenated
 *   before every exchange (2c over Ekv). Compiled, the handler runs while AOTAutograd traces and Inductor fuses each
 *   merge's chain: the block read (c), the accumulator read and written (8); the exchanges after the first, whose
 *   concatenation the all-gather rotater never reads, are dead code.
 * - backward: the K/V gathered again (hidden behind the first block's backward), fp32 accumulators for dq, dk and dv
 *   zero-filled (4 B), each block's gradients added in (c + 8: read both, write), a block of half of q adding into
 *   half the accumulator and copying it whole (`_partial_update`: (c + 8) / 2 + 8; rank 0 has cp - 1 such blocks,
 *   the slowest); dk and dv concatenated (8 over Ekv) and sent to the next rank each block (`_AllToAllRotater`,
 *   fp32), waited on a block later and the last after the loop with nothing to hide behind; the results cast back
 *   (c + 4).
 * Ulysses engines (FrameworkProfile.cpAllToAll) run all-to-alls instead (train-sequence-parallel.ts).
 */
import type { EstimateOptions } from '../../schema/estimate.js';
import { FRAMEWORKS } from '../memory/frameworks.js';
import type { ModelFacts } from './model-facts.js';
import type { RingComm, WorkLayout } from './train-work-types.js';

// fp32 merge of a block over the rank's whole q, after its cast (pytorch/pytorch@0123248a _attention.py
// `_SDPAMerger._merge_one`): out - block_out reads 4 + 4 and writes 4, the sigmoid product reads 4 and writes 4, out
// minus it reads 4 + 4 and writes 4: 32 B an element.
const MERGE_FP32_BYTES = 32;
// An fp32 element written (the block's cast, a zero-filled accumulator) or read back for the cast to the compute
// dtype (pytorch/pytorch@0123248a _attention.py `_SDPAMerger.step`, `_templated_ring_attention_backward`): 4 B.
const FP32_WRITE = 4;
// `_partial_update`'s torch.cat reads and writes the whole fp32 accumulator (pytorch/pytorch@0123248a
// _attention.py `_partial_update`): 4 + 4 B an element.
const ACC_COPY_BYTES = 8;

/**
 * The width of the K (and of the V) the ring exchanges: what the engine hands SDPA, which `_templated_ring_attention`
 * gathers, concatenates and sends as it receives them (`key`, `value`; pytorch/pytorch@0123248a _attention.py). An
 * engine that repeats the k/v heads to the query's before SDPA (FrameworkProfile.sdpaExpandsKv, the rule
 * memory/activations.ts applies to the saved K/V; torchtitan at pytorch/torchtitan@9dec370 models/llama/model.py:
 * `repeat_kv(xk, self.n_rep)` then `F.scaled_dot_product_attention`) moves heads / kv heads times the k/v heads' bytes.
 */
export function ringKvWidth(
  m: Pick<ModelFacts, 'attnWidth' | 'kvWidth'>,
  o: EstimateOptions,
): number {
  const fw = FRAMEWORKS[o.framework];
  // The ring's calls are causal and unmasked: an engine whose SDPA then takes the k/v heads with enable_gqa
  // (FrameworkProfile.sdpaGqaUnmasked, transformers' use_gqa_in_sdpa) hands them over unrepeated.
  const sdpaExpands = fw.sdpaExpandsKv && fw.sdpaGqaUnmasked !== true;
  const expand = o.attention !== 'flash' && (o.attention === 'eager' || sdpaExpands);
  return expand ? m.attnWidth : m.kvWidth;
}

/**
 * Bytes a rank receives in one micro-batch's ring exchanges (module comment): the K/V all-gather of each forward pass and
 * of the backward, and the dk/dv send of each of the backward's cp blocks, the last waited on after the loop.
 */
export function ringExchangeBytes(ring: RingComm): number {
  if (ring.group <= 1) return 0;
  return (ring.fwdPasses + 1) * ring.gatherBytes + ring.group * ring.sendBytes;
}

export const NO_RING: RingComm = {
  fwdBytes: 0,
  bwdBytes: 0,
  gatherBytes: 0,
  sendBytes: 0,
  group: 1,
  layers: 0,
  fwdPasses: 0,
};

/** The ring's HBM traffic and exchanges for one micro-batch (module comment); none without a ring. */
export function ringAttentionWork(
  m: ModelFacts,
  o: EstimateOptions,
  w: Pick<WorkLayout, 'tokens' | 'cp' | 'tp' | 'pp' | 'recompute' | 'compiled'>,
): RingComm {
  const cp = w.cp;
  if (cp <= 1 || o.method === 'inference' || FRAMEWORKS[o.framework].cpAllToAll === true)
    return NO_RING;
  const layers = m.attnLayers / w.pp;
  const c = o.compute === 'fp32' ? 4 : 2;
  const eq = (w.tokens * m.attnWidth) / w.tp;
  const ekv = (2 * w.tokens * ringKvWidth(m, o)) / w.tp;
  const blocks = cp - 1;
  const casts = 2 * (c + FP32_WRITE);
  const merge = w.compiled ? c + ACC_COPY_BYTES : c + FP32_WRITE + MERGE_FP32_BYTES;
  const kvCats = w.compiled ? 1 : blocks;
  const fwd = eq * (casts + blocks * merge) + ekv * 2 * c * kvCats;
  const add = c + ACC_COPY_BYTES;
  const bwdQ = FP32_WRITE + add + blocks * (add / 2 + ACC_COPY_BYTES) + (c + FP32_WRITE);
  const bwdKv =
    FP32_WRITE + cp * (add + ACC_COPY_BYTES) + 2 * c * (w.compiled ? 1 : blocks) + c + FP32_WRITE;
  return {
    fwdBytes: layers * fwd,
    bwdBytes: layers * (eq * bwdQ + ekv * bwdKv),
    gatherBytes: layers * blocks * ekv * c,
    sendBytes: layers * ekv * FP32_WRITE,
    group: cp,
    layers,
    // The ring runs again where the whole forward is recomputed (full or offloaded checkpointing).
    fwdPasses: 1 + w.recompute,
  };
}

/**
 * Seconds of a micro-batch's ring exchanges no attention block hides (module comment): `fwdAttn` and `bwdAttn` the
 * rank's attention seconds of one forward and of the backward, `link` the cp group's bus rate, `latency` a call's.
 */
export function ringExposedSeconds(
  ring: RingComm,
  fwdAttn: number,
  bwdAttn: number,
  link: number,
  latency: number,
): number {
  if (ring.group <= 1) return 0;
  const gather = ring.gatherBytes / link;
  const send = ring.sendBytes / link;
  const fwdBlock = fwdAttn / ring.group;
  const bwdBlock = bwdAttn / ring.group;
  return (
    ring.fwdPasses * Math.max(0, gather - fwdBlock) +
    Math.max(0, gather - bwdBlock) +
    (ring.group - 1) * Math.max(0, send - bwdBlock) +
    send +
    ring.layers * latency
  );
}
