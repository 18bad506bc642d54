/**
 * A row split (FrameworkProfile.tpRowSplit): each weight matrix's rows spread over the tensor-parallel GPUs, the
 * activations whole on the main GPU. Each split matrix multiplication sends the activation to every other GPU and
 * gathers their rows of the result back, copies in series with the step (the engine's figures); there is no
 * all-reduce. The copies and events between the GPUs are engine work: they reach this file through the profile.
 */
import type { RowSplitProfile } from '../memory/framework-profile.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import type { GpuRates } from './hardware.js';
import type { MatVec } from './matvec-tail.js';

/**
 * Seconds a step of `tokens` tokens spends on a row split's peer copies: per split matrix (the step's mat-vecs), per
 * round of `tokensPerRound` tokens and other GPU, `copiesPerMatmul` copies in series, the host submitting them one GPU
 * after another (two each when staged through host memory: device to host, host to device), plus the bytes over the main GPU's link: the activation to each other GPU and
 * their (tp - 1) / tp share of the result back.
 */
export function rowSplitSeconds(
  p: RowSplitProfile,
  mvs: readonly MatVec[],
  o: EstimateOptions,
  tokens: number,
  r: GpuRates,
): number {
  const tp = o.tp;
  if (tp <= 1) return 0;
  const link = tp <= 2 ? r.intraPair : r.intraMany;
  const staged = (tp <= 2 ? r.peerStaged.pair : r.peerStaged.many) || tokens > p.peerMaxTokens;
  let matmuls = 0;
  let inElems = 0;
  let outElems = 0;
  for (const v of mvs) {
    matmuls += v.count;
    inElems += v.count * v.cols;
    outElems += v.count * v.rows;
  }
  const rounds = Math.ceil(tokens / p.tokensPerRound);
  const latency =
    rounds * matmuls * (tp - 1) * p.copiesPerMatmul * (staged ? 2 : 1) * p.copySeconds;
  // The main GPU's link carries every copy: (tp - 1) activations out, (tp - 1) / tp of each result in.
  const bytes =
    tokens * (tp - 1) * (inElems * p.inBytesPerElement + (outElems / tp) * p.outBytesPerElement);
  return latency + bytes / link;
}
