/** What the unsloth engine really allocates: unsloth's memory profile (core/memory reads it). */
import { TORCH_CONTEXT_MIB, type FrameworkProfile } from '../../memory/framework-profile.js';

export const UNSLOTH_MEMORY: FrameworkProfile = {
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
  // Unsloth loads 4/8-bit weights through bitsandbytes; its Triton kernels are fused whatever --compile says.
  quantFormat: 'bnb',
  int4QuantFormat: 'bnb',
  fusedKernels: true,
  // unsloth_zoo moe_utils select_moe_backend: "grouped_mm" (torch._grouped_mm) by default, else unsloth's Triton
  // grouped GEMM (unsloth/kernels/moe/grouped_gemm, @015bdef); LoRA on experts as separate grouped matmuls.
  moeDispatch: 'grouped',
  expertParallel: false, // open-source Unsloth runs one process (profile maxDp 1)
  source: 'https://github.com/unslothai/unsloth',
};
