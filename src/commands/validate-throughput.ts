/** Body of `validate --throughput`: time every scorable published speed and summarize the errors. */
import { estimateTime, staticBatchSeconds } from '../core/time/index.js';
import { poolRunning } from '../core/time/pool-queue.js';
import { poolSequencesOf } from '../core/time/admission-reserve.js';
import { servingOf } from '../core/estimate.js';
import { estimateMemory, pagedStatesSpill } from '../core/memory/index.js';
import { OPTIMIZER_PROFILES } from '../core/engines/optimizers.js';
import { FRAMEWORKS } from '../core/memory/frameworks.js';
import { servingGpuContext } from '../core/time/gpu-memory-context.js';
import { estimateObjectiveTime } from '../core/time/objective.js';
import { paramCounts } from '../core/model/params.js';
import { isPreferenceOrRl, outputTokensOf, type EstimateOptions } from '../schema/estimate.js';
import {
  sourceName,
  throughputKind,
  throughputSummaries,
  worstRows,
  type ThroughputRow,
} from '../core/time/accuracy.js';
import { findGpu, loadDataset } from '../io/load-catalog.js';
import { spreadBatchSeconds } from '../core/time/length-spread.js';
import { steppedRunOf } from '../core/time/stepped-burst.js';
import { engineOf } from '../core/engines/engine.js';
import { caseArch, loadThroughputCases } from '../io/load-calibration.js';
import type { ThroughputCase } from '../schema/calibration.js';
import { optionsFromFlags, type RawFlags } from '../schema/flags.js';
import { timeOptionsFromFlags, type TimeOptions } from '../schema/time.js';
import type { Arch } from '../core/model/arch.js';
import type { Gpu } from '../schema/gpu.js';
import { renderThroughputText } from '../ui/validate-text.js';

/** Case flags in the CLI's shape (lists become comma lists). */
function cliFlags(flags: Record<string, unknown>): RawFlags {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(flags)) out[k] = Array.isArray(v) ? v.join(',') : v;
  return out;
}

/**
 * Output tokens per second of a closed-loop run of `prompts` requests of equal lengths with at most --batch in flight.
 * vllm bench serve sends every request through one asyncio.Semaphore(max_concurrency) and divides the outputs by the
 * wall time from the first send to the last reply (vllm-project/vllm vllm/benchmarks/serve.py at
 * 009e6d4a1cd6ba3fb2a9fc00f4ec06f5297232a1, benchmark / limited_request_func): requests of one length start and end
 * together, so the run is whole rounds of --batch and a last round of the rest, each a request's time to first token
 * and its time per output token for each further token at that round's size.
 */
function closedLoopOutputRate(
  arch: Arch,
  options: EstimateOptions,
  gpu: Gpu,
  time: TimeOptions,
  out: number,
  prompts: number,
  pool?: number,
): number {
  const round = (batch: number): number => {
    const t = estimateTime(arch, { ...options, batch }, gpu, time, pool);
    return (t.ttftSeconds ?? 0) + (out - 1) * (t.tpotSeconds ?? 0);
  };
  const full = Math.floor(prompts / options.batch);
  const rest = prompts - full * options.batch;
  return (prompts * out) / (full * round(options.batch) + (rest > 0 ? round(rest) : 0));
}

/**
 * Mean time per output token of a closed-loop run of `prompts` requests of equal lengths with at most --batch in
 * flight, as vllm bench serve reports it: one asyncio.Semaphore(max_concurrency) admits the requests, and each
 * request's TPOT is (latency - ttft) / (output_len - 1), averaged over the requests (vllm/benchmarks/serve.py at
 * v0.27.1: calculate_metrics, benchmark). Requests of one length start and end together, so the run turns over in
 * rounds of --batch (a last round of the rest), each a burst from a cold start run step by step on the KV pool
 * (time/stepped-burst.ts): the round's prompts are prefilled in the engine's chunks at its start, in the requests'
 * TTFT, not spread over every request's decode as the steady state spreads its neighbours' prefills
 * (time/serving-request.ts servingTime). A round's requests end with its last token, so a request's TPOT is the round's
 * duration less its mean TTFT over the further tokens; a round of one request decodes alone, at the steady state's TPOT.
 * Undefined where a round of more is not run step by step (no pool's tokens, an engine without a batched-token
 * budget): the steady state's TPOT stands.
 */
