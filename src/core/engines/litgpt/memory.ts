/** What the litgpt engine really allocates: litgpt's memory profile (core/memory reads it). */
import { LITGPT_LORA_PATH } from './lora-path.js';
import {
  UPCAST_LOSS,
  TORCH_CONTEXT_MIB,
  type FrameworkProfile,
} from '../../memory/framework-profile.js';

export const LITGPT_MEMORY: FrameworkProfile = {
  id: 'litgpt',
  untiesEmbeddings: true, // litgpt/model.py GPT: lm_head and transformer.wte are separate modules, never tied
  // convert_hf_checkpoint.py copy_weights_gemma_3 (litgpt 0.5.13) skips vision_tower and multi_modal_projector
  // weights ("For Gemma3 models only the text component is supported"): GPT is the text model alone.
  dropsVisionTower: true,
  // LoRAQKVLinear gives each enabled role (lora_query/key/value) its own r rows of lora_A and its own slice of
  // lora_B; the MLP's fc_1 / fc_2 are separate LoRALinears (Lightning-AI/litgpt v0.5.13 litgpt/lora.py).
  loraPerRole: true,
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
  // bf16-true precision: everything bf16, the adapters built under fabric.init_module (litgpt/finetune/lora.py:210
  // at v0.5.13), so torch AdamW's states are bf16 too (:231 instantiate_torch_optimizer without --quantize).
  fp32Adapters: false,
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
  // LitGPT --quantize bnb.* goes through bitsandbytes.
  quantFormat: 'bnb',
  int4QuantFormat: 'bnb',
  fusedKernels: false,
  // litgpt/model.py LLaMAMoE.forward: `for mask, expert in zip(masks, self.experts)` with torch.where per expert.
  moeDispatch: 'loop',
  // The adapters run beside each adapted linear, unfused (lora-path.ts).
  loraPath: LITGPT_LORA_PATH,
  expertParallel: false,
  source: 'https://github.com/Lightning-AI/litgpt',
};
