/** What the torchtune engine really allocates: torchtune's memory profile (core/memory reads it). */
import { TORCHTUNE_LORA_PATH } from './lora-path.js';
import {
  UPCAST_LOSS,
  TORCH_CONTEXT_MIB,
  type FrameworkProfile,
} from '../../memory/framework-profile.js';

export const TORCHTUNE_MEMORY: FrameworkProfile = {
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
  // phi3_hf_to_tune splits qkv_proj into q/k/v_proj and gate_up_proj into w1/w3, each its own LoRALinear
  // (torchtune v0.6.1 models/phi3/_convert_weights.py, _component_builders.py lora_phi3_self_attention).
  loraPerRole: true,
  // Adapters created in the model dtype (bf16): the model is built under training.set_default_dtype(self._dtype)
  // (recipes/lora_finetune_single_device.py:431 at v0.6.1), so torch AdamW's states are bf16 too.
  fp32Adapters: false,
  kbitUpcastsToFp32: false, // torchao NF4Tensor base, bf16 everything else
  // CEWithChunkedOutputLoss (8 chunks): the bf16 logit chunks stay alive until backward. Chunked loss comes
  // with compile (chunkedLossCompiles), and the recipes compile the loss per chunk (training.compile_loss):
  // Inductor fuses the fp32 upcast into the log-softmax reduction, so no fp32 chunk is materialised; in
  // backward one chunk's bf16 gradient exists at a time (the recipe `del logits` before backward).
  // PPO (recipes/ppo_full_finetune_single_device.py:1081-1092 at v0.6.1): pi_logits = policy(query_responses)
  // (TransformerDecoder.unembed: self.output(h).float(), modules/transformer.py:659), sliced to the completion by
  // rlhf.truncate_sequence_for_logprobs, then rlhf.logits_to_logprobs (log_softmax(logits / temperature) and
  // gather, rlhf/sequence_processing.py:84); `del pi_logits` before the value model runs.
  loss: { ...UPCAST_LOSS, chunkedForward: 2, chunkedBackward: 2 + 2 / 8, ppoSlicedLogprobs: true },
  adamImpl: 'fused', // the recipes' and vramplan's configs set torch.optim.AdamW fused: True
  prefillLogits: 'all', // generation recipe runs the full prompt through the output projection
  kvCache: 'static', // setup_caches(batch_size, max_seq_len) preallocates k and v
  cudaContextMiB: TORCH_CONTEXT_MIB,
  allocatorSlack: 0.06,
  deepspeedOptimizer: false,
  // Optimizer offload on one GPU (https://github.com/pytorch/ao/blob/v0.10.0/torchao/prototype/low_bit_optim/cpu_offload.py): each trained parameter
  // gets pinned host copies of itself and its gradient (torch.empty_like(p, device="cpu", pin_memory=True), and
  // p_host.grad alike); the gradients stay on the GPU unless offload_gradients, which the launcher leaves False.
  hostStepCopies: [0],
  // fsdp_cpu_offload: shard_model sets `fsdp_kwargs["offload_policy"] = CPUOffloadPolicy()` (torchtune v0.6.1
  // training/_distributed.py), whose foreach_reduce copies each bf16 gradient shard to the host for the host step
  // (pytorch/pytorch@010ae4a89516fa3be548ab16dff711414ec12d0b torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py);
  // optimizer_in_bwd steps and frees each one as it lands (its _post_accumulate_grad_hooks run right after).
  hostGradShards: ['optimizer+params'],
  gatheredLayers: 2,
  // torchtune QLoRA uses torchao NF4 (https://pytorch.org/torchtune/stable/tutorials/qlora_finetune.html).
  quantFormat: 'torchao',
  int4QuantFormat: 'torchao',
  fusedKernels: false,
  // torchtune/modules/moe/experts.py GroupedExperts / LoRAGroupedExperts: torch.split by expert, then
  // `for expert_idx, x_expert in enumerate(x)` with per-expert matmuls (@1a15a23, the 0.6 line).
  moeDispatch: 'loop',
  // The adapters run beside each adapted linear, unfused (lora-path.ts).
  loraPath: TORCHTUNE_LORA_PATH,
  expertParallel: false,
  // The distributed recipes wrap each layer in torch's checkpoint_wrapper (training.set_activation_checkpointing)
  // before shard_model's fully_shard, so the recompute runs on the backward's gather (pytorch/torchtune v0.6.1
  // recipes/full_finetune_distributed.py L578 then L590; lora_finetune_distributed.py L468 then L479).
  recomputeInUnit: true,
  // shard_model calls FSDP2's fully_shard on each layer and the model (pytorch/torchtune v0.6.1
  // torchtune/training/_distributed.py shard_model, `from torch.distributed._composable.fsdp import fully_shard`).
  fsdp2: () => true,
  source: 'https://pytorch.org/torchtune/stable/tutorials/memory_optimizations.html',
};
