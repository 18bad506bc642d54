/** The records a training step's work is built into (time/train-work.ts builds them). */
import type { Float8Work } from './float8.js';
import type { GroupedMmWork } from './grouped-mm.js';

/** Everything about one training configuration that does not depend on the GPU (precompute per row). */
export interface TrainWork {
  /** Tokens of one micro-batch on one GPU. */
  tokens: number;
  microBatches: number;
  /** Tokens per optimizer step over all GPUs. */
  tokensPerStep: number;
  gpus: number;
  tp: number;
  pp: number;
  dp: number;
  /** Ranks the ZeRO / FSDP shards and the gradient reduces span: dp x cp (WorkLayout.zeroRanks). */
  zeroRanks: number;
  /** Per micro-batch per GPU. */
  fwdGemmFlops: number;
  fwdAttnFlops: number;
  fwdElemBytes: number;
  /**
   * Of fwdGemmFlops, the output layer's (lm_head): it and the loss run outside every checkpointed region, so full and
   * selective recompute repeat neither. torch.utils.checkpoint wraps each decoder layer: transformers'
   * GradientCheckpointingLayer / LlamaModel's loop over `self.layers`, the lm_head and loss after it in
   * LlamaForCausalLM.forward (huggingface/transformers@00029cfa src/transformers/modeling_layers.py,
   * @00222783 src/transformers/models/llama/modeling_llama.py); torchtitan v0.2.2 distributed/activation_checkpoint.py
   * apply_ac (each child of model.layers); torchtune v0.6.1 set_activation_checkpointing(auto_wrap_policy=
   * {TransformerSelfAttentionLayer}); litgpt v0.5.13 finetune/full.py activation_checkpointing_policy={Block};
   * prime-rl v0.8.0 trainer/model.py apply_ac; unsloth v0.1.801-beta models/llama.py (checkpoint per decoder_layer,
   * the loss in CausalLM_fast_forward).
   */
  headFwdFlops: number;
  /** Of fwdElemBytes, the loss's logit traffic (upcast, log-softmax): not recomputed either (headFwdFlops). */
  lossElemBytes: number;
  /**
   * The loss's logit traffic in backward (time/loss-bytes.ts): the backward charges it in place of twice lossElemBytes,
   * twice the rest of fwdElemBytes.
   */
  lossBwdBytes: number;
  /**
   * Memory traffic of the loss's forward alone, in neither the backward nor the recompute: Liger's per-chunk
   * accumulation of the output layer's weight gradient (time/train-work.ts ligerHeadGradBytes).
   */
  lossHeadGradBytes: number;
  /**
   * GEMM FLOPs of the loss's forward alone beyond its output-layer FLOPs: Liger's fused loss runs the output layer's
   * forward and input-gradient GEMMs chunk by chunk, slower than one GEMM over all the rows (time/train-work.ts
   * ligerChunkExtraFlops); priced at the step's GEMM rate, in neither the backward nor the recompute.
   */
  lossChunkExtraFlops: number;
  fwdOps: number;
  bwdGemmFlops: number;
  bwdAttnFlops: number;
  /**
   * The attention kernel's rate as a share of FlashAttention-2's (GpuRates.attn): 1, or SDPA's memory-efficient
   * kernel under a padding mask (TimeOptions.sdpaPaddingMask; time/train-work.ts SDPA_MEM_EFF_ATTN_SHARE).
   */
  attnShare: number;
  /**
   * SDPA ran cuDNN's fused attention (TimeOptions.sdpaCudnn): the attention is timed at GpuRates.attnCudnn where the
   * card has that rate, else at the FlashAttention-2 rate above.
   */
  cudnnAttn: boolean;
  recompute: number; // fraction of the forward re-run (1 full, attention-only share for selective)
  recomputeAttnOnly: boolean;
  /** Under selective recompute: the shares of the forward's attention, GEMMs and elementwise traffic re-run. */
  selAttn: number;
  selGemm: number;
  selElem: number;
  /**
   * Unsloth's tiled MLP: TiledMLP.backward re-runs each tile's MLP forward with grad before its backward
   * (unsloth_zoo tiled_mlp.py @ce232d6c), one more MLP forward per micro-batch: its GEMM FLOPs.
   */
  tiledMlpFlops: number;
  /** GEMM shape factor (small matrices underuse the SMs). */
  shape: number;
  fp32: boolean;
  /** bf16 compute: its matmuls run at GpuRates.gemmBf16Emulated where the card has no bf16 tensor cores. */
  bf16: boolean;
  dequantBytes: number; // per micro-batch per GPU
  /** Of dequantBytes, the 4-bit passes of bitsandbytes' dequantization kernel. */
  bnb4DequantBytes: number;
  /** That kernel is the pre-0.48 tree kernel (TimeOptions.bnbTreeDequant), else the lookup-table kernel (0.48.0 on). */
  bnbTreeDequant: boolean;
  dequantSeconds: number; // fixed per micro-batch (LLM.int8 per-linear overhead)
  /** Host dispatch of bitsandbytes' 4-bit dequantization ops per micro-batch, over all its passes (quantWork). */
  bnb4HostSeconds: number;
  int8ForwardFlops: number; // LLM.int8 forward/recompute GEMM FLOPs per micro-batch (slower int8 path)
  optimizerBytes: number; // per step per GPU
  optimizerHostSeconds: number; // per step: the optimizer's own Python loop (time/optimizer-step.ts optimizerLoopOps)
  optimizerOnHost: boolean;
  /** The gradient-norm clip's scalar all-reduces a step (time/optimizer-step.ts gradClipAllReduces). */
  gradClipAllReduces: number;
  hostOptimizerBytes: number; // per step per GPU (shares the node's host bandwidth)
  hostStepBytesPerS: number; // the node's rate for those bytes (FrameworkProfile.hostStepBytesPerS)
  pagedStateBytes: number; // paged (unified-memory) optimizer states per GPU (paged-migration.ts)
  pagedWorkingBytes: number; // of them, the largest parameter's: all the fit counts on the device
  gradReduceBytes: number; // per step (DDP) or per micro-batch (ZeRO-2/3) per GPU, on the wire
  gradReducePerMicro: boolean;
  /** torch DDP's last bucket beyond its 25 MB cap: the input embedding's gradient (train-comm-work.ts). */
  lastBucketEmbedBytes: number;
  /** ZeRO's gradient reduces run in series with backward (TimeOptions.serialComm). */
  serialComm: boolean;
  /** A pass's parameter gathers run in series with its compute in forward (fsdp-unshard-order.ts forwardGathersInSeries). */
  fwdGatherSerial: boolean;
  /** The backward's own gather of each unit runs in series with it (fsdp-unshard-order.ts backwardGathersInSeries). */
  bwdGatherSerial: boolean;
  /** ZeRO-3's gradient reduce-scatters per micro-batch on this rank: one per full bucket (0 on one rank). */
  zeroReduces: number;
  /** ZeRO-3's all-gather collectives in one pass over this rank's layers (zero-collectives.ts; 0 on one rank). */
  zeroGathers: number;
  gatherBytes: number; // per micro-batch per GPU on the wire (ZeRO-3)
  /** Of them, one pass's (forward, backward or recompute): what a further forward of the model gathers. */
  gatherPassBytes: number;
  /** FSDP2's copy-out of one gather pass, HBM bytes on the compute stream (fsdp2-copies.ts; 0 otherwise). */
  fsdpCopyPassBytes: number;
  /** FSDP2's copy-outs of a micro-batch's gather passes, HBM bytes on the compute stream. */
  fsdpCopyGatherBytes: number;
  /** FSDP2's reduce-scatter copy-in of a micro-batch's gradients, HBM bytes on the compute stream. */
  fsdpCopyReduceBytes: number;
  /**
   * A micro-batch's gradient passes on the reduce's stream, in series with its collective, HBM bytes: torch FSDP's
   * division (fsdp-grad-divide.ts), an engine's ZeRO-2 bucket passes (zero2-bucket-reduce.ts).
   */
  gradDivideBytes: number;
  /** An engine's ZeRO-2 hooks copying each gradient into its bucket, HBM bytes a micro-batch on the compute stream. */
  gradHookCopyBytes: number;
  paramGatherAfterStep: number; // ZeRO-1/2 all-gather of updated params, per step
  offloadBytes: number; // PCIe per micro-batch, both directions (parameter, gradient and activation offload)
  /** Offloaded parameters copied host->device per pass (forward, backward, recompute), per micro-batch. */
  offloadParamPassBytes: number;
  /** Passes that fetch the offloaded parameters per micro-batch (2; 3 with full recompute on FSDP); 0 without. */
  offloadPasses: number;
  /** Offloaded gradients copied device->host per micro-batch (overlapping backward). */
  offloadGradBytes: number;
  /** Activation offload: checkpoints out in forward (device->host) and back in backward, each way. */
  offloadActBytes: number;
  /** Of the activation reloads, host->device bytes in series with the backward (offload-work.ts serialReloadBytes). */
  offloadActSerialBytes: number;
  /** Share of the host link's pinned rate the parameter copies keep (1 pinned; offload-work.ts PAGEABLE_COPY_SHARE). */
  offloadCopyShare: number;
  /** Share of the host link's pinned rate the gradient copies to the host keep (1 pinned; PAGEABLE_COPY_SHARE). */
  offloadGradCopyShare: number;
  /** The parameter copies block the thread that issues the compute (FrameworkProfile.zeroHooks.blockingParamCopies). */
  offloadCopyBlocks: boolean;
  tpBytes: number; // per micro-batch per GPU
  tpCalls: number;
  /** Training expert parallelism's all-to-alls per micro-batch (train-expert-parallel.ts). */
  ep: EpComm;
  /** Ulysses sequence parallelism's all-to-alls around attention per micro-batch (train-sequence-parallel.ts). */
  sp: EpComm;
  /** torch's ring attention around a context-parallel rank's attention per micro-batch (train-ring-attention.ts). */
  ring: RingComm;
  modelFlopsPerToken: number;
  compiled: boolean;
  /** Layers on one pipeline stage. */
  layers: number;
  /** MoE (0 / 'grouped' for dense): routed-expert GEMM FLOPs per micro-batch (inside fwd/bwdGemmFlops). */
  expertFwdFlops: number;
  expertBwdFlops: number;
  /** Shape factor of one expert's GEMM: its share of the tokens in a loop, the whole batch when grouped. */
  expertShape: number;
  /** Bytes of the hit experts' weights one pass reads (the floor of an under-filled expert GEMM). */
  expertWeightBytes: number;
  /** The routed experts' matmuls run in fp32 (experts left unquantized and upcast: time/float-experts.ts). */
  expertFp32: boolean;
  /** Host ops of the per-expert loop in one forward (0 when grouped); each forward syncs per expert. */
  moeLoopOps: number;
  /** Eager host ops of the engine's ZeRO hooks per micro-batch (time/zero-hooks.ts). */
  zeroHookFwdOps: number;
  zeroHookLoopOps: number;
  zeroHookBwdOps: number;
  /** ZeRO-3 with a per-expert loop: the experts' share of zeroHookBwdOps (its windows hold backward in step). */
  zeroHookLoopBwdOps: number;
  /** Host seconds of the ZeRO-3 hooks besides their ops, split alike (a measured price: time/zero-hooks.ts). */
  zeroHookFwdSeconds: number;
  zeroHookLoopSeconds: number;
  zeroHookBwdSeconds: number;
  zeroHookLoopBwdSeconds: number;
  /** Bytes the per-expert loop's gather gradients move in one backward (0 when grouped). */
  moeLoopBwdBytes: number;
  /**
   * Bytes the per-expert loop moves around its experts in one forward and one backward: routed rows gathered, scaled
   * and index-added, their gradients, the router's expert mask (time/moe-loop-traffic.ts; 0 when grouped).
   */
  moeLoopRowFwdBytes: number;
  moeLoopRowBwdBytes: number;
  moeDispatch: MoeDispatch;
  /** Experts holding at least one routed token, per MoE layer per micro-batch. */
  expertsHit: number;
  /** LoRA through PEFT's ParamWrapper: ΔW / W + ΔW FLOPs and bytes per forward and per backward (0 otherwise). */
  deltaFwdFlops: number;
  deltaFwdBytes: number;
  deltaBwdFlops: number;
  deltaBwdBytes: number;
  /** The engine's LoRA path beside the adapted dense linears (loraPath): bytes and kernels per micro-batch. */
  adapterFwdBytes: number;
  adapterBwdBytes: number;
  adapterFwdOps: number;
  adapterBwdOps: number;
  /**
   * Forward FLOPs of the adapters (inside fwdGemmFlops; twice them inside bwdGemmFlops) that run as fp32 matmuls: PEFT's
   * fp32 adapters without autocast (adapter-path.ts fp32AdapterMatmuls), timed at the fp32 rate.
   */
  adapterFp32Flops: number;
  /** FP8 training (time/float8.ts): converted forward matmul FLOPs (inside fwdGemmFlops) and cast bytes. */
  f8: Float8Work;
  /** The experts' torch._grouped_mm calls (time/grouped-mm.ts; none unless the engine's profile says so). */
  groupedMm: GroupedMmWork;
  /** Every grouped_mm operand bf16 (PyTorch's grouped kernel takes no other dtype). */
  groupedMmBf16: boolean;
}

