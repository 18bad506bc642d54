/** What the hf engines really allocate: the Hugging Face stack and DeepSpeed's memory profile (core/memory reads it). */
import { hfFsdpVersion } from './fsdp-version.js';
import { PEFT_GENERATE_LINEAR, PEFT_LORA_PATH } from './lora-path.js';
import { HF_EAGER_PASSES, hfEagerLayerExtraOps } from './eager-modules.js';
import {
  UPCAST_LOSS,
  TORCH_CONTEXT_MIB,
  HF_CONTEXT_MIB,
  type FrameworkProfile,
} from '../../memory/framework-profile.js';

/** Model types whose MoE block transformers runs densely (Llama4TextMoe). */
const LLAMA4_TEXT_MOE = ['llama4', 'llama4_text'] as const;
// The weight dtypes transformers loads through BitsAndBytesConfig (4-bit NF4/FP4, LLM.int8).
const HF_BNB_WEIGHTS = ['nf4', 'fp4', 'int8'] as const;
// bitsandbytes 4-bit base weights load whole onto every rank's GPU before FSDP / ZeRO-3 shards them. With no
// device_map (the launch folder passes none under sharding) the 4-bit quantizer sets {"": torch.cuda.current_device()}
// on every rank (transformers 5.14.1 wheel quantizers/quantizer_bnb_4bit.py update_device_map L102-L105, called from
// quantizers/auto.py get_hf_quantizer L358); each checkpoint tensor is materialised on that device and quantized there
// (core_model_loading.py convert_and_load_state_dict_in_model L1658, integrations/bitsandbytes.py Bnb4bitQuantize
// L58) and stays. FSDP's rank-0-only load covers unquantized models alone (modeling_utils.py
// _move_missing_keys_from_meta_to_device L4852: `not is_quantized`), and ZeRO-3 builds a quantized model on the meta
// device without zero.Init (get_init_context L3893-L3894). The 4.x path that quantized each tensor on the GPU and
// moved it to the CPU (rank 0) or meta (others) (huggingface/transformers#29587) is gone. 16-bit weights still load
// on rank 0's host (FSDP cpu_ram_efficient_loading) or partitioned by zero.Init.
export const BNB_4BIT_LOADS_WHOLE = ['nf4', 'fp4'] as const;
// axolotl 0.19.0's FSDP-QLoRA loader (qlora_sharded_model_loading with fsdp_config.cpu_ram_efficient_loading, the
// Answer.AI technique; axolotl-0.19.0 wheel loaders/model.py _build_model L1008-L1034 -> utils/model_shard_quant.py
// load_sharded_model_quant): the model is built on the meta device with bitsandbytes Linear4bit (quant_type
// "nf4" and compress_statistics=True hard-coded, so NF4 only), each checkpoint tensor is quantized on the rank's
// GPU and moved to the CPU on local rank 0, to meta elsewhere (load_and_quantize), two tensors at once
// (loading_workers=2, a fastcore thread pool); FSDP1's sync_module_states then broadcasts rank 0's copy. It sets
// each checkpoint tensor by its file name (module.get_submodule, skipping names it cannot find), with none of
// transformers 5's checkpoint conversion (per-expert files into fused expert parameters), so dense models only.
export const AXOLOTL_SHARDED_QUANT_LOAD = {
  weights: ['nf4'],
  // loading_workers=2: https://github.com/axolotl-ai-cloud/axolotl/blob/v0.19.0/src/axolotl/utils/model_shard_quant.py
  workers: 2,
  denseOnly: true,
} as const;

// huggingface/trl#5249: batching the server-mode sync's per-parameter requests cut Qwen2-0.5B's weight sync from 0.6 s
// to 0.15 s; Qwen2-0.5B has 290 named parameter tensors (24 layers x (7 linears, 3 biases, 2 norms), embed_tokens and
// the final norm; tied head), so a request costs (0.6 - 0.15) / 290 s beside its bytes.
const TRL_SERVER_SYNC_TENSOR_SECONDS = (0.6 - 0.15) / 290;

/** What TRL's trainers do on the Hugging Face engines (Trainer/TRL, and the same under DeepSpeed). */
const TRL_TRAINER = {
  // TRL v1.9.0's GRPOTrainer: the old log-probs' forward with a vLLM rollout (FrameworkProfile.grpoOldLogprobs;
  // huggingface/trl@35def3ee000a87f6839e66f4b7749b06274ed1b3 trl/trainer/grpo_trainer.py).
  grpoOldLogprobs: true,
  // TRL v1.9.0 grpo_trainer.py _prepare_inputs generates the training batch in its `self.model.training` branch (line
  // 1569) and _generate_single_turn calls generate with no eval(); unwrap_model_for_generation (trl/models/utils.py)
  // only turns gradient checkpointing off: PEFT's nn.Dropout (peft v0.20.0 tuners/lora/layer.py line 252) stays live.
  // PPO too: trl/experimental/ppo/ppo_trainer.py train() calls model.train() (line 639) before batch_generation.
  generatesInTrainMode: true,
  // That generate runs PEFT's lora.Linear.forward unmerged at every decode step: its Python around its ops.
  loraForwardHost: PEFT_GENERATE_LINEAR,
  // TRL v1.6.0 grpo_trainer.py _generate_and_score_completions pads prompt_ids (left) and completion_ids (right) over
  // the process's whole generation batch (`pad(...)`, lines 1891-1910), and _prepare_inputs splits the padded batch into
  // steps_per_generation micro-batches by rows (`split_tensor_dict`, line 1171); _compute_loss concatenates them at that
  // width (line 2493). GRPOConfig has no padding-free mode. The same at huggingface/trl v1.9.0 (pad lines 2378-2411,
  // split line 1577).
  grpoPadsGenerationBatch: true,
  // Server-mode weight sync, one named parameter tensor at a time: VLLMGeneration._push_param_to_vllm ->
  // VLLMClient.update_named_param, an HTTP POST, a collective_rpc in the server and an NCCL broadcast and barrier
  // each (huggingface/trl v1.9.0 trl/generation/vllm_generation.py L387-L392, vllm_client.py L489-L512).
  vllmSyncTensorSeconds: TRL_SERVER_SYNC_TENSOR_SECONDS,
} as const satisfies Partial<FrameworkProfile>;