export function closedLoopTpotSeconds(
  arch: Arch,
  options: EstimateOptions,
  gpu: Gpu,
  time: TimeOptions,
  prompts: number,
  facts: { pool: number | undefined; poolTokens?: number },
  maxNumSeqs?: number,
): number | undefined {
  const out = outputTokensOf(options);
  const poolTokens = facts.poolTokens;
  if (poolTokens === undefined || out < 2) return undefined;
  // A round of one request decodes alone: the steady state's TPOT at one in flight.
  const round = (batch: number): number | undefined => {
    const t = estimateTime(arch, { ...options, batch }, gpu, time, facts.pool, false, {
      poolTokens,
      ...(maxNumSeqs === undefined ? {} : { maxNumSeqs }),
    });
    const b = t.burst;
    if (b?.durationSeconds !== undefined)
      return (b.durationSeconds - b.ttftMeanSeconds) / (out - 1);
    return batch === 1 ? t.tpotSeconds : undefined;
  };
  const full = Math.floor(prompts / options.batch);
  const rest = prompts - full * options.batch;
  const whole = full > 0 ? round(options.batch) : 0;
  const last = rest > 0 ? round(rest) : 0;
  if (whole === undefined || last === undefined) return undefined;
  return (full * options.batch * whole + rest * last) / prompts;
}

/**
 * What the memory model tells the time model about a row, as `estimate` reads it on that GPU: a serving row's KV
 * pool (the sequences it holds at the mean context, estimate.ts servingOf), and whether a training row's paged
 * optimizer states do not all fit on the card (memory/paged.ts).
 */
function memoryFactsOf(
  arch: Arch,
  options: EstimateOptions,
  gpu: Gpu,
  poolFraction?: number,
  time?: TimeOptions,
): { pool: number | undefined; poolTokens?: number; pagedSpilled: boolean } {
  const serving = options.method === 'inference';
  if (!serving && !OPTIMIZER_PROFILES[options.optimizer].paged)
    return { pool: undefined, pagedSpilled: false };
  const device = servingGpuContext(gpu, options, time);
  const m = estimateMemory(arch, options, device);
  if (!serving) return { pool: undefined, pagedSpilled: pagedStatesSpill(m) };
  const s = servingOf(m, options);
  const sizing = FRAMEWORKS[options.framework].server?.sizing;
  if (s === undefined || poolFraction === undefined || sizing === undefined || s.kvPoolBytes <= 0)
    return {
      pool: s?.sequencesAtMeanContext,
      ...(s === undefined ? {} : { poolTokens: s.kvTokens }),
      pagedSpilled: false,
    };
  // A run that set its engine's share of memory (the case says so): the pool moves by the shares' difference.
  const byDefault = sizing(device.gpuCapacityBytes, options.tp, options.pp, device.gpuDeviceName);
  const bytes = s.kvPoolBytes + (poolFraction - byDefault.poolFraction) * device.gpuCapacityBytes;
  const tokens = (Math.max(0, bytes) / s.kvPoolBytes) * s.kvTokens;
  return { pool: poolSequencesOf(tokens, options), poolTokens: tokens, pagedSpilled: false };
}

/**
 * The sequences a serving row's engine ran at once, and whether a training row's paged states spill. A run whose
 * engine capped its running sequences below --batch (the case's max_num_seqs) runs that many and queues the rest, as
 * for the pool; its start-up profile samples one row per running slot, at that cap, not at --batch (vLLM's
 * profile_run: `_dummy_run` num_reqs = min(num_tokens, max_num_reqs), vllm/v1/worker/gpu_model_runner.py), also
 * where the cap is above --batch (EstimateOptions.maxNumSeqs). A run
 * whose engine printed its KV pool's tokens (kv_pool_tokens) runs what they hold at the mean context.
 */
