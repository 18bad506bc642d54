/**
 * What each software stack really allocates, kept as data. Every field is a mechanism (which tensors a
 * kernel saves for backward, which copies a loss makes), not a fudge factor; each cites its source.
 */
import type { Framework } from '../../schema/estimate.js';

export interface FrameworkProfile {
  id: Framework;
  name: string;
  /** RMSNorm runs in eager fp32 (saves an fp32 copy of its input) rather than a fused kernel. */
  eagerFp32RmsNorm: boolean;
  /** SwiGLU runs as a fused kernel that saves gate and up outputs only (no activation output). */
  fusedSwiglu: boolean;
  /** GQA keys/values are expanded to all query heads before SDPA (repeat_kv) and saved so. */
  sdpaExpandsKv: boolean;
  /** The attention output is copied contiguous before o_proj (transpose(1,2).contiguous()). */
  attnOutputCopy: boolean;
  /**
   * One fused qkv projection whose value is passed to SDPA as a view (MHA/MQA: no expand copy): the saved
   * value keeps the whole qkv output alive, q and k parts included.
   */
  fusedQkvView: boolean;
  /** Dropout in front of each LoRA A matrix (a copy of the input plus a mask). */
  loraDropout: boolean;
  /** LoRA adapters are kept in fp32 whatever the base dtype. */
  fp32Adapters: boolean;
  /** Non-quantized parameters of a k-bit model are upcast to fp32 before training. */
  kbitUpcastsToFp32: boolean;
  /** k-bit linears run through bitsandbytes MatMul4Bit/8bitLt, which save their input (ctx.tensors = (A, B)). */
  bnbSavesInput: boolean;
  /**
   * bitsandbytes replaces every linear layer, the output layer (lm_head) included, and quantizes from an fp16
   * copy: each dequantized weight comes out fp16 and is cast to the compute dtype (both alive during the cast).
   */
  bnbQuantizesAll: boolean;
  /** --chunked-loss comes with torch.compile of the model (torchtune's memory table: compile + chunked CE). */
  chunkedLossCompiles: boolean;
  /** FSDP keeps the root unit (embeddings, final norm, output layer) unsharded through forward and backward. */
  fsdpRootUnit: boolean;
  /** LoRA targets embed/lm_head train those layers fully (a trainable copy beside the frozen original). */
  embedTargetsTrainFully: boolean;
  /** The output layer is a separate copy even when the checkpoint ties it to the embeddings. */
  untiesEmbeddings: boolean;
  /** Gradients stay allocated from one step to the next (gradient accumulation; zero_grad without set_to_none). */
  gradsPersist: boolean;
  /**
   * Loss path: whether the full-vocabulary logits are upcast to fp32 for the loss (else the 16-bit logits
   * are the only vocabulary-sized tensor), and the bytes per token per vocabulary entry alive at the
   * forward / backward peak with --chunked-loss.
   */
  loss: { upcast: boolean; chunkedForward: number; chunkedBackward: number };
  /** Torch AdamW runs foreach (one full-size temporary of v during step) or fused (none). */
  adamImpl: 'foreach' | 'fused';
  /** Inference: logits for every prompt token ('all') or only the last one ('last'). */
  prefillLogits: 'all' | 'last';
  /** Inference KV cache: grown per token ('dynamic', torch.cat transient) or preallocated ('static'). */
  kvCache: 'dynamic' | 'static' | 'paged-pool';
  /** CUDA context + kernels + library handles seen by nvidia-smi but not by the allocator, MiB. */
  cudaContextMiB: number;
  /** Caching-allocator slack: reserved minus allocated, as a fraction of the peak allocated. */
  allocatorSlack: number;
  /** Optimizer states, master weights and fp32 gradient partitions follow DeepSpeed's layout. */
  deepspeedOptimizer: boolean;
  /** FSDP/ZeRO-3 keeps this many unsharded layers gathered at once (current + prefetched). */
  gatheredLayers: number;
  source: string;
}

// Upcast loss (HF ForCausalLMLoss `logits.float()`, torchtune/torchtitan `.float()` before cross_entropy):
// forward holds the 16-bit logits, an fp32 copy and the fp32 log_softmax output; backward holds
// log_softmax's saved output, the incoming gradient and the input gradient, all fp32 (memory.ts
// UPCAST_BACKWARD_PER_VOCAB; transformers issue #30860 shows the upcast dominating).
const UPCAST_LOSS = { upcast: true };