// transformers 5's grouped_mm_experts_forward (src/transformers/integrations/moe.py @8b584a67, the HF_PINS build) moves
// each routed row (S = tokens x top-k rows of the hidden size) outside its two grouped matmuls: the gather
// `hidden_states[token_idx]` (read, write), the sort `selected_hidden_states[perm]` (read, write), the routing-weight
// multiply (read, write), the unsort `out_per_sample_g[inv_perm]` (read, write) and the `view(...).sum(dim=1)` over
// top-k (read): 9 hidden-wide passes a routed row in forward, plus the sum's one write a token (time/grouped-mm.ts).
// Their backward (index_put_ accumulations, the expand of the sum) is about twice that, as the step prices
// elementwise traffic.
const HF_GROUPED_EXPERTS_ROW_PASSES = 9;
// What transformers 4.40-4.51's per-expert loop moves around each hit expert's matmuls (Qwen3MoeSparseMoeBlock.forward,
// MixtralSparseMoeBlock.forward alike; time/moe-loop-traffic.ts). The gather's own gradient is train-work.ts
// LOOP_INDEX_GRAD_PASSES.
const HF_MOE_LOOP_TRAFFIC = {
  // `hidden_states[None, top_x]` gathers the routed rows (read, write), `* routing_weights[top_x, idx, None]` scales
  // them (read, write), `final_hidden_states.index_add_` adds them in (read the row, read and write the output row)
  // (https://github.com/huggingface/transformers/blob/v4.51.3/src/transformers/models/qwen3_moe/modeling_qwen3_moe.py)
  rowFwdPasses: 7,
  // index_add's source gradient `grad.index_select` (read, write), the product's gradient to the expert output
  // (read, write) and to the routing weight (read two, write one; the sum over the hidden size reads it)
  // (https://github.com/pytorch/pytorch/blob/v2.6.0/tools/autograd/derivatives.yaml)
  rowBwdPasses: 8,
  // `torch.zeros` writes the output once a token (the same modeling_qwen3_moe.py)
  tokenFwdPasses: 1,
  // `one_hot(selected_experts, num_classes=E)` writes int64 [tokens, top_k, E], the experts' torch.where read it:
  // 8 B each way (the same modeling_qwen3_moe.py at
  // https://github.com/huggingface/transformers/blob/v4.51.3/src/transformers/models/qwen3_moe/modeling_qwen3_moe.py)
  maskBytes: 16,
} as const;

