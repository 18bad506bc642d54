/** What the vllm engine really allocates: vllm's memory profile (core/memory reads it). */
import { VLLM_FA2_VARLEN_WALK } from './fa2-varlen.js';
import {
  TORCH_CONTEXT_MIB,
  type CacheLayoutProfile,
  type FrameworkProfile,
  type ServingFrontend,
} from '../../memory/framework-profile.js';
import {
  FLASHINFER_TRTLLM_MXFP4_BF16_MOE_FLOPS,
  FLASHINFER_TRTLLM_MXFP4_MOE,
  FUSED_MOE_CALL_SECONDS,
  FUSED_MOE_TILE_16,
  TRITON_HIP_NUM_STAGES,
} from '../moe-call.js';
import { SERVING_GRAPH_KERNEL_CYCLES, SERVING_GRAPH_KERNEL_SECONDS } from '../graph-kernel.js';
import { VLLM_ROCM_KERNEL_NAMES } from './kernels.js';
import { SERVING_BASE } from '../serving-base.js';
import { VLLM_BLOCK_FP8_LINEAR } from './block-fp8.js';
import { vllmDecodeFeatureKernels } from './decode-kernels.js';
import { VLLM_PIECEWISE_ATTENTION_CALLS } from './piecewise.js';
import { VLLM_EAGER_LAYER_PYTHON_SECONDS, vllmEagerLayerExtraOps } from './eager-ops.js';
import {
  VLLM_ROCM_DECODE_READ,
  VLLM_ROCM_PAGED_DECODE,
  VLLM_ROCM_PREFILL_ATTENTION,
  VLLM_ROCM_SPLIT_RELEASES,
} from './rocm-attention.js';
import { VLLM_ROCM_LIBRARY_GEMM } from './rocm-gemm.js';
import { VLLM_FUSED_MOE_GRID } from './fused-moe-grid.js';
import { VLLM_FUSED_MOE_DEFAULT_TILES } from './moe-tiles.js';
import { vllmFusedMoeWorkspace } from './fused-moe-workspace.js';
import { VLLM_MXFP4_EXPERT_PAD } from './mxfp4-pad.js';
import { VLLM_MXFP4_MARLIN_MAJORS } from './mxfp4-backend.js';
import { VLLM_FP32_ROUTER } from './fp32-router.js';
import { VLLM_COMPILED_ABOVE_GRAPHS, VLLM_GRAPH_MAX_BATCH } from './graph-cap.js';

// vLLM EngineArgs gpu_memory_utilization default ("defaults to 0.9",
// https://docs.vllm.ai/en/latest/configuration/engine_args.html).
export const VLLM_GPU_UTILIZATION = 0.9;
// vLLM V1 always chunks prefill: one scheduler step runs at most max_num_batched_tokens, so its profiled activation
// peak is one such chunk (https://docs.vllm.ai/en/latest/configuration/optimization.html, "Chunked Prefill"). The
// OpenAI server's default is 8192 on a device of 70 GiB or more whose name lacks "a100", 2048 otherwise (the A100
// exception of vllm-project/vllm#17885; vllm-project/vllm@f71952c1c vllm/engine/arg_utils.py
// EngineArgs._set_default_args, v0.11.0). 8192 where the GPU is not known.
export const VLLM_MAX_BATCHED_TOKENS = 8192;
export const VLLM_SMALL_GPU_BATCHED_TOKENS = 2048; // the same _set_default_args (vllm-project/vllm@f71952c1c)
const VLLM_LARGE_GPU_BYTES = 70 * 2 ** 30; // "device_memory >= 70 * GiB_bytes" (vllm-project/vllm@f71952c1c arg_utils.py)

/** The OpenAI server's default max_num_batched_tokens on this GPU (VLLM_MAX_BATCHED_TOKENS above). */
export function vllmBatchedTokens(capacityBytes: number | undefined, deviceName?: string): number {
  if (capacityBytes === undefined) return VLLM_MAX_BATCHED_TOKENS;
  const large = capacityBytes >= VLLM_LARGE_GPU_BYTES && !/a100/i.test(deviceName ?? '');
  return large ? VLLM_MAX_BATCHED_TOKENS : VLLM_SMALL_GPU_BATCHED_TOKENS;
}
// The OpenAI server's default max_num_seqs: 256, 1024 on the GPUs of 70 GiB or more whose name lacks "a100" (the same
// _set_default_args as max_num_batched_tokens).
export const VLLM_DEFAULT_MAX_NUM_SEQS = 256; // vllm-project/vllm@99d7eb5d vllm/engine/arg_utils.py _set_default_args
export const VLLM_LARGE_GPU_MAX_NUM_SEQS = 1024; // vllm-project/vllm@99d7eb5d vllm/engine/arg_utils.py _set_default_args