/** The layout facts every part of a step's work reads. */
export interface WorkLayout {
  tp: number;
  pp: number;
  cp: number;
  dp: number;
  /**
   * Ranks the ZeRO / FSDP shards and the gradient reduces span: the data-parallel ranks times the context-parallel
   * ones, whose gradients differ by the tokens each holds (torchtitan's `dp_shard_cp` mesh, parallel_dims.py and
   * parallelize_llama.py at pytorch/torchtitan@9dec370; Accelerate 1.15.0 ParallelismConfig.fsdp_dim_names
   * `dp_shard_cp`; DeepSpeed's sequence-data-parallel group, runtime/engine.py). dp where cp is 1.
   */
  zeroRanks: number;
  /** Tokens per rank in one micro-batch. */
  tokens: number;
  /** Model shards per rank (tp x pp). */
  shard: number;
  lora: boolean;
  compiled: boolean;
  /** Liger's kernels replace the eager norms, SwiGLU, RoPE and loss (--liger on a patched model type). */
  liger: boolean;
  layersHere: number;
  lmHead: number;
  /** 1 when full (or offloaded) activation checkpointing recomputes every layer's forward. */
  recompute: number;
  /** torch.autocast over fp32 weights (AMP without FSDP mixed precision). */
  autocast: boolean;
  /** LoRA adapter weights per rank. */
  adapterW: number;
  /** Adapter weights a token passes through per rank (MoE: its topK experts' adapters, not all E). */
  adapterActive: number;
  /** The routed experts run in a per-expert loop (the dispatch 'loop'). */
  moeLoop: boolean;
}

/** How the routed experts run: the engine's dispatch, or 'dense' for a model class its library runs densely. */
export type MoeDispatch = 'loop' | 'grouped' | 'dense';

/** One micro-batch's all-to-alls (expert or sequence parallel) on one rank: bytes on the wire, collectives, the group's size. */
/** torch's ring attention around a context-parallel rank's attention per micro-batch (train-ring-attention.ts). */
export interface RingComm {
  /** HBM bytes of one forward pass's fp32 merges and K/V concatenations, every attention layer. */
  fwdBytes: number;
  /** HBM bytes of the backward's fp32 gradient accumulators, concatenations and casts, every attention layer. */
  bwdBytes: number;
  /** Bytes a rank receives in one pass's K/V all-gathers, every attention layer. */
  gatherBytes: number;
  /** Bytes of one backward block's fp32 dk and dv sent to the next rank, every attention layer. */
  sendBytes: number;
  /** Ranks of the ring (cp); 1 without one. */
  group: number;
  /** Attention layers on this stage. */
  layers: number;
  /** Forward passes that run the ring: the forward, and the recompute of full checkpointing. */
  fwdPasses: number;
}

export interface EpComm {
  bytes: number;
  calls: number;
  group: number;
}