export const HF_MEMORY: FrameworkProfile = {
  ...TRL_TRAINER,
  // transformers generate with one adapter: PeftAdapterMixin.load_adapter injects PEFT's lora.Linear on the adapter's
  // target modules (integrations/peft.py inject_adapter_in_model), run unmerged on every sequence of the batch
  // (engines/hf-generate/runs.ts refuses a second adapter).
  unmergedLora: true,
  id: 'hf',
  // Trainer's AMP (bf16/fp16, no DeepSpeed) is accelerate's: prepare_model wraps model.forward in torch.autocast
  // (accelerate v1.14.0 accelerator.py prepare_model, `autocast_context(model_forward_func)`), and TRL's
  // unwrap_model_for_generation calls accelerator.unwrap_model with keep_fp32_wrapper left True (trl/models/utils.py),
  // so each forward generate runs is an autocast region of its own (time/objective.ts autocastDecodeOps).
  generateAutocast: true,
  // An eager Llama forward's elementwise kernels, bytes read + written per element of a 16-bit model
  // (https://github.com/huggingface/transformers/blob/v4.37.2/src/transformers/models/llama/modeling_llama.py, the same
  // lines at v4.35.2): LlamaRMSNorm .to(float32) 2+4, pow(2) 4+4, mean 4, * rsqrt 4+4, .to(input_dtype) 4+2, weight *
  // 2+2; apply_rotary_pos_emb q * cos 2+2, rotate_half's -x2 over half 1+1 and cat 2+2, * sin 2+2, the add 4+2;
  // attn_output.transpose(1, 2).contiguous() 2+2; LlamaMLP act_fn(gate_proj(x)) 2+2 and * up_proj(x) 4+2;
  // `residual + hidden_states` 4+2; eager LlamaAttention's scores: / math.sqrt(head_dim) 2+2, + attention_mask 2+2,
  // softmax(dtype=float32) 2+4, .to(query dtype) 4+2; LlamaForCausalLM `logits = logits.float()` 2+4 on every
  // position until generate passed num_logits_to_keep (v4.45.0 modeling_llama.py: lm_head(hidden_states[:,
  // -num_logits_to_keep:, :])).
  eagerPrefillPasses: {
    rmsNorm: 36,
    rotary: 20,
    attnOutCopy: 4,
    gatedAct: 10,
    act: 4,
    residualAdd: 6,
    eagerScore: 20,
    logitsCast: 6,
    lastLogitsFrom: '4.45.0',
  },
  // PEFT / TRL call transformers' enable_input_require_grads under gradient checkpointing (modeling_utils.py).
  inputRequireGrads: true,
  untiesEmbeddings: false,
  embedTargetsTrainFully: false,
  // Trainer recipes accumulate gradients across micro-batches, and before torch 2.0 model.zero_grad() zeroed
  // them in place instead of freeing them (HF 'Model training anatomy' measures weights + grads + states + activations).
  gradsPersist: true,
  bnbSavesInput: true, // bitsandbytes autograd/_functions.py MatMul4Bit.forward
  bnbQuantizesAll: false,
  chunkedLossCompiles: false,
  fsdpRootUnit: true, // accelerate FSDP auto-wraps decoder layers; the root holds embed_tokens and lm_head
  // TRL's generate under FSDP summons the root unit only (huggingface/trl v1.9.0 grpo_trainer.py L1859
  // `summon_full_params(self.model_wrapped, recurse=False)`; trl/distributed.py L74-L91: FSDP1 only, FSDP2 a no-op),
  // so each decoder layer's unit unshards in its pre-forward and reshards after it under FULL_SHARD, at every forward
  // of the generate (torch/distributed/fsdp/_runtime_utils.py _pre_forward_unshard, _post_forward_reshard).
  shardedGenerate: 'per-forward',
  name: 'Hugging Face transformers + PEFT + TRL/Accelerate',
  eagerFp32RmsNorm: true, // LlamaRMSNorm: hidden_states.to(torch.float32) ... weight * hs.to(input_dtype)
  fusedSwiglu: false, // LlamaMLP: down_proj(act_fn(gate_proj(x)) * up_proj(x))
  sdpaExpandsKv: true, // sdpa_attention_forward: repeat_kv(key, n_rep) before SDPA
  // ... unless `use_gqa_in_sdpa(attention_mask, key)`: torch >= 2.5 and no mask, then SDPA's enable_gqa=True with the k/v
  // heads as they are (transformers 5.14.1 integrations/sdpa_attention.py).
  sdpaGqaUnmasked: true,
  // transformers 5.14.1 integrations/sdpa_attention.py sdpa_attention_forward takes no softcap (flash_attention_forward
  // and gemma2's eager_attention_forward apply the softcap=attn_logit_softcapping that Gemma2Attention passes).
  sdpaDropsSoftcap: true,
  attnOutputCopy: true, // attn_output.transpose(1, 2).contiguous()
  fusedQkvView: false,
  loraDropout: false, // peft LoraConfig lora_dropout default 0.0 -> nn.Identity
  fp32Adapters: true, // peft get_peft_model(autocast_adapter_dtype=True) casts bf16/fp16 adapters to fp32
  // TRL's SFT/DPO/KTO/GRPO trainers never call prepare_model_for_kbit_training: embeddings, norms, lm_head and
  // unquantized experts keep the load dtype (huggingface/trl@v1.9.0 trl/trainer/sft_trainer.py:1127; the fixture
  // test/fixtures/trl-kbit-dtypes.json).
  kbitUpcastsToFp32: false,
  // trl.experimental's ORPO and CPO (SimPO) still do, then peft_module_casting_to_bf16 under bf16 (huggingface/trl@v1.9.0
  // trl/experimental/orpo/orpo_trainer.py:215-264, trl/experimental/cpo/cpo_trainer.py:205-254).
  kbitPreparingObjectives: ['orpo', 'simpo'],
  // On a 4/8-bit model they cast every trainable parameter to bf16 after get_peft_model (huggingface/trl@v1.9.0
  // trl/trainer/sft_trainer.py:1127-1130, dpo_trainer.py:700-703, grpo_trainer.py:500-503).
  kbitTrainableBf16: true,
  // chunked-loss on HF means Liger's fused linear+CE kernel (use_liger_kernel with only that kernel on):
  // one chunk of logits and the hidden-state gradient (kernels/liger.ts ligerLossBytes).
  loss: { ...UPCAST_LOSS, chunkedForward: 0, chunkedBackward: 0, fusedLinear: true },
  // TrainingArguments optim default: adamw_torch_fused on recent torch; older adamw_hf stepped per parameter.
  // Neither holds a model-size temporary (torch foreach AdamW would: _foreach_sqrt(exp_avg_sqs)).
  adamImpl: 'fused',
  prefillLogits: 'last', // generate(): logits_to_keep=1 since transformers 4.45
  kvCache: 'dynamic', // DynamicCache: torch.cat per step
  // transformers v5.14.1 cache_utils.py DynamicLayer.update L143-L144: `self.keys = torch.cat([self.keys, key_states],
  // dim=-2)`, the same for values, once per layer and step (generate's default cache).
  kvAppendCopies: true,
  cudaContextMiB: HF_CONTEXT_MIB,
  allocatorSlack: 0.06, // caching allocator without expandable segments: a few % (vllm-project/compressed-tensors#587: 2.3%; ZeRO §3.2)
  deepspeedOptimizer: false,
  // Trainer's DDP reduces each gradient in its own dtype (fp32 PEFT adapters, bf16 ones on a k-bit base); Accelerate's
  // FSDP1 and FSDP2 reduce in the mixed-precision dtype: set_mixed_precision builds MixedPrecision(Policy) with
  // reduce_dtype = param_dtype = the bf16/fp16 of mixed_precision (accelerate v1.15.0 utils/dataclasses.py
  // FullyShardedDataParallelPlugin.set_mixed_precision L2109-L2143, called from state.py L1014-L1015), while FSDP2
  // keeps fp32 trainable parameters (utils/fsdp_utils.py fsdp2_prepare_model L813-L820).
  gradReduce: { unsharded: 'grad', sharded: 'compute' },
  // hf-fsdp runs the fsdp_version its launchers write (FSDP2 but for bnb 4-bit weights) or the user's config states
  // (fsdp-version.ts); accelerate's fsdp2_prepare_model calls fully_shard (accelerate v1.14.0 utils/fsdp_utils.py).
  fsdp2: (o) => hfFsdpVersion(o) === 2,
  // 4-bit weights run FSDP1 (rule fsdp2-bnb-4bit), whose CPUOffload pins a zeros_like gradient buffer beside every
  // offloaded flat parameter, frozen or not (pytorch/pytorch@01caf79e047fd15e1f75ba3825f789130efa476a
  // torch/distributed/fsdp/_flat_param.py init_flat_param_attributes: flat_param._cpu_grad).
  offloadGradBufferWeights: ['nf4', 'fp4'],
  // FSDP's parameter offload also copies each gradient shard to the host (FSDP2 CPUOffloadPolicy: foreach_reduce's
  // `if fsdp_param.offload_to_cpu: new_sharded_grad = new_sharded_grad.to(torch.device("cpu"), ...)`,
  // pytorch/pytorch@010ae4a89516fa3be548ab16dff711414ec12d0b torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py;
  // FSDP1 CPUOffload: _runtime_utils.py _offload_grad), where it stays until the host step: counted in host RAM
  // (hostGradShards). hostGrads, which would also drop it from the GPU, is not set: without the shard the two
  // published FSDP2-offload peaks (axolotl's gpt-oss) fall about half under, so the shard stands in for a GPU holding
  // of those runs no mechanism names yet (docs/memory-model.md, "Where gradients live").
  hostGradShards: ['optimizer+params'],
  gatheredLayers: 2, // FSDP forward_prefetch/backward_prefetch: current + next unit
  // Accelerate FSDP wraps a 4-bit model every rank loaded whole onto its GPU (BNB_4BIT_LOADS_WHOLE).
  loadsWholeBeforeSharding: BNB_4BIT_LOADS_WHOLE,
  // NF4 FSDP-QLoRA launches through axolotl's layer-by-layer loader instead (AXOLOTL_SHARDED_QUANT_LOAD).
  shardedQuantLoad: AXOLOTL_SHARDED_QUANT_LOAD,
  // transformers/PEFT load 4/8-bit weights through bitsandbytes.
  quantFormat: 'bnb',
  int4QuantFormat: 'bnb',
  fusedKernels: false,
  // transformers 5.14.1 (HF_PINS) stores experts as 3-D gate_up_proj/down_proj parameters (@use_experts_implementation)
  // and runs them with experts_implementation="grouped_mm" unless asked otherwise (modeling_utils
  // get_correct_experts_implementation): torch._grouped_mm over all experts (integrations/moe.py @8b584a67).
  moeDispatch: 'grouped',
  // Llama-4's text MoE is not among them: Llama4TextMoe.forward repeats every token once per expert, scales it by
  // its router score (0 unrouted) and runs Llama4TextExperts' bmm over all experts (transformers 000c33fd, a 5.x
  // commit, src/transformers/models/llama4/modeling_llama4.py; 5.14.1 itself not read).
  moeDense: LLAMA4_TEXT_MOE,
  // PEFT 0.20 adapts those parameters with target_parameters only: lora.ParamWrapper (tuners/lora/layer.py @a5526d27).
  expertAdapters: 'param-wrapper',
  // PEFT 0.21.2 (HF_PINS) remaps v4-style targets on transformers 5 MoE models (utils/transformers_weight_conversion.py
  // _convert_peft_config_moe, run by BaseTuner.inject_adapter): counted in model/peft-moe.ts. Axolotl 0.19.0's peft
  // 0.20.0 runs the same: that file is byte-identical in the two wheels, inject_adapter calls it (tuners_utils.py
  // L787-L803), transformers 5.16.1 maps the same model types as 5.14.1, and axolotl leaves it unpatched.
  peftV5Remap: true,
  // transformers 5.14.1's bitsandbytes integration swaps only nn.Linear / Conv1D for Linear4bit / Linear8bitLt
  // (integrations/bitsandbytes.py replace_with_bnb_linear; quantizer_bnb_4bit.py param_needs_quantization); the fused
  // 3-D expert parameters stay in the load dtype (bitsandbytes-foundation/bitsandbytes#1849), and TRL leaves them
  // there (kbitUpcastsToFp32 false: no prepare_model_for_kbit_training).
  unquantizedExperts: HF_BNB_WEIGHTS,
  // integrations/moe.py @8b584a67 _grouped_mm: torch.nn.functional.grouped_mm / torch._grouped_mm whenever torch is
  // 2.9 or later (is_grouped_mm_available); ParamWrapper folds ΔW into the weight, so no grouped call of its own.
  torchGroupedMm: { loraCalls: 0, rowPasses: HF_GROUPED_EXPERTS_ROW_PASSES },
  // A row whose transformers 4.x build looped its experts (moe_dispatch 'loop'): what the loop moves around them.
  moeLoopTraffic: HF_MOE_LOOP_TRAFFIC,
  // PEFT's adapter matmuls run beside each adapted linear (lora-path.ts).
  loraPath: PEFT_LORA_PATH,
  // transformers' eager RMSNorm and rotary embedding (eager-modules.ts).
  eagerPasses: HF_EAGER_PASSES,
  // The Trainer clips at max_grad_norm (default 1.0) every step through accelerator.clip_grad_norm_: torch's
  // clip_grad_norm_ reads each gradient once for torch._foreach_norm, then scales them all with torch._foreach_mul_ by
  // the clamped coefficient, under 1.0 or not (pytorch/pytorch v2.1.0 torch/nn/utils/clip_grad.py); FSDP1's
  // FullyShardedDataParallel.clip_grad_norm_ does the same over its local shard's flat gradients, plus one scalar
  // all-reduce (torch/distributed/fsdp/fully_sharded_data_parallel.py at the same tag).
  gradClip: { normRead: 'stepped', normCopyBytes: 0, scalePasses: 2 },
  // transformers' eager decoder layer by family (eager-modules.ts).
  eagerLayerExtraOps: hfEagerLayerExtraOps,
  expertParallel: false, // Trainer/Accelerate shard data (DDP/FSDP), never experts
  source:
    'https://github.com/huggingface/transformers/blob/main/src/transformers/models/llama/modeling_llama.py',
};