/** The OpenAI server's default max_num_seqs on this GPU (VLLM_DEFAULT_MAX_NUM_SEQS above). */
export function vllmMaxNumSeqs(capacityBytes: number, deviceName: string): number {
  return vllmBatchedTokens(capacityBytes, deviceName) === VLLM_MAX_BATCHED_TOKENS
    ? VLLM_LARGE_GPU_MAX_NUM_SEQS
    : VLLM_DEFAULT_MAX_NUM_SEQS;
}

// vLLM v1 profile_run ends with _dummy_sampler_run over one row per sequence slot, top_p 0.9 and top_k
// vocab-1 (vllm/v1/worker/gpu_model_runner.py), so apply_top_k_top_p sorts the whole vocabulary: fp32 logits
// (4 B), sort values (4) and int64 indices (8), the two masks (1 + 1), softmax of the sorted logits (4),
// the scattered result (4) and the 16-bit logits it came from (2): 28 B per sequence and vocabulary entry,
// up to 36 B while the sampling softmax and its exponential noise (4 + 4) overlap them; 32 B assumed. vLLM
// start-up logs on H100 (max_num_seqs 1024) show 31-36 B (calibration/informative.json vllm-llmd-01..04,
// activation peak less the forward).
export const VLLM_SAMPLER_BYTES_PER_LOGIT = 32;

// A decode step's sampler on the GPU, per running sequence and vocabulary entry, every TP rank over the whole
// vocabulary (LogitsProcessor._gather_logits all-gathers the shards: use_all_gather on CUDA). Sampler.forward's
// `logits.to(torch.float32)` reads the 16-bit logits and writes fp32 (2 + 4 B) and the sampled token's argmax reads them
// again (4 B: greedy_sample, or random_sample's `probs.div_(q).argmax`): vllm 0.10.1 wheel vllm/v1/sample/sampler.py
// (https://github.com/vllm-project/vllm/blob/v0.10.1/vllm/v1/sample/sampler.py), vllm/v1/sample/ops/topk_topp_sampler.py; the same upcast in the 0.33.0 wheel's vllm/v1/sample/sampler.py. A random
// request's temperature division, softmax, exponential draw and division (8 + 16 + 4 + 12 B more) follow the request's
// temperature, which no option carries (`vllm bench serve` sends temperature 0.0): not counted.
export const VLLM_SAMPLER_STEP_BYTES_PER_LOGIT = 2 + 4 + 4;

// The vocabulary-parallel layers under TP (VocabParallelEmbedding, LogitsProcessor; the same code in the 0.6.3.post1,
// 0.7.2 and 0.11.0 wheels). The embedding masks its lookup and all-reduces tokens x hidden inside the captured forward
// (vllm/model_executor/layers/vocab_parallel_embedding.py `forward`: `tensor_model_parallel_all_reduce(output_parallel)`,
// https://github.com/vllm-project/vllm/blob/v0.6.3.post1/vllm/model_executor/layers/vocab_parallel_embedding.py).
// The head's 16-bit logits of the pruned rows (one a running decode sequence, a prompt's last token) are gathered
// eagerly after the graph (worker/model_runner.py `compute_logits` after `model_executable`; V1
// v1/worker/gpu_model_runner.py `compute_logits(sample_hidden_states)`): V0 gathers to rank 0 alone, which samples
// (`torch.distributed.gather` then `torch.cat` along the vocabulary), V1 all-gathers to every rank, which all sample
// (`use_all_gather`: VLLM_USE_V1; `all_gather_into_tensor` then `movedim` and `reshape`, a copy)
// (https://github.com/vllm-project/vllm/blob/v0.7.2/vllm/model_executor/layers/logits_processor.py,
// https://github.com/vllm-project/vllm/blob/v0.11.0/vllm/distributed/device_communicators/base_device_communicator.py).
// Rank 0 receives the same bytes either way, and the cat or reshape reads and writes each 16-bit logit (2 + 2 B).
export const VLLM_VOCAB_PARALLEL = {
  embeddingAllReduce: true,
  // The head's bf16/fp16 output, gathered as it is
  // (https://github.com/vllm-project/vllm/blob/v0.7.2/vllm/model_executor/layers/logits_processor.py `_get_logits`).
  logitBytes: 2,
  // torch.cat (V0) or the reshape after movedim (V1) reads and writes each 16-bit logit once
  // (https://github.com/vllm-project/vllm/blob/v0.7.2/vllm/distributed/parallel_state.py `gather`, `all_gather`)
  reorderBytesPerLogit: 2 + 2,
} as const;

