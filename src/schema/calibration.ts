/** On-disk format of calibration/cases.json (published measured peaks in the contract's vocabulary). */
import { z } from 'zod';

/**
 * What a memory row says of the measured build beyond its flags (validate's buildContextOf reads them): cases.json
 * and max-context.json rows carry the same fields.
 */
const MEMORY_BUILD_CONTEXT = {
  /**
   * The engine build ran its loss uncompiled whatever --compile said ('off': sets EstimateContext.eagerLoss), or
   * compiled the loss alone with the model eager ('alone': sets EstimateContext.lossCompiledAlone).
   */
  loss_compile: z.enum(['off', 'alone']).optional(),
  /** The run's torch AdamW stepped foreach where the engine profile's is fused: sets EstimateContext.adamForeach. */
  adam_impl: z.enum(['foreach']).optional(),
  /** Micro-batches per optimizer step; 1 (gradients freed after each step) sets EstimateContext.gradsFreedEachStep. */
  grad_accum: z.number().int().positive().optional(),
  /** The k-bit run's residual stream: 'fp32' (TRL's k-bit preparation with fp32 norms) sets EstimateContext.kbitFp32Stream. */
  kbit_stream: z.enum(['fp32']).optional(),
  /** The build's causal-LM loss shifted the fp32 logits (a contiguous copy): sets EstimateContext.shiftedLogitsCopy. */
  causal_loss: z.enum(['shift-logits']).optional(),
};

export const calibrationCaseSchema = z.looseObject({
  id: z.string().min(1),
  source: z.string().min(1),
  trust: z.string().optional(),
  model_hf_id: z.string().min(1).nullable(),
  config_file: z.string().min(1),
  flags: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
  metric: z.enum(['allocated', 'reserved', 'device', 'other']),
  measured_bytes: z.number().positive(),
  scorable: z.boolean().optional(),
  notes: z.string().optional(),
  /** The run's LoRA dropout probability (its config's lora_dropout): the estimate's --lora-dropout. */
  lora_dropout: z.number().min(0).lt(1).optional(),
  ...MEMORY_BUILD_CONTEXT,
  /** A model constant was worked out from this row's own number: reported apart, out of the headline figures. */
  inSample: z.literal(true).optional(),
  /** Which constant, and how it came from this row (required with inSample). */
  in_sample_why: z.string().min(1).optional(),
});

export const calibrationFileSchema = z.array(calibrationCaseSchema);
export type CalibrationCase = z.infer<typeof calibrationCaseSchema>;