// DeepSpeed v0.16.5's ZeRO hooks, eager ops counted from the source (each costs EAGER_OP_SECONDS in time/):
// ZeRO-3, per submodule with a partitioned parameter per pass: the single-parameter all_gather_coalesced
// (torch.empty, .to, all_gather_into_tensor, narrow, view, .to, param.data =: partition_parameters.py), the
// wait in fetch_sub_module (event query, handle wait, event record; current_stream().wait_stream:
// partitioned_param_coordinator.py), the release's free_param (record_stream, torch.empty(0), param.data =) and
// the two autograd functions its hooks wrap around the module's inputs and outputs (parameter_offload.py
// PreBackwardFunctionForModule, PostBackwardFunctionModule): 16, the same in backward (pre-backward fetch,
// post-backward release, the two functions' nodes). Gradient hook per trainable parameter: ZeRO-3
// __add_grad_to_ipg_bucket (wait_stream, narrow, view_as, copy_, record_stream, grad.data =: stage3.py) 6;
// ZeRO-2 reduce_independent_p_g_buckets_and_remove_grads (narrow, view, copy_, view_as, grad.data =:
// stage_1_and_2.py) 5. ZeRO-3 then reduces each full bucket through reduce_scatter_coalesced
// (runtime/comm/coalesced_collectives.py: a view and one slice per rank of every gradient to interleave, a narrow of
// the result) and files each partition in partition_grads (stage3.py: narrow, copy_, .to, record_stream,
// grad = None): 7 ops per gradient and one per rank.
// The rows' hosts' host time per unit of the measuring CPU's (a 2.6 GHz virtualized Xeon; the rows name no CPU):
// taken as equal (calibration/assumed.json).
const ZERO3_HOST_CPU_SCALE = 1;
const DEEPSPEED_HOOKS = {
  moduleOps: 16, // DeepSpeed @20f988eade5217ab0045ba1681030f3d255d67e3 (v0.16.5), counted above
  gradOps: { 2: 5, 3: 6 },
  reduceOps3: { perParam: 7, perRank: 1 }, // DeepSpeed @20f988eade5217ab0045ba1681030f3d255d67e3 (v0.16.5)
  // zero_optimization.leaf_module's default classes from v0.18.0 (deepspeedai/DeepSpeed#7604), applied to the model
  // before ZeRO-3 registers its hooks (engine.py _configure_distributed_model): MixtralSparseMoeBlock,
  // Qwen2MoeSparseMoeBlock, Qwen3MoeSparseMoeBlock (DeepSpeed @cf44300453eb0af79ed84ed8f1cb49d57478bd76 (v0.19.5)
  // deepspeed/runtime/zero/leaf_module_config.py DEFAULT_LEAF_MODULE_CLASSES).
  leafMoe: ['mixtral', 'qwen2_moe', 'qwen3_moe'],
  // With offload_param each fetch copies the host partitions with `ds_tensor.to(current_device_name())`, no
  // non_blocking (partition_parameters.py all_gather_coalesced, DeepSpeed v0.9.5, v0.14.4 and v0.18.3 alike), which
  // PyTorch runs as cudaMemcpyAsync then cudaStreamSynchronize (aten/src/ATen/native/cuda/Copy.cu copy_kernel_cuda,
  // memcpy_and_sync), from fetch_sub_module's prefetch before the module's own kernels are issued
  // (partitioned_param_coordinator.py): the thread that launches the compute waits out each copy. One rank gathers
  // nothing: NoGatherHandle copies with non_blocking=True and the fetch waits only for copies already issued.
  blockingParamCopies: true,
  // stage3_max_reuse_distance's default, 1e9 elements (deepspeed/runtime/zero/config.py `max_reuse_distance`, v0.14.4
  // and v0.19.x alike; the rows' configs set the same): a recompute's parameters stay gathered for the backward when
  // the trace uses them again within it (time/zero-collectives.ts backwardRegatherShare).
  // https://github.com/deepspeedai/DeepSpeed/blob/v0.14.4/deepspeed/runtime/zero/config.py
  maxReuseDistance: 1e9,
  // ZeRO-3's hooks run as DeepSpeed v0.14.4's own code on two gloo ranks of a CPU (its accelerator skips streams and
  // events), Qwen2 and Qwen2-MoE decoder layers at toy width, with and without PEFT LoRA, checkpointed: this
  // thread's CPU seconds per hooked module pass and per gradient, the same model without DeepSpeed subtracted
  // (scripts/measure/zero3-host.py; calibration/measured/zero3-host-cpu.json `summary_us`;
  // https://github.com/deepspeedai/DeepSpeed/blob/v0.14.4/deepspeed/runtime/zero/parameter_offload.py). Skipped
  // there: per gathering module the fetch's event query and record, its wait_stream and the release's
  // record_stream (4); per other module its wait_stream (1); per gradient the bucket's wait_stream and
  // record_stream and the partition's record_stream (3). Unscaled to the rows' hosts (ZERO3_HOST_CPU_SCALE).
  host3: {
    gathering: 158e-6 * ZERO3_HOST_CPU_SCALE,
    bare: 127e-6 * ZERO3_HOST_CPU_SCALE,
    gradient: 142e-6 * ZERO3_HOST_CPU_SCALE,
    // Two ranks: on one, all_gather_coalesced skips the gather (NoGatherCoalescedHandle when num_partitions == 1,
    // https://github.com/deepspeedai/DeepSpeed/blob/v0.14.4/deepspeed/runtime/zero/partition_parameters.py).
    ranks: 2,
    streamOps: { gathering: 4, bare: 1, gradient: 3 },
    // Each collective through ProcessGroupNCCL makes CUDA calls on the issuing thread that the measurement's gloo
    // enqueue does not: syncStreams' event record and stream wait, the work's end event (created on its first record)
    // and its record, the NCCL kernel launch, the CUDA future's event create and record in markCompleted, and the
    // stream wait of WorkNCCL::wait (pytorch/pytorch@0007e752d518810f0f8942a830dbbbfc69f34577
    // torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp collective, synchronizeStreams): 8.
    collectiveOps: 8,
    // A group of more than one parameter gathers through _all_gather_dtype, which slices its flat buffer once per
    // rank (flat_tensor.narrow), and AllGatherCoalescedHandle.wait, which slices each parameter's part of every
    // rank's partition (partitions[rank].narrow) and records each slice on the compute stream
    // (part_to_copy.record_stream, skipped on a synchronized device such as the CPU accelerator), per parameter
    // per rank (https://github.com/deepspeedai/DeepSpeed/blob/v0.14.4/deepspeed/runtime/zero/partition_parameters.py;
    // the same in v0.19.8). A lone parameter gathers through AllGatherHandle, with none of it. A slice's host time is
    // those loops' as DeepSpeed writes them, torch 2.3.1 on this CPU (scripts/measure/zero3-slices.py,
    // calibration/measured/zero3-slices-cpu.json `per_slice_us`); a stream record (current_stream() and
    // record_stream, a torch call that launches nothing) is priced at an eager op's dispatch, 10 µs
    // (bitsandbytes-foundation/bitsandbytes#347, as EAGER_OP_SECONDS in time/train-work.ts), in a loop too.
    coalescedPerRank: {
      bufferSlices: 1,
      paramSlices: 1,
      sliceSeconds: 2.1e-6 * ZERO3_HOST_CPU_SCALE,
      recordStreamSeconds: 10e-6, // an eager op, bitsandbytes-foundation/bitsandbytes#347 (calibration/assumed.json)
    },
    // One reduce-scatter a full bucket (stage3.py __reduce_and_partition_ipg_grads, reduce_scatter_coalesced's one
    // batched call: runtime/comm/coalesced_collectives.py, DeepSpeed v0.14.4): reduce_bucket_size defaults to 5e8
    // elements (runtime/zero/config.py); 'auto' is the hidden size squared (transformers v4.41.2
    // integrations/deepspeed.py trainer_config_finalize).
    reduceBucket: { elements: 5e8, autoPerHidden2: 1 },
    // stage3_prefetch_bucket_size 5e7 and stage3_param_persistence_threshold 1e5 by default (runtime/zero/config.py,
    // DeepSpeed v0.14.4); 'auto' is 0.9 times the hidden size squared and 10 times the hidden size (transformers
    // v4.41.2 integrations/deepspeed.py trainer_config_finalize).
    prefetchBucket: { elements: 5e7, autoPerHidden2: 0.9 },
    persistence: { elements: 1e5, autoPerHidden: 10 },
  },
} as const;

