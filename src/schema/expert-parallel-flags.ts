/** The expert-parallel and DP-attention flags against the layout they need (serving engines; torchtitan's training EP). */
import { trainingGpus, type EstimateOptions } from './estimate.js';
import { FlagError } from './flag-error.js';

/**
 * --ep and --dp-attention: DP attention needs two or more data-parallel ranks and no pipeline; the expert-parallel
 * group is every GPU the MoE layers span (vLLM: "use expert parallelism instead of tensor parallelism for MoE
 * layers", sharded over the tensor x data parallel ranks: vllm/config/parallel.py ParallelConfig at 00193b82).
 */
export function expertParallelCheck(o: EstimateOptions): void {
  const dp = Math.floor(o.gpus / (o.tp * o.pp));
  // One data-parallel rank: attention DP of width 1 is plain tensor parallelism, which the engines run (SGLang
  // turns attention DP on only above width 1: attn_dp_size > 1 in sglang 0.5.23 srt/server_args.py
  // resolved_dict; vLLM's --data-parallel-size defaults to 1): estimated without it (estimate-run.ts notes it).
  if (o.dpAttention && dp === 1 && o.pp === 1) delete o.dpAttention;
  if (o.dpAttention && (dp < 2 || o.pp > 1))
    throw new FlagError(
      'dp-attention',
      true,
      `two or more data-parallel ranks and --pp 1 (--gpus ${o.gpus} / (--tp ${o.tp} x --pp ${o.pp}) = ${dp})`,
    );
  if (o.ep === undefined || o.ep === 1) return;
  if (o.method !== 'inference') {
    // torchtitan: EP borrows from dp_shard x cp x tp (the ranks under pp and dp_replicate), "expert_parallel_degree
    // ({ep}) must divide dp_shard * cp * tp" (torchtitan distributed/parallel_dims.py ParallelDims._validate at b5bcd76c).
    const sparse = Math.floor(trainingGpus(o) / o.pp);
    if (sparse % o.ep !== 0)
      throw new FlagError(
        'ep',
        o.ep,
        `a divisor of dp_shard x cp x tp = --gpus / --pp = ${sparse} (torchtitan parallel_dims.py: expert_parallel_degree must divide dp_shard * cp * tp)`,
      );
    return;
  }
  const group = o.dpAttention ? o.tp * dp : o.tp;
  if (o.ep === group) return;
  // Experts over the data-parallel ranks are the DP-attention layout: say so rather than "1 or 1".
  const overDp =
    !o.dpAttention && o.ep === o.tp * dp
      ? '; experts over the data-parallel ranks need --dp-attention'
      : '';
  const allowed = group === 1 ? '1' : `1 or ${group}`;
  throw new FlagError(
    'ep',
    o.ep,
    `${allowed}, the GPUs each MoE layer spans (--tp${o.dpAttention ? ' x data-parallel ranks with --dp-attention' : ''})${overDp}`,
  );
}
