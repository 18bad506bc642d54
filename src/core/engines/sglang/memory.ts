/** What the sglang engine really allocates: SGLang's memory profile (core/memory reads it). */
import { SGLANG_FUSED_MOE_DEFAULTS } from './fused-moe-configs.js';
import {
  TORCH_CONTEXT_MIB,
  type CacheLayoutProfile,
  type FrameworkProfile,
  type ServingFrontend,
} from '../../memory/framework-profile.js';
import {
  VLLM_MAX_BATCHED_TOKENS,
  VLLM_MEMORY,
  VLLM_SAMPLER_BYTES_PER_LOGIT,
} from '../vllm/memory.js';
import { VLLM_EAGER_LAYER_PYTHON_SECONDS } from '../vllm/eager-ops.js';
import { VLLM_ROCM_DECODE_READ, VLLM_ROCM_PAGED_DECODE } from '../vllm/rocm-attention.js';
import { SGLANG_ROCM_KERNEL_NAMES } from './kernels.js';
import { SGLANG_CUDA_KERNEL_NAMES, sglangUpcastsMxfp4Experts } from './mxfp4-runner.js';
import { SERVING_BASE } from '../serving-base.js';
import {
  FLASHINFER_TRTLLM_FP8_BLOCK_MOE,
  FLASHINFER_TRTLLM_NVFP4_MOE,
  FUSED_MOE_CALL_SECONDS,
  FUSED_MOE_TILE_16,
} from '../moe-call.js';
import { MiB } from '../../units.js';
import type { AdmissionReserve } from '../../memory/layout-profiles.js';
import { SGLANG_BLOCK_FP8_LINEAR } from './block-fp8.js';
import { SGLANG_ROCM_LIBRARY_GEMM } from './rocm-gemm.js';
import { sglangDecodeFeatureKernels } from './decode-kernels.js';
import { SGLANG_SM90_DEEPSEEK_EXTEND, sglangEagerPrefillKernels } from './extend-kernels.js';
import { sglangGraphBatch } from './graph-batch.js';
import { SGLANG_FUSED_MOE_GRID } from './fused-moe-grid.js';
import { SGLANG_TWO_STAGE_ALL_REDUCE } from './all-reduce.js';
import { sglangAttentionBackend, sglangPrefillHostSync } from './attention-backend.js';
import { SERVING_GRAPH_KERNEL_CYCLES, SERVING_GRAPH_KERNEL_SECONDS } from '../graph-kernel.js';

/**
 * SGLang's sizing by GPU memory (sglangDefaults below). Without a GPU the chunk is vLLM's default (8192, that of
 * SGLang's 60-160 GiB class too) and nothing else applies. Its CUDA-graph buffers: SGLang's own estimate, 2 MiB
 * per captured batch size up to cuda_graph_max_bs. Its start-up profiling is estimated with vLLM's sampler run
 * (one row per sequence slot, whole vocabulary: samplerBytesPerLogit).
 */
function sglangSizing(capacityBytes: number | undefined, tp: number, pp: number) {
  if (!capacityBytes)
    return { poolFraction: 0, chunkTokens: VLLM_MAX_BATCHED_TOKENS, cudaGraphBytes: 0 };
  const d = sglangDefaults(capacityBytes, tp, pp);
  return {
    poolFraction: d.memFractionStatic,
    chunkTokens: d.chunk,
    cudaGraphBytes: d.graphMaxBs * 2 * MiB,
  };
}

/**
 * SGLang's cache layout: the SSM state in fp32 (mamba_ssm_dtype = "float32"), the conv state in the model dtype,
 * and a sliding pool holding 0.8 x the full pool's tokens (swa_full_tokens_ratio), both in
 * https://github.com/sgl-project/sglang/blob/main/python/sglang/srt/server_args.py read 2026-11-26
 * (model_runner_kv_cache_mixin.py _resolve_hybrid_swa_tokens).
 */
const SGLANG_CACHE_LAYOUT: CacheLayoutProfile = {
  convStateBytes: 'compute',
  temporalStateBytes: 4, // mamba_ssm_dtype "float32" (https://github.com/sgl-project/sglang, server_args.py)
  sliding: { kind: 'pool-share', ratio: 0.8 },
};