// vLLM's KV block: CacheConfig.block_size defaults to 16 tokens on CUDA, and a hybrid model's attention block is
// a multiple of 16 (kernel_block_alignment_size in HybridAttentionMambaModelConfig,
// https://github.com/vllm-project/vllm/blob/1936cf3841edb9781b06c50fc4daf4bac9d3b23e/vllm/model_executor/models/config.py).
export const VLLM_BLOCK_TOKENS = 16;

/**
 * vLLM's cache layout: the conv state in the model dtype and the temporal state in mamba_ssm_cache_dtype, which
 * its per-model hooks set from the config (Qwen3.5 mamba_ssm_dtype; Nemotron-H mamba_ssm_cache_dtype, float32 when
 * absent) and is the model dtype otherwise (MambaStateDtypeCalculator, vllm/model_executor/layers/mamba/mamba_utils.py);
 * sliding windows freed block by block over one more block than they span (SlidingWindowManager.remove_skipped_blocks;
 * SlidingWindowSpec, vllm/v1/kv_cache_interface.py); the hybrid allocator's uniform page size
 * (vllm/v1/core/kv_cache_utils.py _get_kv_cache_groups_uniform_page_size). Each KV-cache group beyond the first costs
 * the serial scheduler work a running request and step (one more SingleTypeKVCacheManager in allocate_slots, one
 * more block table row): vLLM 0.10.1's engine core timed on a CPU with gpt-oss's two groups against one
 * (scripts/measure/vllm_0101_hybrid_engine_host.py, test/fixtures/measure/vllm-0101-hybrid-engine-host.json) grows
 * 3.8 and 4.7 µs a request more from 16 to 256 running, at prompts of 90 and 1,067 tokens.
 */
export const VLLM_CACHE_LAYOUT: CacheLayoutProfile = {
  convStateBytes: 'compute',
  temporalStateBytes: 'config',
  sliding: { kind: 'blocks', blockTokens: VLLM_BLOCK_TOKENS },
  // vllm-project/vllm v0.10.1 wheel timed on a CPU (vllm_0101_hybrid_engine_host.py)
  hybridPages: { blockTokens: VLLM_BLOCK_TOKENS, groupSeqHostSeconds: 4.2e-6 },
};

// vLLM 0.11.0's API server per chat request, CPU time measured on a 2-vCPU Xeon VM (scripts/measure/
// vllm_api_server_request.py, test/fixtures/measure/vllm-api-server-request.json: 1000 serial Qwen3-14B requests
// as `vllm bench serve --backend openai-chat` sends them, a fake engine core). A server's cores may be faster.
// The per-request parse of the chat template (resolve_chat_template_kwargs: a new Jinja environment and env.parse
// of Qwen3-14B's 4.2 KB template), median 11.9 ms.
const VLLM_TEMPLATE_PARSE_SECONDS = 11.9e-3; // vllm-project/vllm@f71952c1c (v0.11.0) timed on a CPU
// A streamed token's API-server work where chunks merge: the median of six merged slopes (chat and completions at 1,
// 64 and 256 streams), test/fixtures/measure/vllm-api-server-token.json.
const VLLM_TOKEN_SECONDS = 12.4e-6; // vllm-project/vllm@f71952c1c (v0.11.0) timed on a CPU
/**
 * vLLM's API server (time/frontend.ts). A chat request's other work, measured with the parse above: request
 * validation 0.14 ms, the rest of the template render 0.19 ms, tokenization 1.03 ms, Processor.process_inputs
 * 0.11 ms, AsyncLLM.generate with OutputProcessor and the SSE chunks 0.59 ms; median 2.07 ms less its 4 chunks'
 * tokenSeconds. Not timed: uvicorn/HTTP and the ZMQ hop to EngineCore (a floor on that count). A streamed token:
 * the same wheel's path per token at 1-256 streams against a stepping fake engine core (scripts/measure/
 * vllm_api_server_token.py, test/fixtures/measure/vllm-api-server-token.json): 23-30 µs where every token is its own
 * chunk, 7-17 µs where the server has fallen behind and the collector merges a request's tokens into one chunk
 * (RequestOutputCollector.put, vllm/v1/engine/output_processor.py): the detokenizer and OutputProcessor's work, which
 * no merge saves. A server that bounds a run is behind, so the merged median is the floor. The parse on every
 * request came with the request-kwargs filter of v0.11 (vllm-project/vllm#25794: resolve_chat_template_kwargs,
 * vllm/entrypoints/chat_utils.py of the v0.11.0 wheel) and is cached today
 * (vllm-project/vllm@02e64f581de43218449b3c3450896c43a89f40e0 vllm/renderers/hf.py): a TimeOptions flag.
 */
