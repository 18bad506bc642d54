/**
 * What a ring collective's latency grows by when the data-parallel group spans nodes, as NCCL's own tuner prices it
 * (https://github.com/NVIDIA/nccl/blob/v2.20.5-1/src/graph/tuning.cc `ncclTopoTuneModel`, Ring/Simple, the protocol
 * NCCL takes for the megabyte buckets ZeRO and DDP reduce and gather): `baseLat + (nsteps - nInterSteps) * intraLat +
 * nInterSteps * interLat`, where a reduce-scatter or all-gather over `nRanks` ranks takes `nRanks - 1` steps of which
 * `nNodes - 1` cross the network, and an all-reduce `2 (nRanks - 1)` of which `2 nNodes`. Inside one node the
 * measured small-message latency stands (ALLREDUCE_LATENCY_NVLINK / _PCIE below); across nodes the ring's
 * further steps are added at the tuner's per-hop latencies.
 */

// Share of the SMs an overlapped NCCL collective occupies: 24 CTAs of an H100's 132 SMs (nsys trace in
// https://forums.developer.nvidia.com/t/compute-communication-overlap-causes-severe-gemm-performance-degradation-because-of-tail-effect/337991).
export const NCCL_SM_SHARE = 24 / 132;
// NCCL small-message all-reduce latency inside an NVLink node ~ 20-30 µs (nccl-tests all_reduce_perf on
// 8x A100, 8 B-64 KB rows); PCIe rings ~ 2x (assumed).
export const ALLREDUCE_LATENCY_NVLINK = 25e-6;
export const ALLREDUCE_LATENCY_PCIE = 50e-6;

/** The small-message latency of one NCCL collective over `link`: the PCIe figure where the link is the host bridge. */
export function collectiveLatency(link: number, r: { host: number }): number {
  return link === r.host ? ALLREDUCE_LATENCY_PCIE : ALLREDUCE_LATENCY_NVLINK;
}

/**
 * Per-step latencies of a ring step under the Simple protocol (tuning.cc v2.20.5-1 `hwLat`, Ring/Simple): 3.4 µs
 * over NVLink, 5.7 µs over PCIe, 14 µs over the network. NCCL raises the intra-node step to its network overhead
 * (3 x 1 µs on an Intel host, `getNetOverhead`) once the ring crosses nodes, below NVLink's 3.4 µs.
 */
export const NCCL_RING_HOP_SECONDS = { nvlink: 3.4e-6, pcie: 5.7e-6, net: 14e-6 } as const;

/** Which collective: a reduce-scatter or all-gather (ZeRO-2/3, FSDP), or an all-reduce (DDP). */
export type RingCollective = 'scatter' | 'all-reduce';

/** Intra- and inter-node ring steps of one collective over `ranks` ranks on `nodes` nodes (tuning.cc nsteps). */
function ringSteps(
  c: RingCollective,
  ranks: number,
  nodes: number,
): { intra: number; net: number } {
  const steps = c === 'all-reduce' ? 2 * (ranks - 1) : ranks - 1;
  const net = nodes <= 1 ? 0 : c === 'all-reduce' ? 2 * nodes : nodes - 1;
  return { intra: Math.max(0, steps - net), net };
}

/**
 * Seconds a ring collective over `ranks` data-parallel ranks, `perNode` of them in each node, takes beyond the same
 * collective over one node's `perNode` ranks: its further intra-node steps at the node's hop (`nvlink`: NVLink, else
 * PCIe) and its network steps at the network's hop. 0 inside one node.
 */
export function ringLatencyAcrossNodes(
  c: RingCollective,
  ranks: number,
  perNode: number,
  nvlink: boolean,
): number {
  const nodes = Math.ceil(ranks / Math.max(1, perNode));
  if (nodes <= 1) return 0;
  const hop = nvlink ? NCCL_RING_HOP_SECONDS.nvlink : NCCL_RING_HOP_SECONDS.pcie;
  const node = ringSteps(c, perNode, 1);
  const group = ringSteps(c, ranks, nodes);
  return Math.max(0, group.intra - node.intra) * hop + group.net * NCCL_RING_HOP_SECONDS.net;
}