/**
 * SGLang's TokenizerManager (time/frontend.ts): one asyncio process (FastAPI/uvicorn; `--tokenizer-worker-num` 1 by
 * default) takes each chat request, renders the template and tokenizes it in its event loop (HF
 * apply_chat_template, entrypoints/openai/serving_chat.py), keeps its ReqState and pickles it to the scheduler, then
 * turns every streamed token into an OpenAI chunk (`model_dump_json`), all at sglang==0.5.5.post1. Both costs are
 * that wheel's own serving path timed on a 2-vCPU Xeon VM (scripts/measure/sglang_api_server_request.py,
 * test/fixtures/measure/sglang-api-server-request.json: 1000 serial Qwen3-14B chat requests as `vllm bench serve
 * --backend openai-chat` sends them, a fake scheduler and detokenizer): 4-token requests 1.038 ms, 64-token ones
 * 3.403 ms (medians); a token the slope, 39.4 µs (its unpickling, `_handle_batch_output` and SSE chunk), a request
 * the rest, 0.88 ms. Not timed: uvicorn/HTTP and the ZMQ sockets (a floor on that count). No parse of the template
 * per request: SGLang detects its content format once at start (managers/template_manager.py) and
 * transformers==4.57.1 compiles a template once (`_compile_jinja_template` is lru_cached,
 * utils/chat_template_utils.py). The DetokenizerManager detokenizes in a process of its own, in parallel, and is not
 * modelled: 50-100 µs a token in a multi-node DP-attention run
 * (https://www.jmyjmy.top/2025-09-02_sglang-multi-process-tokenizer), yet one detokenizer carried 38.5k output
 * tokens/s in sgl-project/sglang#9970's benchmark: no one figure holds.
 */
const SGLANG_FRONTEND: ServingFrontend = {
  requestSeconds: 0.88e-3, // https://pypi.org/project/sglang/0.5.5.post1/ timed on a CPU, the fixture above
  tokenSeconds: 39.4e-6, // https://pypi.org/project/sglang/0.5.5.post1/ timed on a CPU: 64- less 4-token requests
  templateParseSeconds: 0, // managers/template_manager.py: the content format detected once, sglang==0.5.5.post1
};

/**
 * SGLang's admission reserve (time/admission-reserve.ts) at its defaults (schedule_conservativeness 1.0), the same
 * in https://pypi.org/project/sglang/0.5.5.post1/ and 0.5.8: srt/environ.py SGLANG_INIT_NEW_TOKEN_RATIO 0.7,
 * SGLANG_MIN_NEW_TOKEN_RATIO_FACTOR 0.14 (floor 0.7 x 0.14), SGLANG_NEW_TOKEN_RATIO_DECAY_STEPS 600 (managers/scheduler.py
 * init_new_token_ratio, min_new_token_ratio, new_token_ratio_decay), CLIP_MAX_NEW_TOKENS 4096
 * (SGLANG_CLIP_MAX_NEW_TOKENS_ESTIMATION, managers/schedule_policy.py).
 */
const SGLANG_ADMISSION_RESERVE: AdmissionReserve = {
  initRatio: 0.7, // https://pypi.org/project/sglang/0.5.5.post1/ srt/environ.py SGLANG_INIT_NEW_TOKEN_RATIO
  minRatio: 0.7 * 0.14, // https://pypi.org/project/sglang/0.5.5.post1/ SGLANG_MIN_NEW_TOKEN_RATIO_FACTOR x init
  decaySteps: 600, // https://pypi.org/project/sglang/0.5.5.post1/ SGLANG_NEW_TOKEN_RATIO_DECAY_STEPS
  clipTokens: 4096, // https://pypi.org/project/sglang/0.5.5.post1/ schedule_policy.py CLIP_MAX_NEW_TOKENS
  // A decode step short of pool retracts (managers/scheduler.py `update_running_batch`, managers/schedule_batch.py
  // `retract_decode`, alike in https://pypi.org/project/sglang/0.5.3/, 0.5.5.post1 and 0.5.8): the requests with the
  // fewest output tokens leave until the rest fit, and new_token_ratio becomes min(1, (the rest's decoded tokens + 20 x
  // their count) / (their max_new_tokens + 1)); the retracted go to the end of waiting_queue (`_add_request_to_queue`
  // appends; the default schedule_policy 'fcfs' does not reorder it, schedule_policy.py `calc_priority`).
  retraction: {
    aheadSteps: 20, // https://pypi.org/project/sglang/0.5.8/ srt/environ.py SGLANG_RETRACT_DECODE_STEPS
    requeue: 'back', // https://pypi.org/project/sglang/0.5.8/ managers/scheduler.py `_add_request_to_queue`
  },
};

// The host's price of one call of the eager extend forward: sgl-project/sglang#12160's eager DeepSeek-V3 extend of one
// new token (82.6 ms) over its calls as engines/sglang/extend-kernels.ts counts them over TP 8 on Hopper: 3 dense
// layers, 58 MoE layers and 2 all-reduces in each of the 61.
export const SGLANG_EAGER_CALL_SECONDS =
  82.6e-3 / (3 * SGLANG_SM90_DEEPSEEK_EXTEND.dense + 58 * SGLANG_SM90_DEEPSEEK_EXTEND.moe + 2 * 61);

/**
 * SGLang's running-request cap (ModelRunnerKVCacheMixin._resolve_max_num_reqs,
 * python/sglang/srt/model_executor/model_runner_kv_cache_mixin.py, sglang 0.5.23): tokens / context_len x 512 held
 * to [2048, 4096]; --max-running-requests (per attention-DP rank) at most that, else at most half the pool's tokens.
 */
export function sglangRunningCap(
  given: number | undefined,
  tokens: number,
  context: number,
): number {
  const estimated = Math.max(Math.min(Math.floor((tokens / context) * 512), 4096), 2048);
  return given !== undefined
    ? Math.min(given, estimated)
    : Math.min(estimated, Math.floor(tokens / 2));
}