// ZeRO-2's gradient path, DeepSpeed v0.14.2 deepspeed/runtime/zero/stage_1_and_2.py (the same at v0.19.5): each gradient's
// hook copies it into the contiguous bucket on the compute stream (reduce_independent_p_g_buckets_and_remove_grads,
// contiguous_gradients true by default: copy_, a read and a write); a full bucket goes to average_tensor, which divides
// it in place by the data-parallel size (div_) and, under reduce_scatter (true by default) with
// use_multi_rank_bucket_allreduce (true by default), packs every rank's slices into one flattened tensor
// (allreduce_bucket's _flatten_dense_tensors, a torch.cat copy) that it all-reduces (dist.all_reduce), then copies back
// the slices this rank owns (allreduce_and_copy_with_multiple_ranks buf.copy_) and files them in its partition buffer
// (reduce_ipg_grads copy_grads_in_partition; under offload_optimizer that copy goes to the host instead, not told
// apart: 2/n of a pass). The all-reduce replaced per-owner reduces in deepspeedai/DeepSpeed#4695 (first in v0.12.4):
// "pack all data ... into one big flattened tensor and call AllReduce instead of reduce operations".
// https://github.com/deepspeedai/DeepSpeed/blob/v0.14.2/deepspeed/runtime/zero/stage_1_and_2.py (v0.14.2 is @5f631abc2f93)
const DEEPSPEED_ZERO2_BUCKETS = {
  allReduce: true,
  hookCopyPasses: 2, // copy_ into the bucket, a read and a write (stage_1_and_2.py @5f631abc2f93)
  bucketPasses: 4, // div_ and the flattening cat, a read and a write each (@5f631abc2f93)
  ownSlicePasses: 4, // buf.copy_(synced) and copy_grads_in_partition, a read and a write each (@5f631abc2f93)
} as const;