/** calibration/throughput.json: published measured training tokens/s per GPU and decode tokens/s. */
export const throughputCaseSchema = z.looseObject({
  id: z.string().min(1),
  source: z.string().min(1),
  trust: z.string().optional(),
  /** rl: a preference / RL optimizer step (--objective), scored by its seconds per step. */
  kind: z.enum(['training', 'decode', 'rl']),
  model_hf_id: z.string().min(1).nullable(),
  config_file: z.string().min(1),
  flags: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())])),
  /**
   * decode_tokens_per_s: one decode step's tokens per second; batch_latency_s: seconds for a static batch of
   * --batch prompts of --prompt-tokens to generate --seq minus that many tokens each (vLLM benchmark_latency,
   * SGLang bench_one_batch): one prefill, then the remaining decode steps; step_seconds: seconds per optimizer
   * step of an RL objective (rollout, reference, policy training and weight sync), as a trainer's progress bar logs
   * it; output_tokens_per_s: a serving benchmark's output tokens over its wall time with --batch requests in flight
   * at once (vllm bench serve / sglang.bench_serving with max concurrency), each of --prompt-tokens in and --seq
   * minus that many out; tpot_s: that benchmark's mean time per output token after the first, seconds (scored as
   * the speed it implies, like a latency).
   */
  metric: z.enum([
    'train_tokens_per_s_per_gpu',
    'decode_tokens_per_s',
    'batch_latency_s',
    'step_seconds',
    'output_tokens_per_s',
    'tpot_s',
  ]),
  measured_value: z.number().positive(),
  scorable: z.boolean().optional(),
  notes: z.string().optional(),
  /** A model constant was worked out from this row's own number: reported apart, out of the headline figures. */
  inSample: z.literal(true).optional(),
  /** Which constant, and how it came from this row (required with inSample). */
  in_sample_why: z.string().min(1).optional(),
  /** The rig's links as the source describes them (e.g. "PCIe, no NVLink"). */
  interconnect: z.string().nullable().optional(),
  /**
   * The serving engine's scheduler in the measured version: 'serial' sets TimeOptions.serialScheduler, 'v0'
   * (vLLM's V0 engine) TimeOptions.v0Scheduler.
   */
  scheduler: z.enum(['serial', 'overlapped', 'v0']).optional(),
  /**
   * The engine release the row measured, as its source gives it ("0.5.5", "0.6.3.post1"; absent: not known). On a 'v0'
   * row it sets TimeOptions.v0AsyncOutput where the release processed outputs beside the GPU (engines/vllm/v0-host.ts).
   */
  engine_version: z.string().min(1).optional(),
  /** The attention backend the run's launch named (`--attention-backend triton`): sets TimeOptions.attentionBackend. */
  attention_backend: z
    .enum(['triton', 'flashinfer', 'fa3', 'flashmla', 'cutlass_mla', 'trtllm_mla', 'aiter'])
    .optional(),
  /**
   * The run added a tuned block-FP8 fused_moe config file its release did not ship ('tuned'): sets
   * TimeOptions.moeTunedConfig. The run's build had no tuned fused_moe file for its experts' shape though a later
   * release ships one ('default': a tuning PR's Before column): sets TimeOptions.moeDefaultTiles.
   */
  fused_moe_config: z.enum(['tuned', 'default']).optional(),
  /** A 'v0' row whose server ran with `--enable-chunked-prefill`: sets TimeOptions.v0ChunkedPrefill. */
  chunked_prefill: z.literal(true).optional(),
  /**
   * What the source timed: 'llama-bench' = llama_decode alone (llama-bench, or llama.cpp main's "eval time"), no
   * server loop and no sampling in the timed part; sets TimeOptions.decodeOnly. 'llama-bench-pp' = llama-bench's prompt
   * test read as a decode step at its microbatch (pp at -ub B): the same, and no output head a step (TimeOptions
   * noOutputHead).
   */
  harness: z.enum(['llama-bench', 'llama-bench-pp']).optional(),
  /** llama.cpp's F16 batch-1 kernel in the measured build: 'dmmv' (before ggml-org/llama.cpp#10318) sets TimeOptions.f16MatVec. */
  f16_matvec: z.enum(['dmmv']).optional(),
  /** The rig's PCIe link per GPU where the source describes it apart from the card's ('PCIe 4.0 x8'): TimeOptions.pcieLink. */
  pcie: z
    .string()
    .regex(/^PCIe [3-6]\.0 x(4|8|16)$/)
    .optional(),
  /**
   * llama.cpp's MUL_MAT_ID in the measured build: 'per-slot-sync' (one op per expert slot, each copying the routing
   * ids to the host and synchronizing the stream) sets TimeOptions.mulMatIdSync.
   */
  mul_mat_id: z.enum(['per-slot-sync']).optional(),
  /**
   * llama.cpp's decode graph in the measured build: 'unfused' (every op its own kernel) sets TimeOptions.unfusedGraph;
   * 'no-gemv-fusion' (fused ops, but no mat-vec fusion yet) sets TimeOptions.noGemvFusion; 'no-moe-fusion' (fused
   * norms, but neither the MoE routing fusions nor the mat-vec fusion yet) sets noMoeFusion and noGemvFusion.
   */
  ggml_graph: z.enum(['unfused', 'no-moe-fusion', 'no-gemv-fusion']).optional(),
  /** The engine build ran the model's 16-bit experts through Triton's fused_moe: sets TimeOptions.tritonMoe16. */
  moe_runner: z.literal('triton').optional(),
  /** The vLLM run set VLLM_ROCM_USE_AITER=1 (AITER's kernels on ROCm): sets TimeOptions.rocmAiter. */
  rocm_aiter: z.literal(true).optional(),
  /** The engine build's moe_align_block_size had no small-batch cap: sets TimeOptions.moeAlignUncapped. */
  moe_align: z.literal('uncapped').optional(),
  /** The engine build did not fuse the model's all-reduces with their norms: sets TimeOptions.noAllReduceNormFusion. */
  allreduce_norm_fusion: z.literal(false).optional(),
  /** The run's DeepSpeed config set overlap_comm false: sets TimeOptions.serialComm. */
  deepspeed_overlap_comm: z.literal(false).optional(),
  /** The run's FSDP config set forward_prefetch true: sets TimeOptions.fsdpForwardPrefetch. */
  fsdp_forward_prefetch: z.literal(true).optional(),
  /** The run's FSDP MixedPrecision set reduce_dtype float32 over a 16-bit param_dtype: sets TimeOptions.fsdpReduceFp32. */
  fsdp_reduce_dtype: z.literal('fp32').optional(),
  /** The run's layers were checkpointed by torch's reentrant checkpoint at the call site: sets TimeOptions.reentrantCheckpoint. */
  checkpoint_reentrant: z.literal(true).optional(),
  /** The run's FSDP generation (accelerate's fsdp_version; 2: torch's fully_shard): sets TimeOptions.fsdp2. */
  fsdp_version: z.union([z.literal(1), z.literal(2)]).optional(),
  /** The run's DeepSpeed config left its hidden-size buckets 'auto' for transformers to fill: sets TimeOptions.zeroAutoBuckets. */
  deepspeed_buckets: z.literal('auto').optional(),
  /** The run's DeepSpeed config left offload_param.pin_memory at its default false: sets TimeOptions.pageableOffload. */
  deepspeed_pin_memory: z.literal(false).optional(),
  /** The run's DeepSpeed config left offload_optimizer.pin_memory at its default false: sets TimeOptions.pageableGradOffload. */
  deepspeed_optimizer_pin_memory: z.literal(false).optional(),
  /** The physical CPU cores of one node's host, as the run's source names its CPUs: sets TimeOptions.hostCores. */
  host_cores: z.number().int().positive().optional(),
  /** The run was launched with DeepSpeed's --bind_cores_to_rank: sets TimeOptions.hostCoresBound. */
  deepspeed_bind_cores: z.literal(true).optional(),
  /**
   * The routed experts in the measured library build: 'loop' (transformers 4.x per-expert loop) sets
   * TimeOptions.moeLoop; 'dense-loop' (a dense MoE block's experts as one nn.Linear set each, run one after another:
   * axolotl's llama4_linearized_experts) sets TimeOptions.denseMoeLoop.
   */
  moe_dispatch: z.enum(['loop', 'dense-loop']).optional(),
  /**
   * The run's PEFT target_parameters adapted the fused experts' gate_up_proj and down_proj of this many MoE layers
   * (beside the flags' LoRA targets): sets TimeOptions.expertParamLoraLayers.
   */
  expert_param_lora_layers: z.number().int().positive().optional(),
  /**
   * The rollout's transformers `generate` ran every routed expert on every token (transformers 4.55-4.57 GptOssExperts
   * outside training): sets TimeOptions.generateAllExperts.
   */
  generate_experts: z.enum(['all']).optional(),
  /**
   * The run's DeepSpeed marked no sparse MoE block a ZeRO-3 leaf module (a DeepSpeed before v0.18.0 under a harness
   * that called no set_z3_leaf_modules): false sets TimeOptions.zeroMoeHooked.
   */
  deepspeed_moe_leaf: z.literal(false).optional(),
  /**
   * The optimizer steps a step_seconds figure is the mean of (a run's whole timed span divided by its steps), and
   * the trainer's model saves inside that span: timed_saves / timed_steps sets TimeOptions.savesPerStep.
   */
  timed_steps: z.number().int().positive().optional(),
  timed_saves: z.number().int().nonnegative().optional(),
  /** The run's batches were padded to their longest sample under SDPA attention: 'padding' sets TimeOptions.sdpaPaddingMask. */
  sdpa_mask: z.enum(['padding']).optional(),
  /**
   * The SDPA backend the run's inputs left PyTorch: 'math' (no fused kernel took them) sets TimeOptions.sdpaMath,
   * 'cudnn' (the source names cuDNN's fused attention) TimeOptions.sdpaCudnn.
   */
  sdpa_backend: z.enum(['math', 'cudnn']).optional(),
  /**
   * The run's AdamW implementation where it differs from the engine profile's: 'foreach' (torch AdamW's default) sets
   * TimeOptions.adamForeach, 'hf-loop' (transformers.AdamW, the Trainer's `adamw_hf`) TimeOptions.adamHfLoop.
   */
  adam_impl: z.enum(['foreach', 'hf-loop']).optional(),
  /** The engine build ran its loss uncompiled whatever --compile said: 'off' sets TimeOptions.eagerLoss. */
  loss_compile: z.enum(['off']).optional(),
  /** The build padded each expert's routed rows by one more permute around its grouped experts: 'align-wrapper' sets TimeOptions.alignPermute. */
  moe_permute: z.enum(['align-wrapper']).optional(),
  /** The build's causal-LM loss shifted the fp32 logits (a contiguous copy): 'shift-logits' sets TimeOptions.shiftedLogitsCopy. */
  causal_loss: z.enum(['shift-logits']).optional(),
  /** The run's loop clipped no gradient norm where the engine profile's trainer clips: 'none' sets TimeOptions.noGradClip. */
  grad_clip: z.enum(['none']).optional(),
  /** How the measured build dequantized GPTQ weights: 'torch' (auto-gptq's cuda-old QuantLinear) sets TimeOptions.gptqTorchDequant. */
  gptq_dequant: z.enum(['torch']).optional(),
  /**
   * The engine's CUDA/HIP graphs in the measured build: 'piecewise' (vLLM V1's default before vllm-project/vllm#25444 made
   * decode steps replay one full graph: attention runs eagerly between the captured pieces) sets TimeOptions.piecewiseGraphs;
   * 'off' (every decode kernel launched from the host: llama.cpp's HIP builds before ggml-org/llama.cpp#22254) sets
   * TimeOptions.ungraphedDecode.
   */
  cuda_graphs: z.enum(['piecewise', 'off']).optional(),
  /**
   * How the measured server build treated the chat template: 'per-request' (vLLM v0.11's
   * resolve_chat_template_kwargs parsed its Jinja source on every chat request) sets TimeOptions.chatTemplateParse.
   */
  chat_template_parse: z.enum(['per-request']).optional(),
  /**
   * The row's chat template's per-request parse over Qwen3-14B's, both timed with vLLM 0.11.0's own
   * resolve_chat_template_kwargs on one CPU (scripts/measure/vllm_template_parse.py): sets
   * TimeOptions.chatTemplateParseScale.
   */
  chat_template_parse_scale: z.number().positive().optional(),
  /**
   * The largest decode batch the measured build replays in CUDA graphs, where it differs from the engine profile's
   * default (a larger step runs eagerly): sets TimeOptions.graphMaxBatch.
   */
  graph_max_batch: z.number().int().nonnegative().optional(),
  /** The measured V0 run's `--max-seq-len-to-capture`, where its command line sets it: sets TimeOptions.maxSeqLenToCapture. */
  max_seq_len_to_capture: z.number().int().positive().optional(),
  /** The measured server's `--max-model-len`, where its command line sets it: sets TimeOptions.maxModelLen. */
  max_model_len: z.number().int().positive().optional(),
  /** bitsandbytes' NF4/FP4 dequantization kernel in the measured build: 'tree' (before 0.48.0) sets TimeOptions.bnbTreeDequant. */
  bnb_dequant: z.enum(['tree']).optional(),
  /** How the measured build brought offloaded checkpoints back in backward: 'serial' sets TimeOptions.offloadReloadSerial. */
  checkpoint_reload: z.enum(['serial']).optional(),
  /** The measured k-bit run's residual stream: 'fp32' (TRL's k-bit preparation with fp32 norms) sets TimeOptions.kbitFp32Stream. */
  kbit_stream: z.enum(['fp32']).optional(),
  /**
   * The dtype the measured rollout's captured decode steps dequantized bitsandbytes 4-bit weights to: 'fp32' (an
   * fp32-stored checkpoint quantized by vLLM while loading, graphs captured before Unsloth reset the QuantStates'
   * dtype) sets TimeOptions.bnbDecodeFp32; 'fp32-moe-down' (the routed experts' down projections alone in fp32, the
   * rest in 16 bits: Unsloth's gpt-oss on a GPU without bf16) sets TimeOptions.bnbDecodeFp32MoeDown.
   */
  bnb_decode_dtype: z.enum(['fp32', 'fp32-moe-down']).optional(),
  /**
   * The ops each adapted linear's LoRA issued beside its base matmul in the measured build's own eager generate, read
   * in that build's code where it differs from the engine profile's (FrameworkProfile.loraForwardOps): sets
   * TimeOptions.loraForwardOps.
   */
  lora_forward_ops: z.number().int().nonnegative().optional(),
  /**
   * The measured build's eager generate per decoder layer, read in its code: the eager ops outside compiled functions,
   * the torch.compile'd calls, and those of them that replay a CUDA-graph tree: sets TimeOptions.generateLayer.
   */
  generate_layer: z
    .object({
      eager_ops: z.number().int().nonnegative(),
      compiled_calls: z.number().int().nonnegative(),
      cudagraph_calls: z.number().int().nonnegative(),
      /**
       * The layers whose KV-cache update blocked the host on the stream each decode step, and the eager ops and
       * compiled calls the host issued between the previous layer's MoE call and that sync.
       */
      sync: z
        .object({
          layers: z.number().int().nonnegative(),
          eager_ops: z.number().int().nonnegative(),
          compiled_calls: z.number().int().nonnegative(),
        })
        .optional(),
    })
    .optional(),
  /**
   * The 4-D attention masks the measured build's generate made for every decode step through torch.vmap, read in its
   * code (transformers' create_masks_for_generate on a static cache): sets TimeOptions.generateMasks.
   */
  generate_masks: z.number().int().nonnegative().optional(),
  /** The measured build's sliding decoder layers rebuild their mask each step, read in its code: sets TimeOptions.slidingMaskInLayer. */
  sliding_mask_in_layer: z.enum(['slice', 'index']).optional(),
  /**
   * The LoRA adapters' dtype in the measured run: 'weights' (created in the frozen weights' 16-bit dtype and never
   * cast to fp32: PEFT before 0.12.0 in pure bf16) sets TimeOptions.adaptersInWeightDtype.
   */
  lora_adapter_dtype: z.enum(['weights']).optional(),
  /**
   * GRPO in the measured TRL build: 'per-micro-batch' (GRPOTrainer before steps_per_generation, TRL 0.18: its
   * _prepare_inputs generated for every micro-batch) sets steps_per_generation to 1, one rollout per micro-batch.
   */
  trl_generation: z.enum(['per-micro-batch']).optional(),
  /**
   * GRPO's weight sync in the measured TRL build: 'one-call' (TRL before v0.16, vLLM in the trainer's process:
   * `llm_model.load_weights(state_dict.items())`, one call for the whole model) sets TimeOptions.vllmSyncOneCall.
   */
  trl_sync: z.enum(['one-call']).optional(),
  /**
   * GRPO's old log-probs in the measured trainer build: 'vllm-forced' (a build that runs the policy's no-grad forward
   * over every generation batch under any vLLM rollout, Unsloth 2026.3.17's rewrite of trl's test) sets
   * TimeOptions.vllmOldLogprobs.
   */
  old_logprobs: z.enum(['vllm-forced']).optional(),
  /** The run's LoRA dropout probability: above 0 sets TimeOptions.loraDropout. */
  lora_dropout: z.number().min(0).max(1).optional(),
  /** false: the run trained its 16-bit model without torch.autocast (no AMP): sets TimeOptions.noAutocast. */
  autocast: z.literal(false).optional(),
  /** true: the run called torch.use_deterministic_algorithms(True): sets TimeOptions.deterministicFill. */
  deterministic: z.literal(true).optional(),
  /**
   * output_tokens_per_s or tpot_s of a closed-loop run of this many requests of equal lengths (vllm bench serve
   * --num-prompts with --max-concurrency --batch): scored as whole rounds of --batch and a last round of the rest, not a
   * steady --batch.
   */
  num_prompts: z.number().int().positive().optional(),
  /**
   * true: every request of the closed loop had the same prompt and output lengths and all were sent at once (a random
   * dataset at fixed lengths with --ignore-eos, no request rate): a tpot_s row with num_prompts is then timed as its
   * rounds run, each a burst step by step with its prefills in the TTFT (validate-throughput.ts closedLoopTpotSeconds).
   */
  equal_lengths: z.literal(true).optional(),
  /**
   * The engine's own cap on running sequences where the run left it at its default below the requests in flight
   * (vLLM's max_num_seqs, 256 on an A100: engines/vllm/memory.ts): the requests run that many at a time, the rest
   * queue, as where the KV pool holds fewer (time/pool-queue.ts). Above them it sizes only the start-up profile's
   * sampler (EstimateOptions.maxNumSeqs).
   */
  max_num_seqs: z.number().int().positive().optional(),
  /**
   * The KV pool's tokens the engine printed where the run sized its pool away from the engine's default (SGLang's
   * max_total_num_tokens under --mem-fraction-static): the memory model's pool at the default is replaced by the
   * sequences these hold at the mean context (time/pool-queue.ts).
   */
  kv_pool_tokens: z.number().int().positive().optional(),
  /**
   * The share of GPU memory the run gave the engine's budget where it set one away from the engine's default
   * (vLLM --gpu-memory-utilization, SGLang --mem-fraction-static) and printed no pool: the memory model's pool at
   * the default, less the difference of the shares times the GPU's memory (both engines' budgets are that share of
   * total memory, engines/vllm/memory.ts and engines/sglang/memory.ts).
   */
  pool_fraction: z.number().positive().max(1).optional(),
  /**
   * The dataset the run's client drew each request's prompt and output length from, and whose sampler filtered it
   * (catalogs/datasets/<name>.json, its `samplers`): a burst (batch_latency_s) is run over those lengths scaled to
   * the row's means, not at the means (time/length-spread.ts).
   */
  dataset: z
    .object({ name: z.string().min(1), sampler: z.string().min(1) })
    .strict()
    .optional(),
  /**
   * Requests a second the client sent a burst's (batch_latency_s) prompts at, where the source states a finite
   * `--request-rate`: request i reaches the scheduler i / rate seconds after the first (TimeOptions.requestRate,
   * time/length-spread.ts sentAt). Absent: all sent at once.
   */
  request_rate: z.number().positive().finite().optional(),
});
export const throughputFileSchema = z.array(throughputCaseSchema);
export type ThroughputCase = z.infer<typeof throughputCaseSchema>;