export function casePool(
  c: Pick<ThroughputCase, 'max_num_seqs' | 'pool_fraction' | 'kv_pool_tokens'>,
  arch: Arch,
  options: EstimateOptions,
  gpu: Gpu,
  time?: TimeOptions,
): { pool: number | undefined; poolTokens?: number; pagedSpilled: boolean } {
  const capped =
    c.max_num_seqs === undefined
      ? options
      : c.max_num_seqs > options.batch
        ? { ...options, maxNumSeqs: c.max_num_seqs }
        : { ...options, batch: c.max_num_seqs };
  const facts = memoryFactsOf(arch, capped, gpu, c.pool_fraction, time);
  const held =
    c.kv_pool_tokens === undefined ? facts.pool : poolSequencesOf(c.kv_pool_tokens, options);
  const pool = c.max_num_seqs === undefined ? held : Math.min(held ?? Infinity, c.max_num_seqs);
  const poolTokens = c.kv_pool_tokens ?? facts.poolTokens;
  return {
    pool,
    ...(poolTokens === undefined ? {} : { poolTokens }),
    pagedSpilled: facts.pagedSpilled,
  };
}

/**
 * A burst over the dataset's lengths scaled to the row's means, where the client drew them from one (the case's
 * `dataset`), run step by step as a burst at the means is (time/stepped-burst.ts: the same engine, its budget, pool
 * and running cap), averaged over fixed shuffles (time/length-spread.ts spreadBurstSeconds); otherwise every request
 * at the means: the estimate's own `time.burst.durationSeconds` (estimateTime with the pool's tokens). Undefined
 * where that burst is not run step by step (one request, vLLM's V0 engine, a pool not known, a decode that is not
 * one replica's plain step): the static batch times those.
 */
export function steppedBurstSeconds(
  c: Pick<ThroughputCase, 'dataset' | 'max_num_seqs'>,
  arch: Arch,
  options: EstimateOptions,
  gpu: Gpu,
  time: TimeOptions,
  facts: { pool: number | undefined; poolTokens?: number },
): number | undefined {
  if (facts.poolTokens === undefined) return undefined;
  const burstPool = {
    poolTokens: facts.poolTokens,
    ...(c.max_num_seqs === undefined ? {} : { maxNumSeqs: c.max_num_seqs }),
  };
  if (c.dataset === undefined)
    return estimateTime(arch, options, gpu, time, facts.pool, false, burstPool).burst
      ?.durationSeconds;
  const run = steppedRunOf(options, gpu, time, facts.pool, burstPool);
  if (run === undefined) return undefined;
  const dataset = loadDataset(c.dataset.name);
  const sampler = dataset.samplers[c.dataset.sampler];
  if (sampler === undefined)
    throw new Error(`${c.dataset.name}: no sampler '${c.dataset.sampler}' in catalogs/datasets`);
  const levels = dataset.levels;
  return spreadBatchSeconds(arch, options, gpu, time, { levels, ...sampler }, run).seconds;
}

/** A static batch the pool cannot hold at once runs as --batch / c batches of the c it holds (time/pool-queue.ts). */
function staticSeconds(
  arch: Arch,
  options: EstimateOptions,
  gpu: Gpu,
  time: TimeOptions,
  pool: number | undefined,
): number {
  const c = poolRunning(options, pool);
  if (c === undefined) return staticBatchSeconds(arch, options, gpu, time);
  return (options.batch / c) * staticBatchSeconds(arch, { ...options, batch: c }, gpu, time);
}