/**
 * SGLang's decode attention's KV read on gfx942 and gfx950 (FrameworkProfile.rocmPagedDecode.peakShares): its ROCm
 * backends (`aiter`, the default for a non-MLA model on ROCm in sglang 0.5.23 arg_groups/model_override_base.py, and
 * `triton`) run kernels with no published timing on these cards; vLLM's Triton unified attention on an MI325X,
 * 0.54 of peak (ROCm/aiter#5415), is the nearest measured one and stands in for both (calibration/assumed.json).
 */
const SGLANG_ROCM_READ_SHARE = VLLM_ROCM_DECODE_READ.triton; // ROCm/aiter#5415, assumed for SGLang's kernels
const SGLANG_ROCM_DECODE_READ = {
  gfx: VLLM_ROCM_DECODE_READ.gfx,
  split: SGLANG_ROCM_READ_SHARE, // no split HIP kernel in SGLang: the stand-in either way
  triton: SGLANG_ROCM_READ_SHARE,
};

export const SGLANG_MEMORY: FrameworkProfile = {
  ...SERVING_BASE,
  id: 'sglang',
  name: 'SGLang',
  servingFrontend: SGLANG_FRONTEND,
  // Token-level paged pool (page size 1) under a radix tree of cached prefixes (mem_cache/radix_cache.py).
  kvCache: 'paged-pool',
  // mem_fraction_static = (weights + KV pool) / GPU memory (server_args.py _handle_gpu_memory_settings).
  poolBudget: 'static',
  cacheLayout: SGLANG_CACHE_LAYOUT,
  server: {
    sizing: sglangSizing,
    samplerBytesPerLogit: VLLM_SAMPLER_BYTES_PER_LOGIT,
    admissionReserve: SGLANG_ADMISSION_RESERVE,
    // get_next_batch_to_run runs a prefill batch whenever one can be formed ("Run prefill first if possible") and
    // the decode batch only otherwise; mixing them is opt-in (enable_mixed_chunk, default False): sgl-project/sglang
    // v0.5.5.post1 python/sglang/srt/managers/scheduler.py and srt/server_args.py.
    prefillFirst: true,
    // init_memory_pool raises on an empty pool (model_runner_kv_cache_mixin.py, sglang 0.5.23); a pool shorter than
    // --context-length starts, its requests capped at the pool (scheduler.py max_req_input_len).
    startRefusal:
      'SGLang refuses to start: "Not enough memory. Please try to increase --mem-fraction-static." (init_memory_pool, python/sglang/srt/model_executor/model_runner_kv_cache_mixin.py, sglang 0.5.23)',
    poolCapsRequest:
      'SGLang starts and caps a request at its pool, max_req_len = min(context_len - 1, max_total_num_tokens - 1) (python/sglang/srt/managers/scheduler.py, sglang 0.5.23): a longer prompt is refused',
    runningCap: sglangRunningCap,
  },
  cudaContextMiB: TORCH_CONTEXT_MIB,
  allocatorSlack: 0.02,
  // SGLang captures its whole decode step in one CUDA graph (cuda_graph_runner.py): no piecewise attention calls
  // (piecewiseAttentionCalls). Its ROCm decode linears are hipBLASLt calls at every batch row (rocm-gemm.ts). Its
  // ROCm prefill backends (AITER, Triton) were not read: attention at the prefill's GEMM rate (no rocmPrefillAttention). Nor its serial scheduler's per-request cost
  // (serialSeqHostSeconds) or a V0 engine's (v0StepHostSeconds): vLLM's own, none measured for SGLang.
  // Its ROCm decode attention was not read either: vLLM's kernels' sizes (engines/vllm/rocm-attention.ts), assumed.
  // Its KV read share: no timing of SGLang's Triton or AITER decode kernels on gfx942 was found, and no ROCm decode
  // kernel measured there reaches the card's stream rate (0.32-0.54 of peak, engines/vllm/rocm-attention.ts), so the
  // nearest measured kernel's, the Triton unified attention's, stands in for both (SGLANG_ROCM_DECODE_READ).
  rocmPagedDecode: { ...VLLM_ROCM_PAGED_DECODE, peakShares: SGLANG_ROCM_DECODE_READ },
  rocmLibraryGemm: SGLANG_ROCM_LIBRARY_GEMM,
  // An fp8 KV cache on compute capability 10.0: vLLM's TRT-LLM FMHA prefill figure (vllm-project/vllm#25998), assumed
  // for SGLang's trtllm_mha backend there; no calibration row moves with it.
  fp8KvPrefillAttention: VLLM_MEMORY.fp8KvPrefillAttention,
  // Custom all-reduce inside an NVLink node: SGLang runs vLLM's kernel, first through vllm.distributed
  // (sgl-project/sglang#2511), since sgl-project/sglang#5079 through sgl-kernel's port of it (the TRT-LLM kernel of
  // sgl-project/sglang#2904 ran between the two), so vLLM's latency (engines/vllm/memory.ts).
  allReduceSeconds: VLLM_MEMORY.allReduceSeconds,
  // Above 256 KiB at 8 ranks (512 KiB at 4) that kernel runs its two-stage path, timed apart (engines/sglang/all-reduce.ts).
  twoStageAllReduce: SGLANG_TWO_STAGE_ALL_REDUCE,
  // Its vocabulary-parallel layers are vLLM's: the embedding's masked lookup all-reduced, the head's 16-bit logits
  // all-gathered (`tensor_model_parallel_all_gather`, `all_gather_into_tensor` then `movedim` and `reshape`, a copy) on
  // every rank, inside the captured decode graph (cuda_graph_runner.py `run_once` calls the model's forward, the
  // logits processor included); each rank then samples (sglang 0.4.6.post5 and 0.5.3 wheels:
  // srt/layers/vocab_parallel_embedding.py, srt/layers/logits_processor.py `_get_logits`,
  // srt/distributed/parallel_state.py `all_gather`, https://github.com/sgl-project/sglang/blob/v0.5.3/python/sglang/srt/layers/logits_processor.py).
  vocabParallel: VLLM_MEMORY.vocabParallel,
  // Its decode reads the KV through the backend it picks by model and GPU (engines/sglang/attention-backend.ts):
  // FlashInfer's batch decode where that is FlashInfer, for K/V heads (not an MLA latent).
  decodeAttention: (modelType, mla, cc) =>
    !mla && sglangAttentionBackend(modelType, mla, cc) === 'flashinfer' ? 'flashinfer' : undefined,
  // SGLang serves AWQ/GPTQ int4 through Marlin, FP8 through CUTLASS W8A8 (or Marlin W8A16 without FP8 cores),
  // bitsandbytes NF4 through bitsandbytes (python/sglang/srt/layers/quantization/).
  quantFormat: 'gptq',
  int4QuantFormat: 'marlin',
  // As vLLM: AWQ/GPTQ VL checkpoints keep the tower unquantized and the engine skips those layers
  // (is_layer_skipped_awq, python/sglang/srt/layers/quantization/awq.py, v0.5.23).
  floatTowerWeights: ['int4'],
  // Before 0.4.7 its AWQ/GPTQ MoE is vLLM 0.7.2's (sglang==0.4.6.post1 layers/quantization/__init__.py: the
  // GPTQMarlinMoEMethod and AWQMoEMethod imports, "pip install vllm==0.7.2"), whose fused_marlin_moe launches one
  // Marlin kernel per expert (time/per-expert-moe.ts); 0.4.7 names vllm==0.9.0.1 there instead (its fused_marlin_moe not read).
  // Each call's compute_expert_offsets and its output and scratch torch.zeros: vllm csrc/moe/marlin_moe_ops.cu.
  perExpertMarlinMoe: { before: '0.4.7', kernelsPerCall: 3 },
  quantFormatFor: {
    nf4: 'bnb',
    fp4: 'bnb', // a pre-quantized bitsandbytes FP4 checkpoint: the same bitsandbytes kernels
    int8: 'cutlass',
    fp8: 'cutlass',
    mxfp4: 'cutlass',
    nvfp4: 'cutlass',
  },
  // On AMD GPUs the kernels it runs in their place, by name (engines/sglang/kernels.ts).
  rocmKernelNames: SGLANG_ROCM_KERNEL_NAMES,
  // Below SM90 its MXFP4 MoE runs triton_kernels' matmul, not Marlin (engines/sglang/mxfp4-runner.ts).
  cudaKernelNames: SGLANG_CUDA_KERNEL_NAMES,
  // Under --ep-size below SM100 (no Marlin launched) it upcasts MXFP4 experts to BF16 (engines/sglang/mxfp4-runner.ts).
  mxfp4UpcastExperts: sglangUpcastsMxfp4Experts,
  fusedKernels: true, // CUDA graphs for decode batches up to cuda_graph_max_bs
  // Its graph replays the same unfused chain of library kernels as vLLM's (engines/graph-kernel.ts, sized from SGLang).
  graphKernelSeconds: SERVING_GRAPH_KERNEL_SECONDS,
  graphKernelCycles: SERVING_GRAPH_KERNEL_CYCLES,
  // The overlap scheduler runs the CPU's scheduling of step n+1 during step n (SGLang v0.4 blog, "zero-overhead batch scheduler").
  stepHostSeconds: 0,
  // The overlapped loop's own per-step part (event_loop_overlap, managers/scheduler.py, sglang==0.5.6): the same
  // timing of the wheel's scheduler (below) at one running request, 98.8 µs, less that request's 15.5 µs: 83 µs, a
  // floor (the forward's host work, ForwardBatch.init_new and the graph's replay_prepare, not timed).
  asyncStepHostSeconds: 83e-6, // https://pypi.org/project/sglang/0.5.6/ scheduler timed on a CPU (fixture below)
  // That overlapped loop (event_loop_overlap, managers/scheduler.py, sglang==0.5.6) launches step n+1, then processes
  // step n's tokens, then schedules n+2: its host work grows with the running requests and bounds the step where it
  // outlasts the GPU's. The wheel's own get_next_batch_to_run, get_model_worker_batch + batch.copy() and
  // process_batch_result_decode (with stream_output's BatchTokenIDOutput and its pickling) timed on a CPU with N fake
  // running requests, no model (scripts/measure/sglang_scheduler_host.py, test/fixtures/measure/sglang-scheduler-host
  // .json): 0.10 ms a step at 1 request, 4.0 ms at 256, 15.5 µs for each request added (8-16 µs over three runs on a
  // shared VM). Not timed: the forward's own host work (ForwardBatch.init_new, the graph's replay_prepare). The
  // DetokenizerManager (17.5 µs a request a step) runs in its own process beside the scheduler and is not added.
  asyncSeqHostSeconds: 15.5e-6, // https://pypi.org/project/sglang/0.5.6/ scheduler timed on a CPU (fixture above)
  // The same thread issues the step's forward: event_loop_overlap's run_batch calls model_worker
  // .forward_batch_generation inside its forward_stream context (managers/scheduler.py of the sglang==0.5.6 wheel; the
  // 0.4 builds' tp_worker_overlap_thread.py forward thread is gone from it), between the scheduling and the previous
  // step's process_batch_result, so a forward run outside the graphs adds its launches to that work.
  forwardOnStepThread: true,
  // Before v0.4 that work ran in series with the GPU: 1.1 ms a step, worked out from calibration row
  // sglang-1008-l3-8b-bs1 (in sample; listed in calibration/assumed.json).
  serialStepHostSeconds: 0.87e-3, // SGLang serial scheduler
  // LFM2's short-conv hybrids keep their recurrent state in place (mamba no_buffer): with the radix cache on and no
  // speculation SGLang turns the overlap scheduler off and runs event_loop_normal, each step's host work in series
  // (sglang==0.5.23 wheel, arg_groups/overrides.py `_mamba_radix_cache_resolution`: Lfm2ForCausalLM and
  // Lfm2MoeForCausalLM are in _MAMBA_RADIX_CACHE_ARCHS, not in _MAMBA_EXTRA_BUFFER_ARCHS, so "auto" resolves to
  // no_buffer with disable_overlap_schedule; mamba_hook.py validate_mamba_no_buffer asserts it). Qwen3-Next has
  // extra_buffer there; 0.5.6 turned its overlap off under the radix cache (server_args.py, Qwen3NextForCausalLM).
  serialLoopModelTypes: ['lfm2', 'lfm2_moe'],
  // Qwen3-Next (hybrid GDN) only in a span of releases: 0.5.5.post2 added "Disabling overlap schedule since
  // MambaRadixCache is not compatible with overlap schedule currently" for Qwen3NextForCausalLM with the radix cache on
  // (server_args.py `_handle_model_specific_adjustments`; absent in 0.5.5.post1, where 0.5.3 had turned the radix cache
  // off for hybrid GDN models instead); 0.5.6-0.5.13.post1 keep it (0.5.7 on: mamba_scheduler_strategy "auto" ->
  // "no_buffer", which disables the overlap); 0.5.14 resolves "auto" to extra_buffer for Qwen3NextForCausalLM under the
  // default linear_attn_backend "triton" while the overlap is wanted (server_args.py `_handle_mamba_radix_cache`,
  // `_support_mamba_cache_extra_buffer`), the overlap kept.
  serialLoopModelTypeReleases: [
    {
      modelType: 'qwen3_next',
      from: '0.5.5.post2', // https://pypi.org/project/sglang/0.5.5.post2/ server_args.py, Qwen3NextForCausalLM branch
      before: '0.5.14', // https://pypi.org/project/sglang/0.5.14/ server_args.py _handle_mamba_radix_cache: extra_buffer
    },
  ],
  // That loop (event_loop_normal, managers/scheduler.py, sglang==0.5.6) runs the overlapped loop's per-request code,
  // get_next_batch_to_run (prepare_for_decode) before the forward and process_batch_result_decode after the sampled
  // tokens' copy, with the GPU idle between: each running request's share in series a step. The pre-v0.4 scheduler
  // of the `scheduler: serial` rows ran other code, not timed: no per-request figure for it (serialSeqHostSeconds).
  serialLoopSeqHostSeconds: 15.5e-6, // https://pypi.org/project/sglang/0.5.6/ scheduler timed on a CPU (asyncSeqHostSeconds' fixture)
  // DeepSeek-V3/R1's MLA layers, shared experts and block-FP8 activations as their own kernels, counted for the path
  // SGLang takes on SM100, and its MLA layer on gfx942 (engines/sglang/decode-kernels.ts); not counted elsewhere.
  decodeFeatureKernels: sglangDecodeFeatureKernels,
  moeDispatch: 'grouped',
  // Its Triton MoE runs the same chain as vLLM's: router GEMM, top-k, moe_align_block_size, two fused_moe GEMMs
  // with the activation between, moe_sum_reduce (python/sglang/srt/layers/moe/fused_moe_triton/fused_moe.py,
  // https://github.com/sgl-project/sglang, read 2026-12-02): 4 kernels over a dense MLP's 3.
  moeRoutingKernels: 4,
  // The same Triton fused_moe call and default tiles as vLLM's (engines/moe-call.ts, sourced for both engines). NVFP4
  // experts: FlashInfer's TensorRT-LLM-gen MoE on SM100, its CUTLASS MoE on SM110/SM120. With --moe-runner-backend
  // auto, ModelOptNvFp4FusedMoEMethod.create_moe_runner takes FLASHINFER_TRTLLM from compute capability 10.0
  // (layers/quantization/modelopt_quant.py lines 3117-3123, sglang==0.5.23), the SM100 DeepSeek-V3 and Qwen3-MoE
  // families set flashinfer_trtllm for modelopt_fp4 in the config overrides as well (arg_groups/overrides.py
  // `_deepseek_moe_quant_resolution` lines 810-823; sglang==0.5.8.post1 server_args.py lines 1226-1231), and
  // `_moe_runner_backend_quant_constraints` sets flashinfer_cutlass on SM110/SM120 (overrides.py lines 1513-1518).
  // DeepSeek-V3/R1's block-FP8 experts on SM100: FlashInfer's TensorRT-LLM-gen FP8 block-scale MoE (flashinfer_trtllm
  // runner, server_args.py `_handle_model_specific_adjustments`, sglang==0.5.6.post1; engines/moe-call.ts).
  moeCallSeconds: {
    ...FUSED_MOE_CALL_SECONDS,
    sm100Nvfp4: FLASHINFER_TRTLLM_NVFP4_MOE,
    sm100BlockFp8: FLASHINFER_TRTLLM_FP8_BLOCK_MOE,
  },
  // Its launch grid over moe_align_block_size's padded rows (engines/sglang/fused-moe-grid.ts), and its default tiles
  // where the release ships no tuned file for the shape (engines/sglang/fused-moe-configs.ts).
  fusedMoeTile16: {
    ...FUSED_MOE_TILE_16,
    grid: SGLANG_FUSED_MOE_GRID,
    defaults: SGLANG_FUSED_MOE_DEFAULTS,
  },
  // Qwen3's q_norm and k_norm (models/qwen3.py, qwen3_moe.py `_apply_qk_norm`, sglang==0.5.6 wheel): under graph
  // capture q's norm runs on the step's stream and k's on a second one beside it, so one kernel on the critical path
  // at one sequence; above one, q.reshape(-1, head_dim) of the split qkv view copies it first (its rows are strided),
  // two (k's copy and norm run beside them); an eager prefill launches all four (both copies, both norms) in series.
  qkNormKernels: { one: 1, more: 2, eager: 4 },
  // Its eager layer's q/k norms are counted there (`eager`), not by vLLM's custom-op count (eagerLayerExtraOps).
  // Every decode attention backend it picks for MHA/GQA models calls q.contiguous() before its kernel
  // (layers/attention/flashinfer_backend.py, flashattention_backend.py, trtllm_mha_backend.py `forward_decode`,
  // sglang==0.5.6 wheel): q is the rotary's in-place output on a split of the fused qkv (models/llama.py), strided
  // above one sequence, so one copy kernel; a per-head q norm has already copied it (above). The extend path copies
  // it the same way (flashinfer_backend.py `forward_extend`).
  stridedQCopyKernels: 1,
  // gpt-oss on Blackwell turns on FlashInfer's all-reduce + residual + RMSNorm fusion inside a node without DP
  // attention (server_args.py `_handle_model_specific_adjustments`, `GptOssForCausalLM`: is_blackwell_supported, major
  // 10 or 12), used at up to 2048 tokens on every layer but the last (layers/communicator.py, sglang==0.5.6). The
  // DeepSeek-V3 architecture (deepseek_v3, kimi_k2 configs) gets it on SM100 in one node without DP attention
  // (server_args.py `_handle_model_specific_adjustments`, is_sm100_supported, sglang==0.5.6.post1). sglang==0.5.8.post1
  // lists Glm4MoeForCausalLM and Qwen3MoeForCausalLM too (glm4_moe, qwen3_moe), on SM90 or SM100 for all of them; only
  // SM100 is taken here, the Hopper rows' builds not read.
  allReduceNormFusion: {
    modelTypes: ['gpt_oss', 'deepseek_v3', 'kimi_k2', 'glm4_moe', 'qwen3_moe'],
    minCc: 10, // is_sm100_supported, https://pypi.org/project/sglang/0.5.8.post1/ server_args.py
    maxTokens: 2048, // FUSE_ALLREDUCE_MAX_BATCH_SIZE, https://pypi.org/project/sglang/0.5.6.post1/ layers/communicator.py
  },
  // Its decode step replays the next captured CUDA-graph batch size, padded rows routed too (engines/sglang/graph-batch.ts).
  graphBatch: sglangGraphBatch,
  // Above cuda_graph_max_bs (its default by GPU memory and TP, sglangDefaults below) a decode step runs without its
  // graph: CudaGraphRunner.can_run needs the batch <= max(capture_bs) (model_executor/cuda_graph_runner.py, sglang==0.5.6).
  graphMaxBatch: (capacityBytes, tp, pp) => sglangDefaults(capacityBytes, tp, pp).graphMaxBs,
  // Prefill (extend) batches run eagerly: 0.5.6 captures only decode steps (cuda_graph_runner.py), its piecewise
  // graphs for extend are off by default (server_args.py enable_piecewise_cuda_graph False; sglang==0.5.6 wheel).
  eagerPrefill: true,
  // Its eager forward's host price a call: sgl-project/sglang#12160 logs an eager DeepSeek-V3 extend forward of one new
  // token at 82.6 ms ("forward cost"; 23.1 ms replayed as a CUDA graph, so the eager one is the host's), over the calls
  // engines/sglang/extend-kernels.ts counts for that forward over TP 8 on Hopper (1,876; 1,871 on SM100): 44 µs, about
  // twice an HF eager decode op's (time/decode-host.ts). The log's one cached token takes MLA's prefix path, a few calls
  // more a layer than counted, so the price is an upper bound.
  eagerPrefillCallSeconds: SGLANG_EAGER_CALL_SECONDS,
  // A decode step outside its graphs (--disable-cuda-graph, or above cuda_graph_max_bs) issues each layer's ops from
  // the same module tree as vLLM's: SGLang's models are adapted from vLLM's (python/sglang/srt/models/llama.py heads
  // "Adapted from .../vllm/model_executor/models/llama.py"; qwen2.py from it), with the same QKVParallelLinear,
  // RMSNorm, get_rope and SiluAndMul module calls and the attention behind one more dispatch (RadixAttention to the
  // backend's forward_decode). Its Python around the ops is taken as the vLLM layer's, timed with its kernels stubbed
  // (engines/vllm/eager-ops.ts; assumed for SGLang, calibration/assumed.json): deepspeedai/DeepSpeed#8352 ran both
  // engines eagerly on one H200 host, GPT-2 decoding at 207.7 tok/s under vLLM and 205.1 under SGLang.
  eagerLayerHostSeconds: VLLM_EAGER_LAYER_PYTHON_SECONDS,
  // DeepSeek-V2's eager decode layer in the 0.2/0.3.0 line (read in the wheels of https://pypi.org/project/sglang/0.3.0/
  // and 0.2.13, models/deepseek_v2.py `DeepseekV2AttentionMLA.forward`, `DeepseekV2MoE.forward`; their rotary and
  // FusedMoE are vLLM's, https://pypi.org/project/vllm/0.5.5/). The absorbed MLA attention at decode, kernels: q_proj,
  // the W_UK bmm, its copy into q_input, kv_a_proj_with_mqa, `.contiguous()` of the latent, kv_a_layernorm, the latent's
  // copy into k_input; DeepseekScalingRotaryEmbedding.forward (rotary_embedding.py, PyTorch-native): the cos/sin index,
  // two repeat_interleave (one kernel each at least), then q and k each `x * cos + _rotate_gptj(x) * sin` (neg, stack,
  // two muls, an add: 5); the two rope copies into q_input/k_input; the KV store and the Triton decode's two stages
  // (layers/decode_attention.py); the W_UV bmm, the transpose-flatten copy and o_proj: 28, where the default layer's
  // attention is 6 ops (qkv, rotary, the output's empty, store, attention, o): 22 more. The routed block beyond the
  // shared expert (the default layer's MLP) and moeRoutingKernels' 4: the gate GEMM; vLLM 0.5.5's `grouped_topk`
  // (softmax, group max, group topk, zeros_like, scatter_, the mask's expand-reshape copy, bool, invert, masked_fill,
  // topk: 10); fused_experts' sorted-ids fill and moe_align_block_size, the two fused_moe kernels, silu_and_mul and the
  // top-k sum (6); the routed scaling multiply and the shared output's add: 19, 15 more. 0.2.13 writes the W_UK bmm
  // into q_input (out=) and copies W_UV's transpose instead, the same count. From 0.3.1 the MLA path captures CUDA
  // graphs (sgl-project/sglang#1401) and later releases fuse these ops: not read, so not applied.
  eagerMlaMoeLayerOps: { before: '0.3.1', mlaAttention: 22, moe: 15 },
  // DeepSeek-V3/R1's extend forward, its calls counted layer by layer for block-FP8 weights on SM100 and Hopper, over TP
  // or DP attention, in the sglang==0.5.6.post1 wheel, and on gfx942 in the 0.5.7 wheel (engines/sglang/
  // extend-kernels.ts); other models take the graph layer's count.
  eagerPrefillLayerKernels: sglangEagerPrefillKernels,
  // A prefill runs as a batch of its own while the decodes wait: enable_mixed_chunk defaults to False
  // (server_args.py, sglang==0.5.6 wheel; scheduler.py get_next_batch_to_run returns the new prefill batch alone).
  prefillInDecodeStep: false,
  // DP attention: each step the ranks all-gather their token counts and forward modes, and a rank with an extend batch
  // clears can_cuda_graph for all (min over ranks: prepare_mlp_sync_batch_raw, managers/scheduler_dp_attn_mixin.py;
  // CudaGraphRunner.can_run needs can_run_dp_cuda_graph, model_executor/cuda_graph_runner.py; sglang==0.5.7 wheel).
  dpPrefillStepEager: true,
  // DP attention divides the chunked-prefill size by the DP size, so each rank prefills at most chunk / ranks tokens
  // a forward and a longer prompt runs several (server_args.py `_handle_data_parallelism`: "chunked_prefill_size //
  // self.dp_size", https://pypi.org/project/sglang/0.5.6.post1/; the same in 0.5.7 and later releases read).
  dpAttentionChunkSplit: true,
  // DP attention's gathers. Every decoder layer gathers: the dense MLPs run tensor-parallel over every rank's tokens
  // unless --moe-dense-tp-size 1 (layers/communicator.py `_compute_mlp_mode`: ScatterMode.FULL, sglang==0.5.7 wheel;
  // 0.4.4.post2's models/deepseek_v2.py DeepseekV2DecoderLayer.forward gathers before `self.mlp` in every layer). A step
  // holding an extend pads to the ranks' summed tokens and all-reduces (DpPaddingMode.get_dp_padding_mode:
  // `if is_extend_in_batch: return DpPaddingMode.SUM_LEN`, layers/dp_attention.py, 0.5.3, 0.5.7 and 0.5.14 wheels; the
  // cheaper mode where one rank prefills in 0.4.9.post4-0.5.2), the MLP's output all-reduced before a local slice
  // (communicator.py `_scatter_hidden_states`: reduce-scatter only under MAX_LEN). Before DPPaddingMode (first in the
  // 0.4.9.post4 wheel; 0.4.9.post3 and 0.4.4.post2 have none) `_dp_gather` always zero-fills the summed buffer and
  // all-reduces it, and the MoE's forward_normal all-reduces its output (0.4.4.post2 layers/dp_attention.py,
  // models/deepseek_v2.py); release parts after the third are not read, so 0.4.9.post4-post6 count as before 0.4.10.
  dpGather: { everyLayer: true, extendAllReduce: true, decodeAllReduceBefore: '0.4.10' },
  // Its FlashInfer backend reads the prompts' prefix lengths back before each prefill's launches; the backend it
  // picks by model and GPU (engines/sglang/attention-backend.ts).
  prefillHostSync: sglangPrefillHostSync,
  // Block-scaled FP8 linears (weight_block_size) at decode on Hopper: DeepGEMM's fp8_gemm_nt (engines/sglang/block-fp8.ts).
  blockFp8Linear: SGLANG_BLOCK_FP8_LINEAR,
  expertParallel: true,
  // --speculative-algorithm EAGLE3, EAGLE (DeepSeek's MTP layers: NextN) and NGRAM
  // (https://docs.sglang.io/advanced_features/speculative_decoding.html).
  speculative: ['eagle3', 'mtp', 'ngram'],
  // --enable-lora --max-loras-per-batch --max-lora-rank (https://docs.sglang.io/advanced_features/lora.html).
  multiLora: true,
  source:
    'https://github.com/sgl-project/sglang/blob/469c63e54e7d94591617ef9590c6aa26d54dc1bb/python/sglang/srt/server_args.py',
};