/** The fields every published row outside cases.json carries: where it was read and which config it runs. */
const PUBLISHED_ROW = {
  id: z.string().min(1),
  source: z.string().min(1),
  quote: z.string().min(1),
  date: z.string().min(1),
  model_hf_id: z.string().min(1).nullable(),
  config_file: z.string().min(1),
};
/** The row's settings as contract flags (flag name → value). */
const CONTRACT_FLAGS = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]));

/** calibration/max-context.json: published longest sequences that fit a GPU (one row per engine and card). */
export const maxContextCaseSchema = z.looseObject({
  ...PUBLISHED_ROW,
  engine: z.string().min(1),
  /** Device memory of the card, GiB (the budget deviceBytes must fit). */
  gpu_memory_gib: z.number().positive(),
  flags: CONTRACT_FLAGS,
  published_max_tokens: z.number().int().positive(),
  notes: z.string().optional(),
  ...MEMORY_BUILD_CONTEXT,
  /** Reported beside the others, not scored: why the mechanism does not reach it (no constant fitted). */
  reportedApart: z.string().min(1).optional(),
});
export const maxContextFileSchema = z.array(maxContextCaseSchema);
export type MaxContextCase = z.infer<typeof maxContextCaseSchema>;

/**
 * calibration/rl-cases.json: published preference / RL measurements, one row per figure, with the
 * settings as contract flags (--objective and its flags included). metric 'device' compares deviceBytes
 * with measured_bytes, 'allocated' allocatedBytes (torch max_memory_allocated); 'max-context' is a longest
 * sequence on a card of gpu_memory_gib.
 */
