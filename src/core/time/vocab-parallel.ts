/**
 * The vocabulary-parallel output layer under tensor parallelism (FrameworkProfile.vocabParallel): each rank's head
 * writes the logits of its 1/TP of the vocabulary, and NCCL gathers the shards after the forward, in series with it on
 * the compute stream, before the sampler reads them (time/sampler-step.ts). The embedding's all-reduce is one more of
 * the layers' all-reduces and is counted with them (decode-tp.ts decodeTpSeconds).
 */
import { FRAMEWORKS } from '../memory/frameworks.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import { groupLink, type GpuRates } from './hardware.js';
import type { ModelFacts } from './model-facts.js';
import { collectiveLatency } from './nccl-ring.js';

/**
 * Seconds one forward spends gathering the logits of `rows` sequences (a decode step's running sequences; a
 * prefill's prompts, whose last token alone is projected) from the `o.tp` ranks: the receiving rank takes
 * (tp - 1) / tp of rows x vocabulary x the profile's bytes a logit at the group's bus rate, as a ring all-gather or a
 * gather to one rank moves them (nccl-tests doc/PERFORMANCE.md: all-gather bus bandwidth = algorithm bandwidth x
 * (n - 1) / n), plus one NCCL collective's small-message latency (nccl-ring.ts ALLREDUCE_LATENCY_NVLINK, _PCIE over the
 * host bridge: the engines gather through NCCL, not their custom all-reduce); then the copy that lays the shards out
 * along the vocabulary (the profile's reorder bytes a logit) at the card's memory rate. 0 without the profile's field,
 * at TP 1, or for a model without an output head.
 */
export function vocabParallelLogitsSeconds(
  m: ModelFacts,
  o: EstimateOptions,
  rows: number,
  r: GpuRates,
): number {
  const vp = FRAMEWORKS[o.framework].vocabParallel;
  if (vp === undefined || o.tp <= 1 || m.lmHead === 0 || rows <= 0) return 0;
  const link = groupLink(o.tp, r);
  const latency = collectiveLatency(link, r);
  const logits = rows * m.vocab;
  const gather = (logits * vp.logitBytes * (o.tp - 1)) / o.tp / link + latency;
  return gather + (logits * vp.reorderBytesPerLogit) / r.mem;
}

/** All-reduces of the forward's hidden state beyond its layers' two each: the embedding's, where the profile says so. */
export function embeddingAllReduces(o: EstimateOptions): number {
  return o.tp > 1 && FRAMEWORKS[o.framework].vocabParallel?.embeddingAllReduce === true ? 1 : 0;
}
