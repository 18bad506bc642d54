/**
 * Serving replicas share the job's concurrency: dp copies of a server behind one load balancer hold the job's
 * concurrent requests between them, each its share (vLLM's data-parallel deployment splits requests over
 * its engines: https://docs.vllm.ai/en/latest/serving/data_parallel_deployment.html). The search offers the
 * replica counts that divide the concurrency, so every replica serves the same share and is timed, sized and
 * launched (--max-num-seqs) at it.
 */

/** Per-replica concurrency for each replica count up to `maxReplicas` that divides `concurrency`, largest first. */
export function replicaShares(concurrency: number, maxReplicas: number): number[] {
  const out: number[] = [];
  for (let dp = 1; dp <= Math.min(concurrency, maxReplicas); dp++)
    if (concurrency % dp === 0) out.push(concurrency / dp);
  return out;
}

/** Whether dp replicas of `share` sequences each serve exactly the job's concurrency. */
export const servesConcurrency = (concurrency: number, share: number, dp: number): boolean =>
  share * dp === concurrency;