export const DEEPSPEED_MEMORY: FrameworkProfile = {
  ...TRL_TRAINER,
  id: 'deepspeed',
  // --cp is DeepSpeed Ulysses through accelerate's ParallelismConfig sp_backend "deepspeed" (UlyssesSPAttentionHF,
  // deepspeed 0.19.8 runtime/sequence_parallel/ulysses_sp.py _combine_local_sequences, _partition_global_sequence).
  cpAllToAll: true,
  // PEFT / TRL call transformers' enable_input_require_grads under gradient checkpointing (modeling_utils.py).
  inputRequireGrads: true,
  untiesEmbeddings: false,
  embedTargetsTrainFully: false,
  gradsPersist: true, // ZeRO keeps the (partitioned) gradient buffers across micro-batches
  bnbSavesInput: true, // bitsandbytes autograd/_functions.py MatMul4Bit.forward
  bnbQuantizesAll: false,
  chunkedLossCompiles: false,
  fsdpRootUnit: false, // ZeRO-3 gathers each module only while it runs
  // TRL's unwrap_model_for_generation gathers every parameter once around the generate call and removes the ZeRO-3
  // hooks for it (huggingface/trl v1.9.0 trl/models/utils.py L139-L148: `deepspeed.zero.GatheredParameters(
  // model.parameters())`, remove_hooks; GRPOConfig ds3_gather_for_generation defaults to True).
  shardedGenerate: 'gather-once',
  name: 'DeepSpeed (with HF models)',
  eagerFp32RmsNorm: true,
  fusedSwiglu: false,
  sdpaExpandsKv: true,
  sdpaGqaUnmasked: true, // the same transformers attention functions as HF_MEMORY
  sdpaDropsSoftcap: true, // the same transformers attention functions as HF_MEMORY
  attnOutputCopy: true,
  fusedQkvView: false,
  loraDropout: false,
  fp32Adapters: true,
  // Under ZeRO-3 on a non-quantized model TRL's trainers pass get_peft_model(autocast_adapter_dtype=False): adapters in
  // the weights' dtype (huggingface/trl@v1.9.0 trl/trainer/sft_trainer.py:1089-1097, since huggingface/trl#6091, v1.7.0).
  zero3AdaptersInWeightDtype: true,
  // At ZeRO 0-2 (no ZeRO-Init) the engine casts every fp16/bf16/fp32 parameter to the bf16 it trains in, adapters
  // included (deepspeedai/DeepSpeed@v0.19.8 deepspeed/runtime/engine.py L1851-L1862 _cast_module_mixed_precision,
  // called from _configure_distributed_model L2077-L2088).
  castsParamsToComputeDtype: true,
  kbitUpcastsToFp32: false, // as HF_MEMORY: TRL's trainers under DeepSpeed (huggingface/trl@v1.9.0 trl/trainer/sft_trainer.py:1127)
  kbitTrainableBf16: true, // as HF_MEMORY (huggingface/trl@v1.9.0 trl/trainer/sft_trainer.py:1127-1130)
  kbitPreparingObjectives: ['orpo', 'simpo'], // as HF_MEMORY (trl/experimental/orpo/orpo_trainer.py:215-264)
  loss: { ...UPCAST_LOSS, chunkedForward: 0, chunkedBackward: 0, fusedLinear: true }, // as HF_MEMORY
  adamImpl: 'fused', // FusedAdam / DeepSpeedCPUAdam
  prefillLogits: 'last',
  kvCache: 'dynamic',
  cudaContextMiB: TORCH_CONTEXT_MIB,
  allocatorSlack: 0.08, // bucketed reduce/gather buffers churn the cache (ZeRO §3.2 fragmentation)
  // DeepSpeedCPUAdam (ZeRO-Offload paper §5) and DeepSpeedCPULion: the engine builds them under offload_optimizer
  // (deepspeed 0.19.8 runtime/engine.py _configure_basic_optimizer); a client optimizer steps with torch on the host.
  vectorHostOptimizers: ['adamw', 'lion'],
  // The offloaded step's host work beyond the update's 28 B a parameter: the fp32 gradient norm, unscale_and_clip_grads,
  // then the fp32-to-16-bit copy of the updated partition (deepspeedai/DeepSpeed v0.17.6 runtime/zero/stage_1_and_2.py
  // step). Measured whole on DeepSpeed's own ZeRO-Offload runs (blogs/zenflow-corebinding, deepspeedai/DeepSpeed@2b68bbc;
  // 2x A100-40GB, 2x EPYC 7742, --bind_cores_to_rank): Qwen2.5-1.5B steps in 1,365 ms offloaded, 240 ms on the GPU, so
  // the host takes 1.125 s for 1.54e9 x 28 B = 38 GB/s of AdamW traffic (100 GB/s is CPU-Adam alone, arXiv:2101.06840).
  hostStepBytesPerS: 38e9,
  // That rate is a bound run's. DeepSpeed's launcher binds cores only under --bind_cores_to_rank (off by default:
  // deepspeed/launcher/runner.py, launch.py set OMP_NUM_THREADS and numactl only then), and torchrun and accelerate
  // launch bind none, so every rank's CPU-Adam OpenMP pool spans the whole host. The same blog and rig time the unbound
  // ZeRO-Offload step beside the bound one (Qwen2.5-3B, two ranks, three runs each): 2,887 ms against 2,497 ms. The
  // whole-step ratio is applied to the host step (the GPU's share of the 3B step is not given; a lower bound on the
  // host step's slowdown). deepspeedai/DeepSpeed#7474 measures 3,084 against 2,383 ms on the same model.
  hostStepUnboundShare: 2497 / 2887,
  // The rig's physical cores: 2x EPYC 7742, 64 cores each (the blog's "Test environment",
  // https://github.com/deepspeedai/DeepSpeed/blob/master/blogs/zenflow-corebinding/README.md). DeepSpeedCPUAdam splits
  // each tile of the update over an OpenMP parallel-for (Adam_Optimizer::Step_AVX,
  // https://github.com/deepspeedai/DeepSpeed/blob/v0.14.2/csrc/includes/cpu_adam.h), and --bind_cores_to_rank gives each
  // rank its share of the physical cores with OMP_NUM_THREADS set to it (docs/_tutorials/zero-offload.md "CPU Adam perf
  // tuning"): the rate is this many cores' (TimeOptions.hostCores).
  hostStepCores: 128,
  deepspeedOptimizer: true, // fp32 master + m + v, and an fp32 gradient partition for the update
  // The fp32 gradients exist only in the step (deepspeedai/DeepSpeed v0.19.8, the HF_PINS release, from its PyPI
  // sdist): ZeRO-3 keeps the gradient partitions in grads_in_partition's grad_partitions_flat_buffer in the
  // gradient_accumulation_dtype, which is the bf16/fp16 model dtype unless data_types.grad_accum_dtype is set
  // (runtime/engine.py get_data_types), and casts one sub-group at a time in _prepare_fp32_grad_for_sub_group
  // (self.flatten(...).to(fp32)), freeing it after that sub-group's step (zero/stage3.py); sub_group_size defaults
  // to 1e9 (zero/config.py). ZeRO-1/2 cast each group's flat partition in step() and set .grad = None after
  // _optimizer_step (zero/stage_1_and_2.py).
  fp32GradsInStep: { subGroupElements: 1e9 },
  // ZeRO-3 with offload_optimizer allocates grad_partitions_flat_buffer on self.device, the CPU when the optimizer is
  // offloaded (pinned only under offload_optimizer.pin_memory, whose default is false before v0.19.5,
  // deepspeedai/DeepSpeed#8207), and partition_grads copies each reduced partition into it (zero/stage3.py, v0.19.8).
  // ZeRO-1/2's offload path is not read here: their gradients stay counted on the GPU.
  hostGrads: { offload: ['optimizer', 'optimizer+params'], zero: [3] },
  // ZeRO-1/2/3 reduce every gradient bucket in communication_data_type, which the configs vramplan writes leave
  // unset: the engine's default is the bf16/fp16 it trains in, fp32 without either (deepspeedai/DeepSpeed v0.19.8
  // deepspeed/runtime/engine.py communication_data_type L1719-L1730; zero/stage_1_and_2.py L614 and
  // gradient_reduction_w_predivide L1485-L1494, zero/stage3.py L475 and __avg_scatter_contiguous_grads L1864-L1871).
  gradReduce: { unsharded: 'compute', sharded: 'compute' },
  gatheredLayers: 2, // stage3_prefetch_bucket_size ~ one to two layers
  // deepspeed.initialize partitions a 4-bit model every rank loaded whole onto its GPU (BNB_4BIT_LOADS_WHOLE).
  loadsWholeBeforeSharding: BNB_4BIT_LOADS_WHOLE,
  // transformers/PEFT load 4/8-bit weights through bitsandbytes.
  quantFormat: 'bnb',
  int4QuantFormat: 'bnb',
  fusedKernels: false,
  // HF models under DeepSpeed run the same transformers 5.x grouped_mm experts and PEFT ParamWrapper (as HF_MEMORY).
  moeDispatch: 'grouped',
  moeDense: LLAMA4_TEXT_MOE,
  expertAdapters: 'param-wrapper',
  peftV5Remap: true, // as HF_MEMORY: PEFT 0.21.2's remap of v4-style targets on transformers 5 MoE models
  unquantizedExperts: HF_BNB_WEIGHTS, // as HF_MEMORY: transformers 5's bnb integration quantizes nn.Linear only
  torchGroupedMm: { loraCalls: 0, rowPasses: HF_GROUPED_EXPERTS_ROW_PASSES }, // as HF_MEMORY
  moeLoopTraffic: HF_MOE_LOOP_TRAFFIC, // as HF_MEMORY: transformers 4.x's per-expert loop
  loraPath: PEFT_LORA_PATH, // as HF_MEMORY: PEFT's adapters
  eagerPasses: HF_EAGER_PASSES, // as HF_MEMORY: transformers' eager modules
  // DeepSpeed clips at gradient_clipping (the Trainer writes max_grad_norm, 1.0, for "auto"): get_grad_norm_direct
  // takes each 16-bit partition gradient's norm through an fp64 copy (g.data.double(): read 2 B, write 8, the norm
  // reads 8), then unscale_and_clip_grads scales the fp32 partition gradients with mul_(1. / combined_scale), clipped or
  // not (deepspeedai/DeepSpeed v0.12.4 and v0.14.2 deepspeed/runtime/zero/stage_1_and_2.py; ZeRO-3's stage3.py
  // get_grad_norm_direct and _unscale_and_clip_gradients the same; unchanged at 38327e07f).
  gradClip: { normRead: 'grad', normCopyBytes: 16, scalePasses: 2 },
  expertParallel: false, // DeepSpeed-MoE's expert parallelism covers its own deepspeed.moe layers, not HF's
  zeroHooks: DEEPSPEED_HOOKS,
  zero2BucketReduce: DEEPSPEED_ZERO2_BUCKETS,
  source: 'https://deepspeed.readthedocs.io/en/latest/memory.html',
};
