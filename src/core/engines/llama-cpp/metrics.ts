/** The Prometheus metrics llama-server exports with --metrics, read back by `check` (core/check/prometheus.ts). */
import type { ServingMetrics } from '../../check/readers.js';

/**
 * llama.cpp: tools/server/README.md "/metrics" (llamacpp:tokens_predicted_total,
 * llamacpp:tokens_predicted_seconds_total, llamacpp:requests_processing; no time-to-first-token histogram).
 */
export const LLAMA_CPP_METRICS: ServingMetrics = {
  engine: 'llama-cpp',
  prefix: 'llamacpp:',
  ttft: [],
  tpot: [],
  generated: 'llamacpp:tokens_predicted_total',
  running: 'llamacpp:requests_processing',
  // Seconds spent generating / tokens generated: seconds per token of one slot.
  tpotCounters: ['llamacpp:tokens_predicted_seconds_total', 'llamacpp:tokens_predicted_total'],
};
