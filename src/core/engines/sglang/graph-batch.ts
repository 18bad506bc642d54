/**
 * The batch sizes SGLang captures decode CUDA graphs for, and the one a step of `batch` sequences replays
 * (FrameworkProfile.graphBatch). sglang 0.5.6 (the PyPI wheel): `_generate_cuda_graph_batch_sizes` in
 * python/sglang/srt/server_args.py captures 1, 2, 4, 8, 12, then every 8 from 16 to 256, every 16 from 272 to 496 and
 * every 32 from 512, up to cuda_graph_max_bs; `replay_prepare` in model_executor/cuda_graph_runner.py replays the
 * smallest captured size at or above the batch (`bisect_left`) and fills the rows past it with stale inputs
 * (model_executor/input_buffers.py `populate_from_forward_batch` copies only the real rows). Those rows are routed
 * like the real ones: only with expert parallelism does the top-k mask them (`enable_num_token_non_padded`,
 * model_executor/forward_batch_info.py: `get_moe_expert_parallel_world_size() > 1`). Above the largest default
 * (cuda_graph_max_bs 512, `_handle_gpu_memory_settings` for 60 GiB and up at TP 4 or more) a step runs eagerly,
 * unpadded.
 */
const CAPTURED = [
  1,
  2,
  4,
  8,
  12,
  ...Array.from({ length: 31 }, (_, i) => 16 + 8 * i), // 16..256
  ...Array.from({ length: 15 }, (_, i) => 272 + 16 * i), // 272..496
  512,
];

/**
 * The captured batch size a decode step of `batch` sequences replays (itself above the largest captured), as the
 * MoE layers see it: under expert parallelism the padded rows are masked out of the routing, so the real batch.
 */
export function sglangGraphBatch(batch: number, ep: number): number {
  if (ep > 1) return batch;
  return CAPTURED.find((b) => b >= batch) ?? batch;
}