export const rlCaseSchema = z.looseObject({
  ...PUBLISHED_ROW,
  objective: z.enum(['dpo', 'orpo', 'kto', 'simpo', 'grpo']),
  engine: z.string().min(1),
  flags: CONTRACT_FLAGS,
  metric: z.enum(['device', 'allocated', 'max-context']),
  measured_bytes: z.number().positive().optional(),
  gpu_memory_gib: z.number().positive().optional(),
  published_max_tokens: z.number().int().positive().optional(),
  notes: z.string().optional(),
  /** Reported beside the others, not scored: why (no constant fitted to it). */
  reportedApart: z.string().min(1).optional(),
});
export const rlFileSchema = z.array(rlCaseSchema);
export type RlCase = z.infer<typeof rlCaseSchema>;

/**
 * calibration/kv-cache.json: KV pools vLLM printed at startup. pool_gib / tokens is the KV bytes per
 * token per GPU of a model with one kind of attention layer, compared with the estimate's cache.kvBytesPerToken.
 */
export const kvCacheCaseSchema = z.looseObject({
  ...PUBLISHED_ROW,
  engine: z.literal('vllm'),
  flags: CONTRACT_FLAGS,
  /** "Available KV cache memory" (GiB) and the tokens vLLM reports it holds. */
  pool_gib: z.number().positive(),
  tokens: z.number().int().positive(),
  notes: z.string().optional(),
});
export const kvCacheFileSchema = z.array(kvCacheCaseSchema);
export type KvCacheCase = z.infer<typeof kvCacheCaseSchema>;