/**
 * SGLang's defaults by GPU memory (server_args.py _handle_gpu_memory_settings at 469c63e5): the chunked-prefill
 * size, the largest CUDA-graph batch, and mem_fraction_static = (memory - reserved) / memory, reserved (MiB) =
 * 512 + 1.5 x max(chunk, 2048) + 2 x cuda_graph_max_bs + 1024 x tp x pp / 8, at least 10 GiB above 60 GiB.
 */
export function sglangDefaults(
  capacityBytes: number,
  tp: number,
  pp: number,
): { chunk: number; graphMaxBs: number; memFractionStatic: number } {
  const mib = capacityBytes / 2 ** 20;
  const [chunk, graphMaxBs] =
    mib < 20 * 1024
      ? [2048, 8]
      : mib < 35 * 1024
        ? [2048, tp < 4 ? 24 : 80]
        : mib < 60 * 1024
          ? [4096, tp < 4 ? 32 : 160]
          : mib < 160 * 1024
            ? [8192, tp < 4 ? 256 : 512]
            : [16384, 512];
  let reserved = 512 + Math.max(chunk, 2048) * 1.5 + graphMaxBs * 2 + (tp * pp * 1024) / 8;
  if (mib > 60 * 1024) reserved = Math.max(reserved, 10 * 1024);
  return {
    chunk,
    graphMaxBs,
    memFractionStatic: Math.round(((mib - reserved) / mib) * 1000) / 1000,
  };
}