// PyTorch CUDA context with lazy module loading: ~300 MB + cuBLAS/cuDNN handles and kernels
// (pytorch/pytorch#86509: 287 MB lazy; #107667 ~300 MB); a training process also loads NCCL/cuBLASLt: 500 MiB.
const TORCH_CONTEXT_MIB = 500;
// HF 'Model training anatomy' measures 1343 MiB occupied after the first CUDA op of a Transformers process.
const HF_CONTEXT_MIB = 1343;

export const FRAMEWORKS: Record<Framework, FrameworkProfile> = {
  hf: {
    id: 'hf',
    untiesEmbeddings: false,
    embedTargetsTrainFully: false,
    // Trainer recipes accumulate gradients across micro-batches, and before torch 2.0 model.zero_grad() zeroed
    // them in place instead of freeing them (HF 'Model training anatomy' measures weights + grads + states + activations).
    gradsPersist: true,
    bnbSavesInput: true, // bitsandbytes autograd/_functions.py MatMul4Bit.forward
    bnbQuantizesAll: false,
    chunkedLossCompiles: false,
    fsdpRootUnit: true, // accelerate FSDP auto-wraps decoder layers; the root holds embed_tokens and lm_head
    name: 'Hugging Face transformers + PEFT + TRL/Accelerate',
    eagerFp32RmsNorm: true, // LlamaRMSNorm: hidden_states.to(torch.float32) ... weight * hs.to(input_dtype)
    fusedSwiglu: false, // LlamaMLP: down_proj(act_fn(gate_proj(x)) * up_proj(x))
    sdpaExpandsKv: true, // sdpa_attention_forward: repeat_kv(key, n_rep) before SDPA
    attnOutputCopy: true, // attn_output.transpose(1, 2).contiguous()
    fusedQkvView: false,
    loraDropout: false, // peft LoraConfig lora_dropout default 0.0 -> nn.Identity
    fp32Adapters: true, // peft get_peft_model(autocast_adapter_dtype=True) casts bf16/fp16 adapters to fp32
    kbitUpcastsToFp32: true, // peft prepare_model_for_kbit_training casts non-4/8-bit params to fp32 (TRL calls it)
    // chunked-loss on HF means a fused linear+CE kernel (Liger/CCE): no vocabulary-sized tensor at all.
    loss: { ...UPCAST_LOSS, chunkedForward: 0, chunkedBackward: 0 },
    // TrainingArguments optim default: adamw_torch_fused on recent torch; older adamw_hf stepped per parameter.
    // Neither holds a model-size temporary (torch foreach AdamW would: _foreach_sqrt(exp_avg_sqs)).
    adamImpl: 'fused',
    prefillLogits: 'last', // generate(): logits_to_keep=1 since transformers 4.45
    kvCache: 'dynamic', // DynamicCache: torch.cat per step
    cudaContextMiB: HF_CONTEXT_MIB,
    allocatorSlack: 0.06, // caching allocator without expandable segments: a few % (vllm compressed-tensors #587: 2.3%; ZeRO §3.2)
    deepspeedOptimizer: false,
    gatheredLayers: 2, // FSDP forward_prefetch/backward_prefetch: current + next unit
    source:
      'https://github.com/huggingface/transformers/blob/main/src/transformers/models/llama/modeling_llama.py',
  },
  torchtune: {
    id: 'torchtune',
    untiesEmbeddings: false,
    embedTargetsTrainFully: false,
    gradsPersist: false, // optimizer.zero_grad(set_to_none=True) after each step
    bnbSavesInput: false, // torchao linear_nf4 autograd saves only the NF4 weight
    bnbQuantizesAll: false,
    chunkedLossCompiles: true, // docs: chunked CE is paired with compile=True in the memory table
    fsdpRootUnit: true,
    name: 'torchtune recipes',
    eagerFp32RmsNorm: true, // torchtune RMSNorm: x.float() ... .type_as(x) * scale
    fusedSwiglu: false, // FeedForward: w2(activation(w1(x)) * w3(x))
    sdpaExpandsKv: true, // MultiHeadAttention expands k/v to num_heads before SDPA (2024 releases)
    attnOutputCopy: true, // output.transpose(1, 2).contiguous().view(b, s, -1)
    fusedQkvView: false,
    loraDropout: false, // lora_dropout 0.0 in the llama3_2 LoRA configs
    fp32Adapters: false, // adapters created in the model dtype (bf16)
    kbitUpcastsToFp32: false, // torchao NF4Tensor base, bf16 everything else
    // CEWithChunkedOutputLoss (8 chunks): the bf16 logit chunks stay alive until backward. Chunked loss comes
    // with compile (chunkedLossCompiles), and the recipes compile the loss per chunk (training.compile_loss):
    // Inductor fuses the fp32 upcast into the log-softmax reduction, so no fp32 chunk is materialised; in
    // backward one chunk's bf16 gradient exists at a time (the recipe `del logits` before backward).
    loss: { ...UPCAST_LOSS, chunkedForward: 2, chunkedBackward: 2 + 2 / 8 },
    adamImpl: 'fused', // the recipes' and vramplan's configs set torch.optim.AdamW fused: True
    prefillLogits: 'all', // generation recipe runs the full prompt through the output projection
    kvCache: 'static', // setup_caches(batch_size, max_seq_len) preallocates k and v
    cudaContextMiB: TORCH_CONTEXT_MIB,
    allocatorSlack: 0.06,
    deepspeedOptimizer: false,
    gatheredLayers: 2,
    source: 'https://pytorch.org/torchtune/stable/tutorials/memory_optimizations.html',
  },
  litgpt: {
    id: 'litgpt',
    untiesEmbeddings: true, // litgpt/model.py GPT: lm_head and transformer.wte are separate modules, never tied
    embedTargetsTrainFully: false,
    gradsPersist: false, // optimizer.zero_grad(set_to_none=True) after each step
    bnbSavesInput: true, // bitsandbytes autograd/_functions.py MatMul4Bit.forward
    // Fabric's BitsandbytesPrecision (lightning@71aed75, pinned by lit-gpt 8641822) swaps torch.nn.Linear for
    // its 4-bit class in init_module, lm_head included (LitGPT passes no ignore_modules), and
    // _Linear4bit._quantize_weight quantizes weight.to(dtype=torch.half).
    bnbQuantizesAll: true,
    chunkedLossCompiles: false,
    fsdpRootUnit: true,
    name: 'Lightning LitGPT',
    eagerFp32RmsNorm: true, // litgpt RMSNorm: x.float() ... .to(dtype)
    fusedSwiglu: false, // LLaMAMLP: silu(fc_1(x)) * fc_2(x)
    sdpaExpandsKv: true, // k.expand(...).reshape(...) before SDPA
    attnOutputCopy: true, // y.transpose(1, 2).reshape(B, T, C)
    // lit_gpt/model.py CausalSelfAttention: qkv.view().permute().split(); v.reshape() is a view when no
    // expand happens (n_query_groups == n_head or 1), and SDPA saves it (commit 8641822, the resource tables').
    fusedQkvView: true,
    loraDropout: true, // finetune/lora.py lora_dropout = 0.05
    fp32Adapters: false, // bf16-true precision: everything bf16
    kbitUpcastsToFp32: false,
    // lm_head applied in 128-token chunks (finetune/lora.py lm_head_chunk_size=128), then Fabric's bf16-true
    // HalfPrecision.convert_output casts the returned chunks to the default dtype, fp32 (lightning
    // fabric/plugins/precision/half.py); the fp32 chunks stay referenced by the loop's `logits` and each
    // chunk's fp32 log_softmax is saved (utils.chunked_cross_entropy): 4 + 4 B per vocabulary entry in
    // forward; in backward the fp32 input gradients replace the log_softmax outputs chunk by chunk.
    loss: { ...UPCAST_LOSS, chunkedForward: 4 + 4, chunkedBackward: 4 + 4 },
    adamImpl: 'foreach',
    prefillLogits: 'all', // GPT.forward projects every prompt position
    kvCache: 'static', // set_kv_cache(max_seq_length = prompt + max_new_tokens)
    cudaContextMiB: TORCH_CONTEXT_MIB,
    allocatorSlack: 0.06,
    deepspeedOptimizer: false,
    gatheredLayers: 2,
    source: 'https://github.com/Lightning-AI/litgpt',
  },
  unsloth: {
    id: 'unsloth',
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
    sdpaExpandsKv: false, // flash/xformers path with native GQA
    attnOutputCopy: true,
    fusedQkvView: false,
    loraDropout: false, // examples use lora_dropout = 0 (required for the fast path)
    fp32Adapters: true, // adapters fp32 under fp16/bf16 autocast
    kbitUpcastsToFp32: false, // keeps embeddings / lm_head in fp16/bf16
    // Fast_CrossEntropyLoss: 16-bit logits kept, gradient written in place (no fp32 copy).
    loss: { upcast: false, chunkedForward: 0, chunkedBackward: 0 },
    adamImpl: 'foreach',
    prefillLogits: 'last',
    kvCache: 'dynamic',
    cudaContextMiB: TORCH_CONTEXT_MIB,
    allocatorSlack: 0.03, // sets PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True (torchtune #1185 for the effect)
    deepspeedOptimizer: false,
    gatheredLayers: 2,
    source: 'https://github.com/unslothai/unsloth',
  },
  deepspeed: {
    id: 'deepspeed',
    untiesEmbeddings: false,
    embedTargetsTrainFully: false,
    gradsPersist: true, // ZeRO keeps the (partitioned) gradient buffers across micro-batches
    bnbSavesInput: true, // bitsandbytes autograd/_functions.py MatMul4Bit.forward
    bnbQuantizesAll: false,
    chunkedLossCompiles: false,
    fsdpRootUnit: false, // ZeRO-3 gathers each module only while it runs
    name: 'DeepSpeed (with HF models)',
    eagerFp32RmsNorm: true,
    fusedSwiglu: false,
    sdpaExpandsKv: true,
    attnOutputCopy: true,
    fusedQkvView: false,
    loraDropout: false,
    fp32Adapters: true,
    kbitUpcastsToFp32: true,
    loss: { ...UPCAST_LOSS, chunkedForward: 0, chunkedBackward: 0 },
    adamImpl: 'fused', // FusedAdam / DeepSpeedCPUAdam
    prefillLogits: 'last',
    kvCache: 'dynamic',
    cudaContextMiB: TORCH_CONTEXT_MIB,
    allocatorSlack: 0.08, // bucketed reduce/gather buffers churn the cache (ZeRO §3.2 fragmentation)
    deepspeedOptimizer: true, // fp32 master + fp32 grad partition + m + v: 16 B/param sharded (memory.rst)
    gatheredLayers: 2, // stage3_prefetch_bucket_size ~ one to two layers
    source: 'https://deepspeed.readthedocs.io/en/latest/memory.html',
  },
  vllm: {
    id: 'vllm',
    untiesEmbeddings: false,
    embedTargetsTrainFully: false,
    gradsPersist: false, // optimizer.zero_grad(set_to_none=True) after each step
    bnbSavesInput: false,
    bnbQuantizesAll: false,
    chunkedLossCompiles: false,
    fsdpRootUnit: false,
    name: 'vLLM',
    eagerFp32RmsNorm: false,
    fusedSwiglu: true,
    sdpaExpandsKv: false,
    attnOutputCopy: false,
    fusedQkvView: false,
    loraDropout: false,
    fp32Adapters: false,
    kbitUpcastsToFp32: false,
    loss: { upcast: false, chunkedForward: 0, chunkedBackward: 0 },
    adamImpl: 'fused',
    prefillLogits: 'last',
    kvCache: 'paged-pool', // preallocates gpu_memory_utilization x capacity minus weights and activations
    cudaContextMiB: TORCH_CONTEXT_MIB,
    allocatorSlack: 0.02,
    deepspeedOptimizer: false,
    gatheredLayers: 0,
    source: 'https://docs.vllm.ai/en/latest/configuration/conserving_memory.html',
  },
  torchtitan: {
    id: 'torchtitan',
    untiesEmbeddings: false,
    embedTargetsTrainFully: false,
    gradsPersist: false, // optimizer.zero_grad(set_to_none=True) after each step
    bnbSavesInput: false,
    bnbQuantizesAll: false,
    chunkedLossCompiles: true,
    fsdpRootUnit: true, // fully_shard(model) root: tok_embeddings, norm, output; not resharded after forward
    name: 'torchtitan (FSDP2)',
    eagerFp32RmsNorm: false, // torch.nn.RMSNorm / fused rmsnorm, compiled in the benchmarks
    fusedSwiglu: false, // FeedForward w2(silu(w1(x)) * w3(x)) in eager
    sdpaExpandsKv: true, // repeat_kv before SDPA in models/llama/model.py
    attnOutputCopy: true,
    fusedQkvView: false,
    loraDropout: false,
    fp32Adapters: false,
    kbitUpcastsToFp32: false,
    loss: { ...UPCAST_LOSS, chunkedForward: 2, chunkedBackward: 2 },
    adamImpl: 'fused', // optimizer.implementation = "fused" default
    prefillLogits: 'last',
    kvCache: 'dynamic',
    cudaContextMiB: TORCH_CONTEXT_MIB,
    allocatorSlack: 0.03, // run_train.sh exports PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
    deepspeedOptimizer: false,
    gatheredLayers: 2, // FSDP2 implicit prefetch: current + next TransformerBlock
    source: 'https://github.com/pytorch/torchtitan/blob/main/docs/performance.md',
  },
};