/** What a throughput case is timed with: its options, time options, GPU, architecture and KV pool (casePool). */
export function caseInputs(c: ThroughputCase): {
  options: EstimateOptions;
  time: TimeOptions;
  gpu: Gpu;
  arch: Arch;
  facts: ReturnType<typeof casePool>;
} {
  const caseFlags = cliFlags(c.flags);
  // A rig the source describes as having no NVLink is timed over PCIe even when the catalog card has a
  // bridge connector (the case's `interconnect` field, read for every case alike).
  const flags: RawFlags =
    caseFlags.interconnect === undefined && /no NVLink/i.test(c.interconnect ?? '')
      ? { ...caseFlags, interconnect: 'pcie' }
      : caseFlags;
  // The run's LoRA dropout (the case says so): --lora-dropout.
  const options = optionsFromFlags(
    c.lora_dropout === undefined ? flags : { ...flags, 'lora-dropout': c.lora_dropout },
  );
  // A GRPO row whose TRL generated for every micro-batch (before steps_per_generation; the case says so).
  if (c.trl_generation === 'per-micro-batch') options.stepsPerGeneration = 1;
  const time = timeOptionsFromFlags(flags, options);
  // A GRPO row whose trainer build ran the old log-probs forward under any vLLM rollout (the case says so).
  if (c.old_logprobs === 'vllm-forced') time.vllmOldLogprobs = true;
  // A row measured on an engine version whose scheduler ran in series with the GPU (the case says so).
  if (c.scheduler === 'serial') time.serialScheduler = true;
  // A row measured on vLLM's V0 engine (the case says so).
  if (c.scheduler === 'v0') time.v0Scheduler = true;
  // The engine release the row measured (the case says so): a V0 build's host work follows it.
  if (c.engine_version !== undefined) time.engineVersion = c.engine_version;
  // The attention backend the run's launch named (the case says so).
  if (c.attention_backend !== undefined) time.attentionBackend = c.attention_backend;
  // A run that added a tuned block-FP8 fused_moe file its release did not ship (the case says so).
  if (c.fused_moe_config === 'tuned') time.moeTunedConfig = true;
  // A run whose build had no tuned fused_moe file for its shape (a tuning PR's Before column; the case says so).
  if (c.fused_moe_config === 'default') time.moeDefaultTiles = true;
  // A V0 row whose server ran with chunked prefill on (the case says so).
  if (c.scheduler === 'v0' && c.chunked_prefill === true) time.v0ChunkedPrefill = true;
  // A burst whose client sent its prompts at a finite rate (the case says so).
  if (c.request_rate !== undefined) time.requestRate = c.request_rate;
  // A row timed around llama_decode alone (llama-bench): no server loop or sampling (the case says so).
  if (c.harness === 'llama-bench' || c.harness === 'llama-bench-pp') time.decodeOnly = true;
  // llama-bench's prompt test at microbatch B: only the batch's last token is output, so a step reads no lm_head.
  if (c.harness === 'llama-bench-pp') time.noOutputHead = true;
  // A llama.cpp build whose F16 mat-vec was dmmv (before ggml-org/llama.cpp#10318; the case says so).
  if (c.f16_matvec !== undefined) time.f16MatVec = c.f16_matvec;
  // A rig whose PCIe lanes the source describes (a consumer board's x8/x8 split; the case says so).
  if (c.pcie !== undefined) time.pcieLink = c.pcie;
  // A llama.cpp build whose MUL_MAT_ID synchronized the stream once per expert slot (the case says so).
  if (c.mul_mat_id === 'per-slot-sync') time.mulMatIdSync = true;
  // A llama.cpp build that launched every op of its graph (before ggml-cuda's op fusion; the case says so).
  if (c.ggml_graph === 'unfused') time.unfusedGraph = true;
  // A llama.cpp build before ggml-cuda's GEMV fusion (ggml-org/llama.cpp#16715; the case says so).
  if (c.ggml_graph === 'no-gemv-fusion') time.noGemvFusion = true;
  // A llama.cpp build before its MoE routing fusions too (ggml-org/llama.cpp#15631, ggml-org/llama.cpp#16130; the case says so).
  if (c.ggml_graph === 'no-moe-fusion')
    Object.assign(time, { noMoeFusion: true, noGemvFusion: true });
  // An engine build that ran the model's 16-bit experts through Triton's fused_moe (the case says so).
  if (c.moe_runner === 'triton') time.tritonMoe16 = true;
  // A vLLM run on ROCm with AITER's kernels switched on (VLLM_ROCM_USE_AITER=1; the case says so).
  if (c.rocm_aiter === true) time.rocmAiter = true;
  // An engine build whose fused_moe grid padded every expert at any batch (before the small-batch cap; the case says so).
  if (c.moe_align === 'uncapped') time.moeAlignUncapped = true;
  // An engine build that did not fuse the model's all-reduces with their norms (the case says so).
  if (c.allreduce_norm_fusion === false) time.noAllReduceNormFusion = true;
  // A transformers build that ran the routed experts in a per-expert loop (4.x; the case says so).
  if (c.moe_dispatch === 'loop') time.moeLoop = true;
  // A run that replaced a dense MoE block's experts with per-expert linears run one by one (the case says so).
  if (c.moe_dispatch === 'dense-loop') time.denseMoeLoop = true;
  // A run whose PEFT target_parameters adapted some MoE layers' fused experts (the case says how many).
  if (c.expert_param_lora_layers !== undefined)
    time.expertParamLoraLayers = c.expert_param_lora_layers;
  // A transformers generate that ran every routed expert on every token (gpt-oss before transformers 5; the case says so).
  if (c.generate_experts === 'all') time.generateAllExperts = true;
  // A DeepSpeed build that hooked the modules inside the sparse MoE blocks (before v0.18.0; the case says so).
  if (c.deepspeed_moe_leaf === false) time.zeroMoeHooked = true;
  // A step time averaged over a run that saved the model inside its timed span (the case says so).
  if (c.timed_saves !== undefined && c.timed_steps !== undefined)
    time.savesPerStep = c.timed_saves / c.timed_steps;
  // A run whose padded batches handed SDPA the padding mask (the case says so).
  if (c.sdpa_mask === 'padding') time.sdpaPaddingMask = true;
  // A run whose SDPA inputs no fused kernel took, so PyTorch ran the math path (the case says so).
  if (c.sdpa_backend === 'math') time.sdpaMath = true;
  // A run whose source names cuDNN's fused attention as SDPA's backend (the case says so).
  if (c.sdpa_backend === 'cudnn') time.sdpaCudnn = true;
  // A run whose engine build ran the loss uncompiled under --compile (the case says so).
  if (c.loss_compile === 'off') time.eagerLoss = true;
  // A build that padded each expert's routed rows by one more permute around its grouped experts (the case says so).
  if (c.moe_permute === 'align-wrapper') time.alignPermute = true;
  // A run whose build's loss copied the shifted fp32 logits (transformers up to 4.48; the case says so).
  if (c.causal_loss === 'shift-logits') time.shiftedLogitsCopy = true;
  // A run that stepped torch AdamW foreach where the stack's default is fused (the case says so).
  if (c.adam_impl === 'foreach') time.adamForeach = true;
  // A run whose own loop clipped no gradient norm where the engine's trainer clips (the case says so).
  if (c.grad_clip === 'none') time.noGradClip = true;
  // A run that stepped transformers.AdamW's per-tensor Python loop (the Trainer's adamw_hf; the case says so).
  if (c.adam_impl === 'hf-loop') time.adamHfLoop = true;
  // A build that dequantized GPTQ weights in torch ops (auto-gptq's cuda-old QuantLinear; the case says so).
  if (c.gptq_dequant === 'torch') time.gptqTorchDequant = true;
  // A vLLM build that captured decode in piecewise CUDA graphs, attention run eagerly (the case says so).
  if (c.cuda_graphs === 'piecewise') time.piecewiseGraphs = true;
  // A build that launched every decode kernel from the host, no graph replay (the case says so).
  if (c.cuda_graphs === 'off') time.ungraphedDecode = true;
  // A server build that parsed the chat template on every chat request (the case says so).
  if (c.chat_template_parse === 'per-request') time.chatTemplateParse = true;
  // That parse for a template other than the one the engine profile timed (the case says how it compares).
  if (c.chat_template_parse_scale !== undefined)
    time.chatTemplateParseScale = c.chat_template_parse_scale;
  // A build whose largest graph-replayed decode batch differs from the engine's default (the case says so).
  if (c.graph_max_batch !== undefined) time.graphMaxBatch = c.graph_max_batch;
  // A V0 run whose command line set --max-seq-len-to-capture (the case says so).
  if (c.max_seq_len_to_capture !== undefined) time.maxSeqLenToCapture = c.max_seq_len_to_capture;
  // A run whose command line set --max-model-len (the case says so).
  if (c.max_model_len !== undefined) time.maxModelLen = c.max_model_len;
  // A DeepSpeed config with overlap_comm false: ZeRO's collectives on the compute stream (the case says so).
  if (c.deepspeed_overlap_comm === false) time.serialComm = true;
  // An FSDP config that set forward_prefetch true (the case says so).
  if (c.fsdp_forward_prefetch === true) time.fsdpForwardPrefetch = true;
  // An FSDP MixedPrecision that reduced in float32 over 16-bit parameters (the case says so).
  if (c.fsdp_reduce_dtype === 'fp32') time.fsdpReduceFp32 = true;
  // A build that checkpointed its layers with torch's reentrant checkpoint at the call site (the case says so).
  if (c.checkpoint_reentrant === true) time.reentrantCheckpoint = true;
  if (c.fsdp_version !== undefined) time.fsdp2 = c.fsdp_version === 2;
  // A DeepSpeed config whose reduce bucket transformers filled from the hidden size (the case says so).
  if (c.deepspeed_buckets === 'auto') time.zeroAutoBuckets = true;
  // A DeepSpeed config that left offload_param's pin_memory at its default false (the case says so).
  if (c.deepspeed_pin_memory === false) time.pageableOffload = true;
  // A DeepSpeed config that left offload_optimizer's pin_memory at its default false (the case says so).
  if (c.deepspeed_optimizer_pin_memory === false) time.pageableGradOffload = true;
  // A host whose CPUs the source names (physical cores of one node; the case says so).
  if (c.host_cores !== undefined) time.hostCores = c.host_cores;
  // A DeepSpeed run launched with --bind_cores_to_rank (the case says so).
  if (c.deepspeed_bind_cores === true) time.hostCoresBound = true;
  // A bitsandbytes build whose 4-bit dequantization ran the branch-tree kernel (before 0.48.0; the case says so).
  if (c.bnb_dequant === 'tree') time.bnbTreeDequant = true;
  // A build whose offloaded checkpoints came back in series with the backward (the case says so).
  if (c.checkpoint_reload === 'serial') time.offloadReloadSerial = true;
  // A TRL build that synced the weights to its in-process vLLM in one call (before v0.16; the case says so).
  if (c.trl_sync === 'one-call') time.vllmSyncOneCall = true;
  // A k-bit run whose residual stream was fp32 (TRL's k-bit preparation with fp32 norms; the case says so).
  if (c.kbit_stream === 'fp32') time.kbitFp32Stream = true;
  // A rollout whose captured decode steps dequantized bitsandbytes weights to fp32 (the case says so).
  if (c.bnb_decode_dtype === 'fp32') time.bnbDecodeFp32 = true;
  // A rollout whose decode steps dequantized the experts' down projections alone to fp32 (the case says so).
  if (c.bnb_decode_dtype === 'fp32-moe-down') time.bnbDecodeFp32MoeDown = true;
  // A build whose LoRA forward issued another count of ops than the engine's profile says (the case says so).
  if (c.lora_forward_ops !== undefined) time.loraForwardOps = c.lora_forward_ops;
  // A generate whose layers ran partly compiled (the case says so, counted in its build's code).
  const gl = c.generate_layer;
  if (gl !== undefined)
    time.generateLayer = {
      eagerOps: gl.eager_ops,
      compiledCalls: gl.compiled_calls,
      cudagraphCalls: gl.cudagraph_calls,
      ...(gl.sync === undefined
        ? {}
        : {
            sync: {
              layers: gl.sync.layers,
              eagerOps: gl.sync.eager_ops,
              compiledCalls: gl.sync.compiled_calls,
            },
          }),
    };
  // A generate that built its attention masks through torch.vmap every decode step (the case says so).
  if (c.generate_masks !== undefined) time.generateMasks = c.generate_masks;
  // A transformers build whose sliding layers rebuilt their masks every step (the case says so).
  if (c.sliding_mask_in_layer !== undefined) time.slidingMaskInLayer = c.sliding_mask_in_layer;
  // A PEFT build that kept the adapters in the weights' 16-bit dtype (before 0.12.0; the case says so).
  if (c.lora_adapter_dtype === 'weights') time.adaptersInWeightDtype = true;
  // A run with LoRA dropout on (the case says so).
  if (c.lora_dropout !== undefined && c.lora_dropout > 0) time.loraDropout = true;
  // A run without torch.autocast over its 16-bit model (the case says so).
  if (c.autocast === false) time.noAutocast = true;
  // A run under torch.use_deterministic_algorithms(True) (the case says so).
  if (c.deterministic === true) time.deterministicFill = true;
  const gpu = findGpu(String(flags.gpu));
  const arch = caseArch(c);
  const facts = casePool(c, arch, options, gpu, time);
  return { options, time, gpu, arch, facts };
}

