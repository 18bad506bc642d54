/** What the torchtitan engine really allocates: torchtitan's memory profile (core/memory reads it). */
import {
  UPCAST_LOSS,
  TORCH_CONTEXT_MIB,
  type FrameworkProfile,
} from '../../memory/framework-profile.js';
import { TORCHTITAN_LORA_PATH } from './lora-path.js';

// torchtitan's LocalTokenDispatcher (expert_parallel_degree 1; pytorch/torchtitan@b5bcd76c
// torchtitan/models/common/token_dispatcher.py) moves each routed row (R = tokens x top-k rows of the hidden size, in
// units of a bf16 row) outside the grouped matmuls: `dispatch` gathers `x_TD[token_indices_experts_sorted_N]` (read,
// write: 2); `combine` casts the expert output to float32 (read 1, write 2), multiplies it by the routing scores (read
// 2, write 2), casts it back (read 2, write 1) and scatter-adds it into `zeros_like(x_TD)` (read 1, write 1, counted
// as index_put_'s row path, which PyTorch's _scatter_via_index_put takes for the zero-stride expanded index of
// torchtitan/ops/scatter_add.py deterministic_scatter_add; a build that expands it into a per-element index is not
// modelled): 14 hidden-wide passes a routed row, plus the zeroed output's one write a token (time/grouped-mm.ts
// groupedRowBytes). AllToAllTokenDispatcher (EP > 1) runs the same _local_reorder and combine around its all-to-alls.
const TITAN_LOCAL_DISPATCH_ROW_PASSES = 14;
// Compiled (compile.components "model"), Inductor fuses combine's cast, score multiply and cast back into one pointwise
// kernel (read 1, write 1); the gather feeds torch._grouped_mm, an extern kernel, and deterministic_scatter_add is a
// custom op (torch.library, torchtitan/ops/scatter_add.py at torchtitan@b5bcd76c), so both move what they move eager:
// 2 + 2 + 2 = 6.
const TITAN_LOCAL_DISPATCH_ROW_PASSES_COMPILED = 6;
// Builds before pytorch/torchtitan#1854 (2025-10-11) wrapped GroupedExperts' call in `expert_parallel` even at expert
// parallel degree 1 ("3 is needed even for single-device computation": the token groups padded to
// TOKEN_GROUP_ALIGN_SIZE_M = 8 rows for torch._grouped_mm; torchtitan/distributed/expert_parallel.py at pytorch/torchtitan@
// a1fdd7e, the pin of prime-rl's trainer at PrimeIntellect-ai/prime-rl@8718eb14, @b798a90d and @bd087277): generate_permute_indices
// fills max_len = R + E x 8 indices (-1 for padding), `torch.vstack((x, x.new_zeros(dim)))` copies the R routed rows
// (read, write: 2), `x[permuted_indices, :]` gathers R + E x 8 rows (read, write: 2), and the output is put back with
// `out_unpermuted[permuted_indices, :] = out` (index_put_: read, write: 2), `[:-1]` a view: 6 hidden-wide passes a
// routed row. Compiled, Inductor folds the vstack into the gather's load (a cat feeding a pointwise consumer), and the
// gather and the index_put stay kernels of their own around the extern grouped GEMM: 4. TimeOptions.alignPermute.
const TITAN_ALIGN_PERMUTE = { rowPasses: 6, compiledRowPasses: 4, alignRows: 8 };
// gpt-oss's experts (GptOssGroupedExperts.forward and swiglu, torchtitan/models/gpt_oss/moe.py at torchtitan@b5bcd76c),
// per routed row in units of the expert width F (gate_up is 2F wide, interleaved; the output is the hidden size D = F in
// gpt-oss): the first bias's repeat_interleave (write 2), its add (read 4, write 2), swiglu's two clamps (read 1, write
// 1 each), the alpha scale (2), sigmoid (2), the product (read 2, write 1), addcmul's (1 + x_linear) product (read 2,
// write 1), the second bias's repeat_interleave (write 1) and add (read 2, write 1): 26, where the gated activation
// every layer is priced at is 5 (silu, product). Compiled, Inductor fuses the chain (not counted apart).
const TITAN_GPT_OSS_EXPERT_PASSES = 26;

