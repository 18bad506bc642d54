/** What the unsloth engine really allocates: unsloth's memory profile (core/memory reads it). */
import { UNSLOTH_GENERATE_LINEAR, UNSLOTH_LORA_PATH } from './lora-path.js';
import { UNSLOTH_GENERATE_DECODE } from './generate-decode.js';
import { TORCH_CONTEXT_MIB, type FrameworkProfile } from '../../memory/framework-profile.js';
import { GiB } from '../../units.js';

// Sources read at unslothai/unsloth 015bdef0 (2026-08-22, README context tables at 0acd1c7e) and
// unslothai/unsloth-zoo ce232d6c (2026-08-20); the files named below are at those commits.

export const UNSLOTH_MEMORY: FrameworkProfile = {
  id: 'unsloth',
  // Unsloth trains LoRA through PEFT, which calls transformers' enable_input_require_grads under checkpointing.
  inputRequireGrads: true,
  // The launcher writes finetune_vision_layers (true only when images are trained) to FastVisionModel.get_peft_model
  // on a multimodal checkpoint; get_peft_regex keeps no one-off projector linear (model/trainable.ts LoraReach).
  loraReach: { tower: 'with-images', outer: 'block-leaf' },
  // from_pretrained resolves the model name through models/mapper.py (loader_utils.py __get_model_name:
  // MAP_TO_UNSLOTH_16bit, or FLOAT_TO_INT_MAPPER under load_in_4bit) to Unsloth's re-exports of these Phi
  // checkpoints, whose attention and MLP keep q/k/v and gate/up apart: unsloth/Phi-3-medium-4k-instruct logs "Fast
  // Mistral patching", unsloth/Phi-3.5-mini-instruct and unsloth/phi-4 "Fast Llama patching", each with trainable
  // parameters a pair per role gives (65,536,000, 29,884,416 and 65,536,000 at r 16 on all seven roles;
  // unslothai/notebooks@bdda2ef nb/Phi_3_Medium-Conversational, Phi_3.5_Mini-Conversational, Phi_4-Conversational).
  // Phi-3-mini-4k is the same mapper block and release as the medium (assumed: no notebook log). Mapper entries at
  // unslothai/unsloth@015bdef unsloth/models/mapper.py L187-L201, L322-L324, L636-L639.
  perRoleReexports: [
    'microsoft/phi-3-mini-4k-instruct',
    'microsoft/phi-3-medium-4k-instruct',
    'microsoft/phi-3.5-mini-instruct',
    'microsoft/phi-4',
  ],
  untiesEmbeddings: false,
  embedTargetsTrainFully: true, // unsloth get_peft_model: embed_tokens/lm_head -> modules_to_save in fp32 (continued-pretraining docs)
  gradsPersist: false, // optimizer.zero_grad(set_to_none=True) after each step
  bnbSavesInput: true, // bitsandbytes autograd/_functions.py MatMul4Bit.forward
  bnbQuantizesAll: false,
  chunkedLossCompiles: false,
  fsdpRootUnit: true,
  name: 'Unsloth',
  eagerFp32RmsNorm: false, // Triton fast_rms_layernorm saves input and r only
  fusedSwiglu: true, // Triton swiglu_fg_kernel: saves e and g
  // utils/attention_dispatch.py: flash-attn when installed, else xformers (select_attention_backend). The
  // xformers branch expands GQA keys/values to every query head and reshapes them (copies) when training;
  // flash-attn takes GQA natively (the estimate's `flash`). Both outputs come back (batch, seq, heads, dim)
  // and are reshaped as views that LoRA_W saves as o_proj's input: no contiguous copy.
  sdpaExpandsKv: true,
  attnOutputCopy: false,
  // kernels/fast_lora.py LoRA_MLP: save_for_backward(..., X, e, g); backward recomputes h into DW
  // (swiglu_DWf_DW_dfg_kernel(DW, e, g)) and writes dX into X (torch.matmul(df, upW.t(), out = X)).
  loraMlpInPlace: true,
  fusedQkvView: false,
  loraDropout: false, // examples use lora_dropout = 0 (required for the fast path)
  // unsloth_zoo prepare_model_for_training casts lora_A/lora_B to fp32 and leaves frozen parameters (embeddings,
  // lm_head, norms) in the load dtype (https://pypi.org/project/unsloth-zoo/2026.10.9/ training_utils.py:404-455).
  fp32Adapters: true,
  kbitUpcastsToFp32: false,
  // models/llama.py CausalLM_fast_forward calls unsloth_fused_ce_loss unless UNSLOTH_RETURN_LOGITS=1; it
  // (unsloth_zoo fused_losses/cross_entropy_loss.py UnslothFusedLoss) runs torch.func.grad_and_value chunk by
  // chunk, compiled, and writes grad_inputs (hidden-sized) in forward; get_chunk_size caps a chunk's fp32
  // logits at target_gb = min(half the free memory, 4 GiB). Per chunk token the 16-bit logits and their
  // 16-bit gradient (the matmul backward's input) are alive: chunkedForward/Backward below.
  loss: { upcast: false, chunkedForward: 4, chunkedBackward: 4, fusedChunkFp32Bytes: 4 * GiB },
  adamImpl: 'foreach',
  prefillLogits: 'last',
  kvCache: 'dynamic',
  cudaContextMiB: TORCH_CONTEXT_MIB,
  allocatorSlack: 0.03, // sets PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (meta-pytorch/torchtune#1185 for the effect)
  deepspeedOptimizer: false,
  gatheredLayers: 2,
  // Unsloth loads 4/8-bit weights through bitsandbytes; its Triton kernels are fused whatever --compile says.
  quantFormat: 'bnb',
  int4QuantFormat: 'bnb',
  fusedKernels: true,
  // unsloth_zoo moe_utils select_moe_backend: "grouped_mm" (torch._grouped_mm) by default, else unsloth's Triton
  // grouped GEMM (unsloth/kernels/moe/grouped_gemm, @015bdef); LoRA on experts as separate grouped matmuls.
  moeDispatch: 'grouped',
  // The grouped_mm backend (unsloth_zoo moe_utils: chosen when a probe torch._grouped_mm call succeeds, which it
  // does wherever PyTorch has its fallback) runs each adapted projection's LoRA as two grouped matmuls of its own,
  // X·A then ·B (_apply_lora_grouped_mm, native_moe_grouped_mm).
  torchGroupedMm: { loraCalls: 2 },
  // transformers 5's bnb integration quantizes only nn.Linear; unsloth_zoo quantizes the fused expert parameters to
  // Params4bit and, on the grouped_mm backend, rebuilds one projection's bf16 stack on demand for each grouped matmul
  // and again in backward (_GroupedMMRecompute) (unslothai/unsloth-zoo@ce232d6c unsloth_zoo/temporary_patches/
  // moe_utils_bnb4bit.py forward_moe_backend_bnb4bit, moe_utils.py _gate_up_provider). gpt-oss's 4-bit checkpoints
  // keep per-expert Linear4bit (gate_up_projs.<i>: unslothai/unsloth@015bdef unsloth/models/_utils.py
  // get_moe_target_modules).
  kbitExpertStacks: { except: ['gpt_oss'] },
  // No peftV5Remap: peft 0.21.2 on transformers 5.5.0 (launch.ts UNSLOTH_PINS) calls PEFT's remap, but Unsloth
  // wraps it at import to return when target_parameters is set (unsloth 2026.10.9 wheel import_fixes.py:9466-9504),
  // which get_moe_target_parameters sets for any gate/up/down target on fused experts (models/_utils.py:11023-11109):
  // gate_up_proj at rank r, no router adapter, dense and shared MLP linears keep theirs, gate or up alone allowed.
  // PEFT's ParamWrapper creates those target_parameters adapters (peft 0.21.2 tuners/lora/layer.py
  // ParamWrapper.update_layer: one rank-r pair per expert, E·r·(in + out), gate_up_proj one parameter), which
  // unsloth_zoo's patched ParamWrapper.forward hands the experts' grouped matmuls as lora_A (E·r, in) / lora_B
  // (out, E·r) instead of building ΔW (unsloth_zoo 2026.10.9 wheel temporary_patches/moe_utils.py
  // _extract_lora_from_wrapper:2957): no expertAdapters.
  // gpt-oss's 4-bit per-expert gate_up_projs.<i> Linear4bit (get_moe_target_modules) get lora.Linear(hidden, 2I)
  // each: the same count.
  expertLoraCount: 'param-wrapper',
  // Unsloth's fused LoRA matmuls (lora-path.ts).
  loraPath: UNSLOTH_LORA_PATH,
  // Data parallel only (DDP, FSDP2: multi-gpu.ts); no expert parallelism.
  expertParallel: false,
  // unsloth 2026.10.9 wheel models/_ddp_defaults.py:298-306: full fine-tunes get gradient_as_bucket_view=True.
  ddpFullGradViews: true,
  // DDP reduces each gradient in its own dtype (fp32 adapters, 16-bit full weights: 'grad'); native FSDP2
  // reduces in float32 (MixedPrecisionPolicy reduce_dtype, unsloth 2026.10.9 wheel models/fsdp2_native.py:68-70, 1556).
  gradReduce: { unsharded: 'grad', sharded: 4 },
  // Its sharded layouts wrap with torch's fully_shard (unsloth 2026.10.9 wheel models/fsdp2_native.py:1556): FSDP2's
  // copies on the compute stream (time/fsdp2-copies.ts; none at --zero 0, DDP).
  fsdp2: () => true,
  // Its layer checkpoint is an autograd.Function applied at the layer's call site that runs the layer under no_grad and
  // again under enable_grad in backward (Unsloth_Offloaded_Gradient_Checkpointer, unslothai/unsloth-zoo@ce232d6c
  // unsloth_zoo/gradient_checkpointing.py): reentrant, so FSDP2 gathers each unit for the recompute too.
  reentrantCheckpoint: true,
  // Native FSDP2 shards in Trainer.__init__ a model every rank loaded whole onto its GPU; per-rank chunked loading
  // is opt-in (UNSLOTH_FSDP2_SHARDED_LOAD=1, 16-bit checkpoints only): unsloth 2026.10.9 wheel
  // models/fsdp2_load.py:4-26.
  loadsWholeBeforeSharding: true,
  // The launcher's SFTConfig writes max_grad_norm 1.0 (launch/common.ts MAX_GRAD_NORM), and Unsloth's trainers are
  // TRL's over transformers' Trainer, whose _inner_training_loop Unsloth re-executes from its own source with only
  // the banner, the TPU check and a compile-cache reset changed (unsloth 015bdef0 models/llama.py L2855-L2946): the
  // loop still calls accelerator.clip_grad_norm_ when args.max_grad_norm > 0, torch's clip_grad_norm_ as HF_MEMORY
  // prices it (a _foreach_norm read of each gradient, a _foreach_mul_ scaling, clipped or not).
  gradClip: { normRead: 'stepped', normCopyBytes: 0, scalePasses: 2 },
  source: 'https://github.com/unslothai/unsloth',
  // models/llama.py from_pretrained(fast_inference=True): load_vllm, then convert_vllm_to_huggingface builds the
  // trained model on vLLM's own tensors and sets `llm.shared_weights = True`: one copy of the weights.
  rolloutSharesWeights: true,
  // UNSLOTH_VLLM_STANDBY (--rollout-sleep): unsloth 7cdad0c (tag November-2025) models/rl_replacements.py wraps each
  // self.llm.generate in llm.wake_up() and llm.sleep(); unsloth-zoo 128054c unsloth_zoo/vllm_utils.py patches
  // vLLM's CuMemAllocator so that sleep ends with gc.collect() and torch.cuda.empty_cache(), and wake_up starts
  // with delete_memory() (torch.cuda.empty_cache(), gc.collect()): two of each per generation batch.
  rolloutSleepCycle: { gcCollects: 2, emptyCaches: 2 },
  // No grpoOldLogprobs: Unsloth's GRPOConfig turns TRL's vllm_importance_sampling_correction off by default ("forcing
  // it on for vLLM is a wasted forward"; unsloth 2026.10.9 wheel models/rl.py, models/rl_replacements.py), so a
  // vLLM rollout runs no old log-probs forward.
  // FastLanguageModel.from_pretrained(gpu_memory_utilization = 0.5),
  // https://github.com/unslothai/unsloth/blob/main/unsloth/models/loader.py
  rolloutMemory: 0.5,
  // Unsloth's GRPO trainer is TRL's GRPOTrainer source with its replacements: the generation batch is padded to its
  // longest and split as in TRL (FrameworkProfile.grpoPadsGenerationBatch), and grpo_accumulated_loss runs the policy
  // over the micro-batch's input_ids at that width, the prompts' left padding only moved to the right
  // (unslothai/unsloth-zoo@ce232d6c unsloth_zoo/rl_replacements.py `bsz, qlen = input_ids.shape`, left_pack_padding).
  grpoPadsGenerationBatch: true,
  // unsloth_zoo's compiler replaces PEFT's lora.Linear.forward (patch_lora_forwards, COMPILED_LORA_FORWARD): each
  // adapter casts its two fp32 factors to the base output's dtype, multiplies x by A and folds the scaled B product
  // into the base output with one addmm: 4 ops (unslothai/unsloth-zoo@ce232d6c unsloth_zoo/compiler.py). Builds
  // before unslothai/unsloth-zoo@ad72ed54 (2025-12-07) left the casts to autocast's cache: 2.
  loraForwardOps: 4,
  // That rewrite keeps PEFT's adapter loop and the dropout's module call and adds its own guards (the base layer's
  // dtype check, torch.is_autocast_enabled()): its measured host time beyond those 4 ops, at every decode step.
  loraForwardHost: UNSLOTH_GENERATE_LINEAR,
  // FastLlamaModel's own generate decode for Llama, Mistral and Qwen2 (generate-decode.ts).
  generateDecode: UNSLOTH_GENERATE_DECODE,
};