export function throughputRows(file = 'throughput.json'): ThroughputRow[] {
  const rows: ThroughputRow[] = [];
  for (const c of loadThroughputCases(file)) {
    if (c.scorable === false) continue;
    const { options, time, gpu, arch, facts } = caseInputs(c);
    const { pool, pagedSpilled } = facts;
    // A preference / RL row is timed as `estimate` times it: the objective's phases on the policy's step.
    const t = isPreferenceOrRl(options)
      ? estimateObjectiveTime(arch, options, gpu, time, paramCounts(arch).total, pagedSpilled)
      : estimateTime(arch, options, gpu, time, pool, pagedSpilled);
    // A latency (a static batch, or an RL step) is scored as the speed it implies.
    const seconds =
      c.metric === 'batch_latency_s' || c.metric === 'step_seconds' || c.metric === 'tpot_s';
    // A serving run at a steady concurrency of --batch: each slot serves requests one after another, a request
    // taking its time to first token and a time per output token for each further token.
    const out = outputTokensOf(options);
    const est =
      c.metric === 'batch_latency_s'
        ? (steppedBurstSeconds(c, arch, options, gpu, time, facts) ??
          staticSeconds(arch, options, gpu, time, pool))
        : c.metric === 'step_seconds'
          ? t.stepSeconds
          : // A serving run's mean time per output token at a steady concurrency of --batch.
            c.metric === 'tpot_s'
            ? ((c.num_prompts === undefined || c.equal_lengths !== true
                ? undefined
                : closedLoopTpotSeconds(
                    arch,
                    options,
                    gpu,
                    time,
                    c.num_prompts,
                    facts,
                    c.max_num_seqs,
                  )) ??
              t.tpotSeconds ??
              t.stepSeconds)
            : c.metric === 'output_tokens_per_s'
              ? c.num_prompts !== undefined
                ? closedLoopOutputRate(arch, options, gpu, time, out, c.num_prompts, pool)
                : (options.batch * out) / ((t.ttftSeconds ?? 0) + (out - 1) * (t.tpotSeconds ?? 0))
              : c.kind === 'decode'
                ? (t.decodeTokensPerSecond ?? 0)
                : t.tokensPerSecondPerGpu;
    const engine = engineOf(options);
    rows.push({
      id: c.id,
      kind: throughputKind(c.kind, options.framework),
      source: sourceName(c.source),
      trust: c.trust ?? '',
      measured: c.measured_value,
      estimated: est,
      // A latency is scored as the speed it implies (measured / estimated seconds - 1), so a positive error
      // means too fast on every row.
      error: seconds ? c.measured_value / est - 1 : (est - c.measured_value) / c.measured_value,
      bound: t.bound,
      engine,
      kernel: t.settings.quantFormat ?? options.weights,
      inSample: c.inSample === true,
    });
  }
  return rows;
}

export function runValidateThroughput(file: string, json: boolean): number {
  const rows = throughputRows(file);
  const summary = throughputSummaries(rows);
  // Worst cases of the headline (out-of-sample) set; in-sample rows are listed apart in the text.
  const worst = worstRows(
    rows.filter((r) => !r.inSample),
    10,
  );
  const outOfSample = summary.filter((s) => !s.group.startsWith('in-sample:'));
  const inSample = summary.filter((s) => s.group.startsWith('in-sample:'));
  process.stdout.write(
    json
      ? `${JSON.stringify({ rows, summary: outOfSample, inSampleSummary: inSample, worst: worst.map((r) => r.id) }, null, 2)}\n`
      : `${renderThroughputText(rows, summary, worst)}\n`,
  );
  return 0;
}
