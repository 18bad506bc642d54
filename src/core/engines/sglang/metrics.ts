/** The Prometheus metrics SGLang's server exports, read back by `check` (core/check/prometheus.ts). */
import type { ServingMetrics } from '../../check/readers.js';

/** SGLang: docs/references/production_metrics.md (sglang: prefix, num_running_reqs). */
export const SGLANG_METRICS: ServingMetrics = {
  engine: 'sglang',
  prefix: 'sglang:',
  ttft: ['sglang:time_to_first_token_seconds'],
  tpot: ['sglang:inter_token_latency_seconds', 'sglang:time_per_output_token_seconds'],
  generated: 'sglang:generation_tokens_total',
  running: 'sglang:num_running_reqs',
};
