/** The Prometheus metrics vLLM's server exports, read back by `check` (core/check/prometheus.ts). */
import type { ServingMetrics } from '../../check/readers.js';

/**
 * vLLM: docs/design/metrics.md (vllm:time_to_first_token_seconds, vllm:inter_token_latency_seconds, formerly
 * vllm:time_per_output_token_seconds, vllm:generation_tokens_total, vllm:num_requests_running).
 */
export const VLLM_METRICS: ServingMetrics = {
  engine: 'vllm',
  prefix: 'vllm:',
  ttft: ['vllm:time_to_first_token_seconds'],
  tpot: ['vllm:inter_token_latency_seconds', 'vllm:time_per_output_token_seconds'],
  generated: 'vllm:generation_tokens_total',
  running: 'vllm:num_requests_running',
};