export const TORCHTITAN_MEMORY: FrameworkProfile = {
  id: 'torchtitan',
  untiesEmbeddings: false,
  embedTargetsTrainFully: false,
  gradsPersist: false, // optimizer.zero_grad(set_to_none=True) after each step
  bnbSavesInput: false,
  bnbQuantizesAll: false,
  // ChunkedLossWrapper compiles only its inner loss ("lm_head is not compiled"), never the model (torchtitan
  // 0.3.0 components/loss.py ChunkedLossWrapper docstring): the chunked loss brings no model compile.
  chunkedLossCompiles: false,
  fsdpRootUnit: true, // fully_shard(model) root: tok_embeddings, norm, output; not resharded after forward
  name: 'torchtitan (FSDP2)',
  // SelectiveAC's op policy saves the outputs of SDPA, reduce_scatter and every other mm/linear and recomputes
  // every other op: the odd mm's, the norms, rotary, SwiGLU (pytorch/torchtitan@b5bcd76 distributed/
  // activation_checkpoint.py _get_custom_policy; the same at 1ea476e9 parallelisms/parallelize_llama.py).
  selectiveRecompute: { attention: 0, gemm: 0.5, elementwise: 1 },
  eagerFp32RmsNorm: false, // torch.nn.RMSNorm / fused rmsnorm, compiled in the benchmarks
  fusedSwiglu: false, // FeedForward w2(silu(w1(x)) * w3(x)) in eager
  sdpaExpandsKv: true, // repeat_kv before SDPA in models/llama/model.py
  attnOutputCopy: true,
  fusedQkvView: false,
  loraDropout: false,
  fp32Adapters: false,
  // LoRALinear's adapters beside each converted linear (components/lora.py at b5bcd76c6; engines/torchtitan/lora-path.ts).
  loraPath: TORCHTITAN_LORA_PATH,
  kbitUpcastsToFp32: false,
  // torchtitan compiles its loss with the model: build_cross_entropy_loss wraps cross_entropy_loss
  // (F.cross_entropy(pred.float(), ...)) in torch.compile when training.compile (components/loss.py @e7c0cae);
  // 0.3.0 when compile.enable and "loss" is in compile.components, default ["model", "loss"]
  // (components/loss.py BaseLoss._maybe_compile, config/configs.py CompileConfig @b5bcd76).
  // --chunked-loss is the recipes' default ChunkedLossWrapper (the models/*/config_registry.py recipes build
  // loss=ChunkedLossWrapper.Config), priced by chunkedHead (chunkedForward/Backward unread: 0): num_chunks = 8
  // along the sequence, lm_head(chunk) -> loss -> backward per chunk inside the loss call, h_chunk.grad
  // collected by GradAccumulator into torch.zeros_like(hidden, dtype=torch.float32) (4 bytes), cast to the
  // hidden dtype (https://github.com/pytorch/torchtitan/blob/v0.3.0/torchtitan/components/loss.py).
  loss: {
    ...UPCAST_LOSS,
    chunkedForward: 0,
    chunkedBackward: 0,
    compiledWithModel: true,
    chunkedHead: { chunks: 8, gradBytes: 4 },
  },
  adamImpl: 'fused', // optimizer.implementation = "fused" default
  prefillLogits: 'last',
  kvCache: 'dynamic',
  cudaContextMiB: TORCH_CONTEXT_MIB,
  allocatorSlack: 0.03, // run_train.sh exports PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True
  deepspeedOptimizer: false,
  gatheredLayers: 2, // FSDP2 implicit prefetch: current + next TransformerBlock
  // training.enable_cpu_offload: apply_fsdp sets `fsdp_config["offload_policy"] = CPUOffloadPolicy()` (torchtitan
  // v0.3.0 parallelize apply_fsdp), whose foreach_reduce copies each fp32 gradient shard to the host for the host step
  // (pytorch/pytorch@010ae4a89516fa3be548ab16dff711414ec12d0b torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py).
  hostGradShards: ['optimizer+params'],
  // Under PP, reshard_after_forward defaults to off (pytorch/torchtitan@b5bcd76c distributed/fsdp.py
  // get_fsdp_reshard_after_forward_policy: `return not pp_enabled`) and torch's PipelineStage runs every micro-batch's
  // backward with set_reshard_after_backward(False) and set_requires_gradient_sync(False), syncing after the last
  // (pytorch/pytorch@01386103 torch/distributed/pipelining/stage.py backward_maybe_with_nosync, _post_backward):
  // the stage's parameters stay gathered and FSDP2 accumulates its unsharded gradients in the reduce dtype
  // (_fully_shard/_fsdp_param.py to_accumulated_grad_if_needed), float32 (torchtitan config/configs.py
  // mixed_precision_reduce).
  pipelineStageUnsharded: { accumulatedGradBytes: 4 },
  // torchtitan quantizes through torchao (float8/mx converters).
  quantFormat: 'torchao',
  int4QuantFormat: 'torchao',
  fusedKernels: false,
  // torchtitan 0.3.0 components/quantization/float8.py Float8LinearConverter.Config.recipe_name = "rowwise".
  float8Recipe: 'rowwise',
  // torchtitan/models/common/moe.py GroupedExperts: torch._grouped_mm over all experts (@b5bcd76).
  moeDispatch: 'grouped',
  // The same calls on an A100 run PyTorch's per-group fallback (pytorch/pytorch#186620: torchtitan's Qwen3 MoE).
  // GroupedExperts.forward (models/common/moe.py @b5bcd76c) calls torch._grouped_mm three times: w1 and w3 apart
  // (silu(x @ w1) * (x @ w3)), then w2.
  torchGroupedMm: {
    loraCalls: 0,
    calls: 3,
    rowPasses: TITAN_LOCAL_DISPATCH_ROW_PASSES,
    compiledRowPasses: TITAN_LOCAL_DISPATCH_ROW_PASSES_COMPILED,
    expertActivationPasses: { gpt_oss: TITAN_GPT_OSS_EXPERT_PASSES },
    alignPermute: TITAN_ALIGN_PERMUTE,
  },
  expertParallel: true, // parallelism.expert_parallel_degree (torchtitan/config/configs.py; default 1)
  // AC wraps each block before FSDP wraps it ("per-TransformerBlock compile after AC wrapping and before FSDP"), so
  // the recompute runs on the backward's gather (pytorch/torchtitan@b5bcd76 torchtitan/models/llama3/parallelize.py).
  recomputeInUnit: true,
  // Data parallel shards with FSDP2's fully_shard on every block and the root (apply_fsdp in
  // pytorch/torchtitan@b5bcd76 torchtitan/models/llama3/parallelize.py): no FlatParameter FSDP at this pin.
  fsdp2: () => true,
  // The trainer calls dist_utils.clip_grad_norm_ every step, unconditionally, with training.max_norm (default 1.0; the
  // launcher writes 1.0): torch.nn.utils.get_total_norm's _foreach_norm reads each local fp32 gradient shard once, the
  // DTensor norm's full_tensor() all-reduces its _NormPartial over the sharded mesh (one more over PP), then
  // clip_grads_with_norm_'s _foreach_mul_ reads and writes every gradient by the clamped coefficient, clipped or not
  // (pytorch/torchtitan@b5bcd76c torchtitan/trainer.py L919-L925, torchtitan/distributed/utils.py clip_grad_norm_).
  gradClip: { normRead: 'stepped', normCopyBytes: 0, scalePasses: 2, normAllReduce: true },
  source: 'https://github.com/pytorch/torchtitan/blob/main/docs/performance.md',
};