export const VLLM_FRONTEND: ServingFrontend = {
  requestSeconds: 2.074e-3 - 4 * VLLM_TOKEN_SECONDS, // vllm-project/vllm@f71952c1c (v0.11.0) timed on a CPU
  tokenSeconds: VLLM_TOKEN_SECONDS, // vllm-project/vllm@f71952c1c (v0.11.0) timed on a CPU, merged chunks
  templateParseSeconds: VLLM_TEMPLATE_PARSE_SECONDS, // test/fixtures/measure/vllm-api-server-request.json
};

export const VLLM_MEMORY: FrameworkProfile = {
  ...SERVING_BASE,
  id: 'vllm',
  name: 'vLLM',
  kvCache: 'paged-pool', // preallocates gpu_memory_utilization x capacity minus weights and activations
  cacheLayout: VLLM_CACHE_LAYOUT,
  cudaContextMiB: TORCH_CONTEXT_MIB,
  allocatorSlack: 0.02,
  // Custom all-reduce (vllm/distributed/device_communicators/custom_all_reduce.py, on by default for TP within an
  // NVLink node): 8.5-11.8 µs at 4-32 KB over TP 2/4/8 on H100 (vLLM's kernel in the table of
  // https://github.com/sgl-project/sglang/pull/2904), where NCCL's small all-reduce takes ~25 µs.
  allReduceSeconds: 9e-6,
  vocabParallel: VLLM_VOCAB_PARALLEL, // the embedding's all-reduce and the logits' gather (above)
  // Async scheduling (the CPU schedules step n+1 while the GPU runs step n) is on by default since
  // https://github.com/vllm-project/vllm/pull/27614 (2025-12-29; vllm/config/scheduler.py async_scheduling: None =
  // on unless incompatible), so the pinned vLLM hides its step's host work: no stepHostSeconds. Before that the V1
  // engine core applied the sampled tokens, scheduled and prepared inputs while the GPU waited: 0.38 ms a step,
  // worked out from calibration row vllm-rtn-8b-bf16-b1 (in sample; listed in calibration/assumed.json) once its
  // piecewise graphs' GPU gaps are timed (32 layers x 14 µs, engines/vllm/piecewise.ts).
  serialStepHostSeconds: 1.3e-4, // vLLM serial scheduler
  // Its work grows with the running requests. The v0.11.0 wheel's own code (commit f71952c1c) driven on a CPU with N
  // fake decoding requests (scripts/measure/vllm_v1_engine_host.py, test/fixtures/measure/vllm-v1-engine-host.json):
  // Scheduler.schedule 5.6 µs a request at N = 1024, update_from_output 2.9, the model runner's _update_states and
  // _prepare_inputs 1.2, the outputs' msgpack 0.15: 9.9 µs a request, 9.7 for each request added from 128 to 1024
  // (docs/time-model.md "vLLM V1's host work per running request").
  serialSeqHostSeconds: 1e-5, // per running sequence: vllm-project/vllm@f71952c1c (v0.11.0) timed on a CPU
  // With async scheduling the host's step still bounds a model whose GPU work is shorter: vLLM v0.23.0 on a B200
  // decodes Qwen3-0.6B at batch 1 in 1.53 ms a token with full CUDA graphs and 3.64 ms with piecewise graphs, whose
  // 28 layers x 8 eager attention calls x 10 µs (time/piecewise.ts) leave 1.40 ms of step work on the host
  // (https://github.com/vllm-project/vllm/issues/47089, median TPOT table; not a calibration row).
  asyncStepHostSeconds: 1.4e-3, // vLLM async scheduling, per step (vllm-project/vllm#47089)
  samplerStepBytesPerLogit: VLLM_SAMPLER_STEP_BYTES_PER_LOGIT, // its sampler's fp32 upcast and argmax (above)
  // Async scheduling overlaps the same per-request work with the GPU, not less of it: the engine core's one thread
  // still runs Scheduler.schedule, the model runner's input preparation and update_from_output for every running
  // request each step (EngineCore.step_with_batch_queue, vllm/v1/engine/core.py of the 0.15.1 wheel, as below), so a
  // step lasts at least that work: the v0.11.0 classes' 9.9 µs a request (the fixture above), no later release timed.
  asyncSeqHostSeconds: 1e-5, // per running sequence: vllm-project/vllm@f71952c1c (v0.11.0) timed on a CPU
  // The same thread issues the step's forward: EngineCore.step_with_batch_queue (vllm/v1/engine/core.py of the wheel of
  // https://pypi.org/project/vllm/0.15.1/) calls Scheduler.schedule, then the executor's execute_model, which
  // UniProcExecutor.collective_rpc (one GPU; vllm/v1/executor/uniproc_executor.py) runs in that thread, non_block or not,
  // handing only the output's copy to its async_output_thread.
  forwardOnStepThread: true,
  // V1 fills each step's token budget with the running decodes first, then prefill chunks, in one forward
  // (https://docs.vllm.ai/en/latest/configuration/optimization.html, "Chunked Prefill").
  prefillInDecodeStep: true,
  // Since vllm-project/vllm#25444 (v0.11.0) V1's default cudagraph_mode is FULL_AND_PIECEWISE: "Capture full cudagraph
  // for decode batches and piecewise cudagraph for prefill and mixed prefill-decode batches" (CompilationConfig
  // docstring, vllm/config/compilation.py at vllm-project/vllm@002284db4c87420647c6bc2cafe923942bcea307), so a step
  // that holds a neighbour's prompt chunk issues each layer's attention op from Python (engines/vllm/piecewise.ts).
  mixedStepsPiecewise: true,
  // The V0 engine (before V1 became the default in v0.8) did more per step in series with the GPU: ~4 ms of GPU
  // bubble per decode step in the multi-step scheduling RFC's trace (Llama-3-8B, H100;
  // https://github.com/vllm-project/vllm/issues/6854 "Each highlighted redbox is about 4ms of GPU bubble"), and
  // sampling + input preparation + output processing + scheduling "can be 20ms" at batch 200 (performance
  // roadmap RFC https://github.com/vllm-project/vllm/issues/6801, comment by mpjlu 2024-08-08): 4 ms a step
  // and (20 - 4) / 200 = 0.08 ms per running sequence.
  v0StepHostSeconds: 4e-3, // vLLM V0 engine, per step
  v0SeqHostSeconds: 8e-5, // vLLM V0 engine, per running sequence (vllm-project/vllm#6801)
  // Of that, `_process_model_outputs` (detokenizing, stop checks, the request outputs) took 0.2 ms at batch 1
  // (Llama-3-70B FP8, 4x H100; https://github.com/vllm-project/vllm/issues/6913). From v0.6.0 it runs in a callback
  // `ModelRunner.execute_model` calls once the next step's forward is launched (vllm-project/vllm#7049; the v0.6.0
  // post, blog.vllm.ai 2024-09-05, "Asynchronous output processing"), on by default (`disable_async_output_proc`
  // False), off with enforce_eager or pipeline parallelism (`ModelConfig.verify_async_output_proc`, vllm/config.py of
  // v0.6.3.post1). Its growth, (3.4 - 0.2) / 31 = 0.1 ms a sequence at batch 32 there, exceeds the whole 0.08 ms of
  // vllm-project/vllm#6801, which also names sampling, input preparation and scheduling: the sources do not split it,
  // so it stays in series.
  v0OutputHost: { since: '0.6.0', stepSeconds: 2e-4, seqSeconds: 0 }, // vllm-project/vllm#6913, vllm-project/vllm#7049
  // V0 replays a decode step's CUDA graph only where its longest sequence is at most max_seq_len_to_capture
  // (ModelInputForGPUBuilder._use_captured_graph, vllm/worker/model_runner.py: `max_decode_seq_len <=
  // self.runner.max_seq_len_to_capture`), 8192 unless set (EngineArgs.max_seq_len_to_capture, vllm/engine/arg_utils.py
  // of v0.6.3: "When a sequence has context length larger than this, we fall back to eager mode").
  // https://github.com/vllm-project/vllm/blob/v0.6.3/vllm/engine/arg_utils.py
  v0GraphMaxSeqLen: 8192,
  // V0's scheduler without chunked prefill (its default up to 32K of context, EngineArgs.create_engine_config):
  // `Scheduler._schedule_default` schedules waiting prefills first and "Don't schedule decodes if prefills are
  // scheduled", admitting while the step's token budget and max_num_seqs allow (vllm/core/scheduler.py), and
  // `SchedulerConfig` takes max_num_batched_tokens = max(max_model_len, 2048) where none is given ("If max_model_len is
  // too short, use 2048 as the default value for higher throughput", vllm/config.py), both in the vllm==0.5.4 wheel.
  v0Scheduler: { prefillFirst: true, batchedTokens: (maxModelLen) => Math.max(maxModelLen, 2048) },
  // vLLM serves 4-bit GPTQ/AWQ checkpoints with Marlin kernels (https://docs.vllm.ai/en/latest/features/quantization/); CUDA graphs on by default.
  quantFormat: 'gptq',
  int4QuantFormat: 'marlin',
  // The plain AWQ kernel (Turing, ROCm, --quantization awq) keeps awq_gemm below 256 tokens and dequantizes from 256:
  // FP16_MATMUL_HEURISTIC_CONDITION = x.shape[:-1].numel() >= 256 (AWQLinearMethod.apply,
  // vllm/model_executor/layers/quantization/awq.py @000796acdf1e6184eeb36272c5ddd6ffbc41fac3).
  awqGemmMaxTokens: 255,
  // AWQ/GPTQ VL checkpoints leave the tower out (AutoAWQ awq/models/base.py save_quantized writes
  // modules_to_not_convert ["visual"] for a VLM; llm-compressor examples/multimodal_vision ignore "re:visual.*") and
  // the engine gives those layers UnquantizedLinearMethod (AWQConfig.get_quant_method, is_layer_skipped_awq:
  // vllm/model_executor/layers/quantization/awq.py, v0.33.0; GPTQ: the model drops the quant_config for its tower,
  // _maybe_ignore_quant_config in vllm/model_executor/models/qwen2_5_vl.py).
  floatTowerWeights: ['int4'],
  // --quantization bitsandbytes runs bitsandbytes' own kernels (https://docs.vllm.ai/en/latest/features/quantization/bnb.html);
  // int8/fp8 checkpoints run CUTLASS W8A8 (Marlin W8A16 where the GPU lacks FP8: time/decode.ts kernelOn).
  quantFormatFor: {
    nf4: 'bnb',
    fp4: 'bnb', // a pre-quantized bitsandbytes FP4 checkpoint: the same bitsandbytes kernels
    int8: 'cutlass',
    fp8: 'cutlass',
    mxfp4: 'cutlass',
    nvfp4: 'cutlass',
  },
  // On AMD GPUs the kernels it runs in their place, by name (engines/vllm/kernels.ts).
  rocmKernelNames: VLLM_ROCM_KERNEL_NAMES,
  poolBudget: 'utilization',
  // Its CUDA graphs are captured inside the profiled budget (no buffers outside it).
  server: {
    sizing: (capacityBytes, _tp, _pp, deviceName) => ({
      poolFraction: VLLM_GPU_UTILIZATION,
      chunkTokens: vllmBatchedTokens(capacityBytes, deviceName),
      cudaGraphBytes: 0,
    }),
    samplerBytesPerLogit: VLLM_SAMPLER_BYTES_PER_LOGIT,
    // Its fused_experts workspaces at the profiled chunk (engines/vllm/fused-moe-workspace.ts).
    moeWorkspace: vllmFusedMoeWorkspace,
    // V1 start-up raises "To serve at least one request with the models's max seq len ..." when the KV memory left
    // holds less than one max_model_len request (check_enough_kv_cache_memory, vllm/v1/core/kv_cache_utils.py).
    poolHoldsMaxLen: true,
    startRefusal:
      'vLLM refuses to start: "To serve at least one request with the models\'s max seq len (...), (... GiB KV cache is needed, which is larger than the available KV cache memory (... GiB). ... Try increasing `gpu_memory_utilization` or decreasing `max_model_len`" (check_enough_kv_cache_memory, vllm/v1/core/kv_cache_utils.py, vllm 0.33.0)',
    // max_num_seqs caps the running requests; the scheduler admits while the pool has blocks (vllm/v1/core/sched/scheduler.py).
    runningCap: (given, _tokens, _context, capacityBytes, deviceName) =>
      given ?? vllmMaxNumSeqs(capacityBytes, deviceName),
  },
  // The V1 API server: one process (--api-server-count 1 unless data-parallel) apart from EngineCore
  // (https://docs.vllm.ai/en/latest/design/arch_overview/), its costs per chat request and per streamed token.
  servingFrontend: VLLM_FRONTEND,
  fusedKernels: true,
  // Each kernel of its CUDA-graph decode step: the boundary's GPU cost beyond the bytes (engines/graph-kernel.ts).
  graphKernelSeconds: SERVING_GRAPH_KERNEL_SECONDS,
  graphKernelCycles: SERVING_GRAPH_KERNEL_CYCLES,
  // vllm/model_executor/layers/fused_moe: one fused Triton/CUTLASS MoE kernel per projection over all experts.
  moeDispatch: 'grouped',
  // An MoE layer's decode runs the router GEMM, fused_topk (topk_softmax), moe_align_block_size, the w13 and w2
  // fused_moe kernels with silu_and_mul between, then moe_sum: 7 kernels where a dense MLP runs 3 (gate_up GEMM,
  // silu_and_mul, down GEMM) (fused_experts_impl and fused_moe in
  // https://github.com/vllm-project/vllm/blob/000d1458098ebf47491dad470d164d443ab18a9c/vllm/model_executor/layers/fused_moe/fused_moe.py).
  moeRoutingKernels: 4,
  // Decode steps above min(2 x max_num_seqs, 512) take no graph and run the compiled pieces (engines/vllm/graph-cap.ts).
  graphMaxBatch: () => VLLM_GRAPH_MAX_BATCH,
  compiledAboveGraphs: VLLM_COMPILED_ABOVE_GRAPHS,
  // A layer run outside its CUDA graphs: its custom ops' Python calls (eager-ops.ts).
  eagerLayerExtraOps: vllmEagerLayerExtraOps,
  // and the Python around them, measured (eager-ops.ts).
  eagerLayerHostSeconds: VLLM_EAGER_LAYER_PYTHON_SECONDS,
  // MLA layers, shared experts, DeepSeek's biased grouped router and block-FP8 activations: their own kernels in the
  // v0.11.0 decode graph (engines/vllm/decode-kernels.ts), on every GPU; gpt-oss's MoE chain on SM100.
  decodeFeatureKernels: vllmDecodeFeatureKernels,
  // MLA decode on W_Q_UK and W_UV_O, materialized and requantized at load (VLLM_MLA_PERFORM_MATRIX_ABSORPTION, default
  // on): vllm 0.7.1 and 0.7.3 wheels attention/backends/mla/utils.py; gone in 0.8.0 (vllm-project/vllm#14770).
  mlaMaterializedAbsorption: { from: '0.7.1', before: '0.8.0' },
  // The Triton fused_moe call, FlashInfer's CUTLASS MoE for NVFP4 experts on Blackwell and its TensorRT-LLM-gen MoE for
  // MXFP4 experts on SM100 (engines/moe-call.ts).
  moeCallSeconds: { ...FUSED_MOE_CALL_SECONDS, sm100Mxfp4: FLASHINFER_TRTLLM_MXFP4_MOE },
  // Its GEMMs' rate once the tiles fill: FP4 x BF16 converted on the SMs, multiplied in BF16 (engines/moe-call.ts).
  sm100Mxfp4Bf16MoeFlops: FLASHINFER_TRTLLM_MXFP4_BF16_MOE_FLOPS,
  // GLM-4.5's gate in fp32 at 0.10.1-0.11.0 (engines/vllm/fp32-router.ts).
  fp32Router: VLLM_FP32_ROUTER,
  // MXFP4 experts padded to each path's kernel shape (engines/vllm/mxfp4-pad.ts).
  mxfp4ExpertPad: VLLM_MXFP4_EXPERT_PAD,
  // Marlin is the default MXFP4 MoE backend on 12.x (engines/vllm/mxfp4-backend.ts VLLM_MXFP4_MARLIN_MAJORS).
  mxfp4MarlinMajors: VLLM_MXFP4_MARLIN_MAJORS,
  // 16-bit experts on the Triton fused_moe with no tuned file: get_default_config's tiles up to E tokens, BLOCK_K 64
  // (engines/moe-call.ts), at Triton's default pipeline depth, num_stages 3 (triton-lang/triton@2b43145c
  // third_party/nvidia/backend/compiler.py CUDAOptions), which the dict leaves unset. On ROCm the same kernel runs them
  // unless VLLM_ROCM_USE_AITER is set (vllm/model_executor/layers/fused_moe/rocm_aiter_fused_moe.py
  // is_rocm_aiter_moe_enabled; off by default in vllm/envs.py), at Triton's HIP default depth, num_stages 2.
  // Its launch grid over moe_align_block_size's padded rows (engines/vllm/fused-moe-grid.ts), and its block-FP8
  // default tiles where the release ships no tuned file for the shape (engines/vllm/moe-tiles.ts).
  fusedMoeTile16: {
    ...FUSED_MOE_TILE_16,
    rocmStages: TRITON_HIP_NUM_STAGES,
    grid: VLLM_FUSED_MOE_GRID,
    defaults: VLLM_FUSED_MOE_DEFAULT_TILES,
  },
  // Block-scaled FP8 linears (weight_block_size) at decode on Hopper: the CUTLASS blockwise GEMM (engines/vllm/block-fp8.ts).
  blockFp8Linear: VLLM_BLOCK_FP8_LINEAR,
  // On ROCm, decode linears its skinny kernels do not take run hipBLASLt at a fixed cost a call (engines/vllm/rocm-gemm.ts).
  rocmLibraryGemm: VLLM_ROCM_LIBRARY_GEMM,
  // Piecewise CUDA graphs (builds before FULL_AND_PIECEWISE became the default): attention's eager torch calls per
  // layer (engines/vllm/piecewise.ts).
  piecewiseAttentionCalls: VLLM_PIECEWISE_ATTENTION_CALLS,
  // On Ampere and Ada the FLASH_ATTN backend runs FlashAttention 2 (vllm/attention/utils/fa_utils.py
  // get_flash_attn_version: FA3 only on compute capability 9.x); Hopper's FA3 has no KV-rate figure (stream rate), an
  // MLA model runs vLLM's MLA backends and gpt-oss's sinks the Triton backend off Hopper (engines/vllm/piecewise.ts).
  decodeAttention: (modelType, mla, cc) =>
    Math.floor(cc) === 8 && !mla && modelType !== 'gpt_oss' ? 'flash-attn-2' : undefined,
  // Its V1 decode calls of sliding-window and MHA layers walk their keys unsplit (engines/vllm/fa2-varlen.ts).
  unsplitDecodeWalk: VLLM_FA2_VARLEN_WALK,
  // On compute capability 10.0 with an fp8 KV cache the FlashInfer backend quantizes the query to FP8, which must then
  // prefill through TRT-LLM's FMHA (vllm/v1/attention/backends/flashinfer.py q_data_type; vllm/utils/flashinfer.py
  // use_trtllm_attention, "Must use TRTLLM attention if query is FP8 quantized", and supports_trtllm_attention, SM100
  // only; the v0.11.0 wheel). That kernel on a B200, 64 query and 8 KV heads of 128, one sequence of 131,072 new tokens
  // over a 262,144-token cache: 8.44e14 FLOP in 666.3 ms, 1.27 PFLOPS, 0.28 of the 4.5 PFLOPS 8-bit peak
  // (benchmarks/kernels/benchmark_trtllm_prefill_attention.py output in vllm-project/vllm#25998).
  fp8KvPrefillAttention: { cc: 10, peakShare: 0.28 }, // vllm-project/vllm#25998
  // A sliding-window layer's prefill skips the key tiles left of its window on 8.x and 9.x. FLASH_ATTN (FlashAttention
  // 2 on 8.x, FA3 on 9.x, gpt-oss's sinks included there): FlashAttentionImpl passes window_size = (sliding_window - 1,
  // 0) (vllm/v1/attention/backends/flash_attn.py) and the kernel starts each query block's key loop at the window's left
  // edge (n_block_min in Dao-AILab/flash-attention@0142ff05 csrc/flash_attn/src/flash_fwd_kernel.h
  // compute_attn_1rowblock; FA3's get_n_block_min_max takes window_size_left, hopper/mainloop_fwd_sm90_tma_gmma_ws.hpp).
  // Sinks off 9.x take the Triton backend, whose kernel_unified_attention_2d prunes the tiles outside the window since
  // vllm-project/vllm#24390 (merged 2025-09-07, "GPT-OSS + triton attention backend was spending equal amount of time
  // between global and local attention"; v0.10.1's walked every block, engines/vllm/piecewise.ts). 10.x's FlashInfer
  // and TRT-LLM prefill were not read.
  prefillWindowSkip: (cc) => Math.floor(cc) === 8 || Math.floor(cc) === 9,
  // On ROCm a prompt's attention runs a Triton kernel over the paged cache (engines/vllm/rocm-attention.ts).
  rocmPrefillAttention: VLLM_ROCM_PREFILL_ATTENTION,
  // On ROCm a decode token's attention runs the HIP paged-attention kernel or, outside its block and head sizes, the
  // Triton kernel that walks each sequence in one program (engines/vllm/rocm-attention.ts).
  // Those kernels read the KV below the card's stream rate on gfx942 and gfx950 (peakShares); the HIP kernel from
  // v0.6.2 and to a release's longest sequence, V0's generic kernel otherwise (releases).
  rocmPagedDecode: {
    ...VLLM_ROCM_PAGED_DECODE,
    peakShares: VLLM_ROCM_DECODE_READ,
    releases: VLLM_ROCM_SPLIT_RELEASES,
  },
  expertParallel: true, // --enable-expert-parallel
  // SpeculativeConfig.method: ngram, eagle3, mtp (vllm/config/speculative.py at 002e77c1f0ef9b19cff8b9e21cfbd6feb3d6b443).
  speculative: ['eagle3', 'mtp', 'ngram'],
  // --enable-lora --max-loras --max-lora-rank (https://docs.vllm.ai/en/latest/features/lora.html).
  multiLora: true,
  source: 'https://docs.vllm.ai/en/latest/configuration/conserving_memory.html',
};
