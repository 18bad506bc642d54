/**
 * What each software stack really allocates, kept as data. Every field is a mechanism (which tensors a
 * kernel saves for backward, which copies a loss makes), not a fudge factor; each cites its source.
 */
import type { Framework, Objective, Optimizer, WeightDtype } from '../../schema/estimate.js';
import type { CudaKernelNames, QuantFormat, RocmKernelNames } from '../../schema/time.js';
import type { DpAttentionProfile } from './dp-attention-profile.js';
import type { EagerLayerProfile } from './eager-layer-profile.js';
import type { V0EngineProfile } from './v0-engine-profile.js';
import type { QuantLinearProfile } from './quant-linear-profile.js';
import type { LoraForwardHost, LoraPathCost } from './lora-path-profile.js';
import type { PiecewiseAttentionCalls } from './piecewise-attention-profile.js';
import type { DecodeFeatureKernelsOf } from './decode-feature-kernels.js';
import type { DecodeAttentionFamily, UnsplitDecodeWalk } from './unsplit-decode-walk.js';
import type { RocmBlockFp8Linear, RocmBlockFp8Prefill } from './rocm-block-fp8.js';
import type { RocmPagedDecode } from './rocm-paged-decode.js';
import type { LoraReach } from '../model/trainable.js';
import type { VisionFile } from './vision-file.js';
import type { FusedMoeTile16 } from '../time/moe-grid-types.js';

export type { CacheLayoutProfile, PrefillParallel, RowSplitProfile } from './layout-profiles.js';
import type { AdmissionReserve, CacheLayoutProfile, ServerStart } from './layout-profiles.js';
import type { PrefillLayerKernels, RowSplitProfile, TwoStageAllReduce } from './layout-profiles.js';
import type { TorchGroupedMmProfile } from './grouped-mm-profile.js';
import type {
  DecodeGraphBuild,
  GradReduceWidth,
  ServingFrontend,
  VocabParallelProfile,
} from './profile-types.js';
export type {
  DecodeGraphBuild,
  GradReduceWidth,
  ServingFrontend,
  VocabParallelProfile,
} from './profile-types.js';
import type { GradClip, MoeLoopTraffic, ShardedTrainingProfile } from './trainer-loop-profile.js';

export type { DecodeAttentionFamily } from './unsplit-decode-walk.js';

export interface FrameworkProfile
  extends
    EagerLayerProfile,
    QuantLinearProfile,
    V0EngineProfile,
    ShardedTrainingProfile,
    DpAttentionProfile {
  id: Framework;
  name: string;
  /** RMSNorm runs in eager fp32 (saves an fp32 copy of its input) rather than a fused kernel. */
  eagerFp32RmsNorm: boolean;
  /** SwiGLU runs as a fused kernel that saves gate and up outputs only (no activation output). */
  fusedSwiglu: boolean;
  /** GQA keys/values are expanded to all query heads before SDPA (repeat_kv) and saved so. */
  sdpaExpandsKv: boolean;
  sdpaGqaUnmasked?: boolean; // unmasked calls (the cp ring's) take the k/v heads with enable_gqa, not repeat_kv
  /** SDPA takes no logit soft-cap: a soft-capped model (Gemma 2) trains without it under sdpa (plan/quality.ts). */
  sdpaDropsSoftcap?: boolean;
  /** The attention output is copied contiguous before o_proj (transpose(1,2).contiguous()). */
  attnOutputCopy: boolean;
  /**
   * One fused qkv projection whose value is passed to SDPA as a view (MHA/MQA: no expand copy): the saved
   * value keeps the whole qkv output alive, q and k parts included.
   */
  fusedQkvView: boolean;
  /**
   * LoRA on gate, up and down runs as one autograd function that saves its input and the gate/up outputs
   * only (the down projection's input is recomputed in backward), and whose backward writes the SwiGLU
   * gradients into the saved tensors and the input gradient into the input: one ffn-wide gradient in flight.
   */
  loraMlpInPlace?: boolean;
  /** Dropout in front of each LoRA A matrix (a copy of the input plus a mask). */
  loraDropout: boolean;
  /** LoRA adapters are kept in fp32 whatever the base dtype. */
  fp32Adapters: boolean;
  /** Non-quantized parameters of a k-bit model are upcast to fp32 before training. */
  kbitUpcastsToFp32: boolean;
  /**
   * On a k-bit base model the trainer casts every trainable parameter (the LoRA adapters) to bf16 after wrapping
   * it, overriding fp32Adapters: the adapters, their gradients and the Adam states are 16-bit.
   */
  kbitTrainableBf16?: boolean;
  /**
   * Objectives whose trainer runs PEFT's prepare_model_for_kbit_training on a k-bit model, then casts only the
   * embeddings and head back to bf16: fp32 norms (an fp32 residual stream), experts and adapters (kbitFp32Stream).
   */
  kbitPreparingObjectives?: readonly Objective[];
  /**
   * Under ZeRO-3 on a non-quantized base the trainer builds the LoRA adapters in the weights' dtype, overriding
   * fp32Adapters: no fp32 upcast of the adapters, no cast of each adapted linear's input to them.
   */
  zero3AdaptersInWeightDtype?: boolean;
  /**
   * The engine casts every floating parameter of a model not built under ZeRO-Init to the 16-bit dtype it trains
   * in, so on a non-quantized base the adapters PEFT made fp32 (fp32Adapters) train in the weights' dtype at every
   * ZeRO stage: no fp32 upcast of the adapters, no cast of each adapted linear's input to them.
   */
  castsParamsToComputeDtype?: boolean;
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
  /** A multimodal checkpoint's vision tower and projector are not loaded (the engine converts the text model). */
  dropsVisionTower?: true;
  /** The vision tower and projector are a file of their own, loaded only when images are served (vision-file.ts). */
  visionFile?: VisionFile;
  /** Gradients stay allocated from one step to the next (gradient accumulation; zero_grad without set_to_none). */
  gradsPersist: boolean;
  /**
   * Loss path: whether the full-vocabulary logits are upcast to fp32 for the loss (else the 16-bit logits
   * are the only vocabulary-sized tensor), and the bytes per token per vocabulary entry alive at the
   * forward / backward peak with --chunked-loss; `fusedLinear`: the chunked loss is a fused linear +
   * cross-entropy kernel (Liger's), whose bytes follow its chunking instead (kernels/liger.ts).
   */
  loss: {
    upcast: boolean;
    chunkedForward: number;
    chunkedBackward: number;
    /**
     * The loss always runs fused: forward and backward together, chunk by chunk over the tokens, each chunk
     * at most this many bytes of fp32 logits; the input gradient is computed in forward and kept for backward.
     */
    fusedChunkFp32Bytes?: number;
    /** --chunked-loss runs a fused linear cross-entropy (Liger's: kernels/liger.ts). */
    fusedLinear?: boolean;
    /**
     * With --compile the engine compiles its loss function as well (torch.compile of the upcast
     * cross-entropy): Inductor fuses the fp32 upcast and log-softmax into the loss's reductions and the
     * backward into one pointwise kernel, so only the 16-bit logits (forward) and them with their 16-bit
     * gradient (backward) are vocabulary-sized. Not on a vocabulary-parallel loss (its own autograd function).
     */
    compiledWithModel?: boolean;
    chunkedHead?: { chunks: number; gradBytes: number }; // --chunked-loss: per-chunk lm_head (training.ts)
    /** PPO log-probs from fp32 full-sequence logits sliced to the completion (training.ts slicedLogprobHoldings). */
    ppoSlicedLogprobs?: true;
  };
  /** Torch AdamW runs foreach (one full-size temporary of v during step) or fused (none). */
  adamImpl: 'foreach' | 'fused';
  /** Inference: logits for every prompt token ('all') or only the last one ('last'). */
  prefillLogits: 'all' | 'last';
  /** Inference KV cache: grown per token ('dynamic', torch.cat transient) or preallocated ('static'). */
  kvCache: 'dynamic' | 'static' | 'paged-pool';
  /**
   * Each decode step's cache update rebuilds every layer's keys and values one token longer (torch.cat of the
   * cache and the new token), reading the whole cache and writing it again beside the attention's own read.
   */
  kvAppendCopies?: boolean;
  /** Releases [from, before) whose MLA decode reads absorbed weights materialized at load (time/mla-absorbed.ts). */
  mlaMaterializedAbsorption?: { from: string; before: string };
  /** CUDA context + kernels + library handles seen by nvidia-smi but not by the allocator, MiB. */
  cudaContextMiB: number;
  /** Caching-allocator slack: reserved minus allocated, as a fraction of the peak allocated. */
  allocatorSlack: number;
  /** Optimizer states, master weights and fp32 gradient partitions follow DeepSpeed's layout. */
  deepspeedOptimizer: boolean;
  /**
   * Base weight types whose ZeRO-3 parameter offload runs FSDP1 CPUOffload: each offloaded flat parameter gets a
   * pinned host gradient buffer of its own size and dtype, frozen ones too (the base weights' host bytes twice).
   */
  offloadGradBufferWeights?: readonly WeightDtype[];
  /** Offload modes and ZeRO stages under which each sharded gradient moves to host RAM, none left on the GPU. */
  hostGrads?: { offload: readonly ('optimizer' | 'optimizer+params')[]; zero: readonly number[] };
  hostGradShards?: readonly ('optimizer' | 'optimizer+params')[]; // hostGrads' host shards, the GPU figure kept
  hostStepCopies?: readonly number[]; // ZeRO stages whose offload pins host copies of params and grads
  /**
   * DeepSpeed layout only (deepspeedOptimizer): the fp32 gradient partition is built in the optimizer step and freed
   * after it, one piece at a time. ZeRO-3 steps sub-groups of `subGroupElements` partition elements (closed by the
   * parameter that reaches it), each cast from a flattened 16-bit copy of its gradients; ZeRO-1/2 cast a parameter
   * group's pre-flattened partition. Absent: an fp32 gradient partition held from step to step.
   */
  fp32GradsInStep?: { subGroupElements: number };
  /**
   * Full fine-tunes under DDP: the gradients are views into DDP's all-reduce buckets (DistributedDataParallel
   * gradient_as_bucket_view=True), one copy instead of two. Absent: torch's default, a bucket copy of them.
   */
  ddpFullGradViews?: boolean;
  /**
   * Time: the width its data-parallel collectives reduce gradients in, unsharded (DDP all-reduce, ZeRO-1) and sharded
   * (ZeRO-2/3, FSDP reduce-scatter): 'grad', each gradient's own dtype (the trainable element's width,
   * memory/trainable-width.ts: torch DDP gives each bucket its parameters' dtype and splits mixed dtypes into buckets
   * of their own, pytorch/pytorch@00413201d3d38d5b5bb039180220d5a0d6c74052 torch/csrc/distributed/c10d/reducer.cpp
   * initialize_buckets, compute_bucket_assignment_by_size; only DDP's private mixed_precision argument, which no engine
   * passes, changes it: torch 2.8.0 nn/parallel/distributed.py L906; FSDP2 without a MixedPrecisionPolicy reduces in
   * the parameters' dtype); 'compute', the compute dtype whatever the gradients' (a reduce dtype set from the
   * mixed-precision mode); a number, that many bytes (a fixed reduce dtype). Absent: 'grad' for both.
   */
  gradReduce?: { unsharded: GradReduceWidth; sharded: GradReduceWidth };
  /**
   * Time: the gradient-norm clip the trainer runs every optimizer step by default, on the shard of the gradients this
   * GPU steps (time/optimizer-step.ts gradClipBytes): the norm reads each gradient once, in the width the optimizer
   * steps ('stepped') or in the 16-bit gradient's own ('grad', ahead of an fp32 master's cast), plus `normCopyBytes` a
   * element for a copy the norm makes and reads back; the scaling then reads and writes every stepped gradient
   * (`scalePasses`), whether or not the norm exceeds the limit; `normAllReduce` (GradClip). Absent: the engine's step
   * clips nothing by default.
   */
  gradClip?: GradClip;
  /**
   * Under ZeRO-3 sharding each rank loads the whole model (and builds its adapters) on its GPU before it shards
   * them: the load phase holds all of it. true: whatever the base weights; a list: only base weights of those dtypes
   * (quantized on load onto the GPU; 16-bit weights load on the host or meta device). Absent: ranks load shards.
   */
  loadsWholeBeforeSharding?: boolean | readonly WeightDtype[];
  shardedQuantLoad?: { weights: readonly WeightDtype[]; workers: number; denseOnly: boolean }; // memory.ts
  /** FSDP/ZeRO-3 keeps this many unsharded layers gathered at once (current + prefetched). */
  gatheredLayers: number;
  /** Under pipeline parallelism with sharded parameters: the stage stays gathered all step, its gradients accumulate unsharded (bytes each). */
  pipelineStageUnsharded?: { accumulatedGradBytes: number };
  /** Time: the kernel family of its quantized weights (int4 checkpoints may use another: `int4QuantFormat`). */
  quantFormat: QuantFormat;
  int4QuantFormat: QuantFormat;
  /** Time: fused/compiled kernels whatever --compile says (Unsloth's Triton kernels, vLLM's CUDA graphs). */
  fusedKernels: boolean;
  /**
   * Time: torchao.float8's scaling recipe behind `--compute fp8` (kernels/float8.ts), where the engine trains in
   * FP8; absent: tensorwise, torchao's Float8LinearConfig default.
   */
  float8Recipe?: 'tensorwise' | 'rowwise';
  /**
   * Time: how the routed experts of an MoE layer run. 'loop': one Python iteration per expert that holds a
   * routed token, each launching its own small kernels (gather, the expert's GEMMs, activation, scatter-add;
   * LoRA's two extra matmuls per adapted expert linear) on the expert's share of the tokens; 'grouped': one
   * grouped GEMM (torch._grouped_mm, Triton or CUTLASS grouped kernels) per projection over all experts.
   */
  moeDispatch: 'loop' | 'grouped';
  /**
   * Time: model types whose MoE block this engine's library runs densely, every token through every routed
   * expert with the router's weight (zero for the unrouted) multiplied into its input (dispatch 'dense').
   */
  moeDense?: readonly string[];
  /** Time: the engine can shard experts over ranks (expert parallelism, all-to-all token dispatch). */
  expertParallel: boolean;
  /** Serving: the engine serves many LoRA adapters on one base (preallocated adapter slots). */
  multiLora?: boolean;
  /**
   * Serving: the engine runs one LoRA adapter unmerged on every sequence of the batch (--max-loras 1): PEFT's
   * lora.Linear wraps each targeted linear, no slots; its forward's ops and Python per adapted linear at each
   * decode step (loraForwardOps, loraForwardHost; time/multi-lora.ts unmergedServingOptions).
   */
  unmergedLora?: boolean;
  /**
   * Multi-LoRA serving: sequences with different adapters never share a forward pass; each engine iteration
   * batches only the sequences whose adapter list matches its first one. Absent: one batch mixes adapters
   * (vLLM's punica and SGLang's SGMV kernels).
   */
  loraBatchesApart?: boolean;
  /** Serving: the speculative decoding methods the engine runs (absent: none). */
  speculative?: readonly ('eagle3' | 'mtp' | 'ngram')[];
  /**
   * LoRA on fused 3-D expert weights through PEFT's ParamWrapper (LoraConfig.target_parameters): each forward
   * builds the layer's delta weight B·A for every expert and the parametrized weight W + ΔW, which the grouped
   * GEMM then saves and takes a weight gradient for. Absent: adapters run beside the frozen experts.
   */
  expertAdapters?: 'param-wrapper';
  /**
   * The trainable count only: the routed experts' adapters are the parameters PEFT's ParamWrapper creates for a
   * fused 3-D expert weight (model/peft-moe.ts fusedExpertLoraParams: one rank-r pair per expert per parameter,
   * gate_up_proj one parameter), though the engine's own kernels run them, so without expertAdapters' ΔW memory and
   * time. Absent (and no expertAdapters): each expert's gate, up and down are counted as linears of their own.
   */
  expertLoraCount?: 'param-wrapper';
  /**
   * With expertAdapters: the engine's PEFT remaps a v4-style LoRA config on the transformers 5 MoE model types whose
   * layout changed (model/peft-moe.ts PEFT_V5_REMAPPED): gate/up/down names and 'all-linear' become
   * target_parameters, gate_up_proj at rank 2r, the router adapted under 'all-linear', dense MLPs and shared experts
   * left unadapted. Absent: target_parameters as written, gate_up_proj at rank r.
   */
  peftV5Remap?: true;
  /**
   * k-bit routed experts kept as fused 3-D parameters (gate_up_proj, down_proj over every expert of a layer), which
   * the engine dequantizes one whole projection at a time for its grouped matmul, in forward and again in backward:
   * that dense stack is the k-bit temporary (Setup.dequant). `except`: model types whose k-bit experts the engine
   * keeps as per-expert linears instead. Absent: each expert's linear is dequantized on its own.
   */
  kbitExpertStacks?: { except: readonly string[] };
  /**
   * Weight dtypes whose quantizer replaces only nn.Linear modules, so routed experts stored as fused 3-D parameters
   * stay unquantized: they take the float dtype of the other non-linear parameters (upcast to fp32 for k-bit
   * training where kbitUpcastsToFp32). Absent: the routed experts are quantized like every other linear.
   */
  unquantizedExperts?: readonly WeightDtype[];
  /** Time: the routed experts as torch._grouped_mm calls (memory/grouped-mm-profile.ts). Absent: other kernels. */
  torchGroupedMm?: TorchGroupedMmProfile;
  /** Time: what the per-expert loop (dispatch 'loop') moves around each hit expert's matmuls. Absent: not counted. */
  moeLoopTraffic?: MoeLoopTraffic;
  /**
   * Time: what the LoRA path of one adapted (dense) linear moves and launches beside its frozen GEMM
   * (engines/hf/lora-path.ts: PEFT's separate adapter matmuls; engines/unsloth/lora-path.ts: Unsloth's fused
   * matmul_lora). Absent: only the adapter GEMMs' FLOPs are counted.
   */
  loraPath?: LoraPathCost;
  /**
   * Time: 16-bit passes over the hidden state of one eager RMSNorm forward (`norm`) and over q and k of the eager
   * rotary embedding (`rotary`), where the engine runs its modeling library's own unfused modules
   * (engines/hf/eager-modules.ts). Absent: 8 and 6, the counts time/train-work.ts assumes. `sdpaCopiesQkvOnMask`:
   * its SDPA attention copies q, k and v to contiguous memory only when handed a mask, and the output's copy back to
   * token-major moves nothing after the fused kernels (eager-modules.ts).
   */
  eagerPasses?: { norm: number; rotary: number; sdpaCopiesQkvOnMask?: boolean };
  /**
   * Time: what `--checkpointing selective` re-runs in backward, as shares of the forward's attention FLOPs, GEMM
   * FLOPs and elementwise traffic. Absent: attention alone (`{ attention: 1, gemm: 0, elementwise: 0 }`,
   * selective activation recomputation, Korthikanti et al. 2022, arXiv:2205.05198 §5).
   */
  selectiveRecompute?: { attention: number; gemm: number; elementwise: number };
  /**
   * Serving engines' KV pool budget: 'utilization' (vLLM: gpu_memory_utilization of total memory holds
   * everything, the pool takes what the profiled peak leaves), 'static' (SGLang: mem_fraction_static of total
   * memory holds weights and the pool; activations and CUDA graphs live outside it). Absent: 'utilization'.
   */
  poolBudget?: 'utilization' | 'static';
  /**
   * A paged-pool server's sizing by GPU memory (undefined: no GPU) and driver name: its budget's `poolFraction`, a
   * step's prefill `chunkTokens`, `cudaGraphBytes` outside it. `samplerBytesPerLogit`: its start-up sampler's bytes
   * per slot and vocabulary entry. `poolHoldsMaxLen`: its pool must hold one max_model_len request.
   * `admissionReserve`: its scheduler's reserve for running requests' output (time/admission-reserve.ts).
   */
  server?: {
    sizing: (
      capacityBytes: number | undefined,
      tp: number,
      pp: number,
      deviceName?: string,
    ) => { poolFraction: number; chunkTokens: number; cudaGraphBytes: number };
    samplerBytesPerLogit: number;
    poolHoldsMaxLen?: boolean;
    admissionReserve?: AdmissionReserve;
    prefillFirst?: boolean; // a step that can prefill runs its prefill alone (absent: decodes share it, as vLLM V1's)
  } & ServerStart;
  /**
   * A serving engine's frontend: the host process that takes the HTTP requests and streams the answers, apart from
   * the process that steps the model (time/frontend.ts). `requestSeconds`: its work per chat request (HTTP
   * handling, request validation, chat template, tokenization, request bookkeeping, the final chunks);
   * `tokenSeconds`: per streamed output token of a request (one SSE chunk); `templateParseSeconds`: per request
   * more where the build parses the chat template's Jinja source on every request (TimeOptions.chatTemplateParse).
   * Absent: no frontend cost modelled.
   */
  servingFrontend?: ServingFrontend;
  /** A KV cache of `-c` tokens split evenly over `-np` slots, allocated at start (llama-server): figures are the slots'. */
  kvSlots?: boolean;
  /**
   * Time: batch-1 F16 matrix-vector products run through the engine's dequantize-mul-mat-vec kernel, whose
   * per-row tail TimeOptions.f16MatVec 'dmmv' models (llama.cpp's dmmv).
   */
  dmmvF16?: boolean;
  /**
   * Time: the optimizers whose offloaded step runs the engine's own vectorized host kernel (DeepSpeed's CPU-Adam and
   * CPU-Lion); absent, only a fused torch AdamW runs vectorized on the host, other torch optimizers loop.
   */
  vectorHostOptimizers?: readonly Optimizer[];
  /**
   * Time: what the node's host does of an offloaded optimizer step per second, in the 28 bytes per trained parameter
   * that an AdamW update streams (time/train-work.ts hostOpt), with everything else the engine's host step does
   * (gradient unscale and norm, the copy of the updated parameters back) folded in; absent: HOST_ADAM_BYTES_PER_S.
   */
  hostStepBytesPerS?: number;
  /** Time: the share of hostStepBytesPerS a host reaches with no cores bound to the ranks, where it was measured bound. */
  hostStepUnboundShare?: number;
  /**
   * Time: the physical cores of the node hostStepBytesPerS was measured on. The host step runs on OpenMP and ATen
   * thread pools sized to the cores, so a node with another count (TimeOptions.hostCores) scales the rate by the
   * ratio; absent, the rate is the node's whatever its cores.
   */
  hostStepCores?: number;
  /**
   * LoRA training goes through transformers' enable_input_require_grads under gradient checkpointing (PEFT,
   * TRL, Unsloth): a frozen vision tower whose input embeddings it hooks records a graph (memory/vision.ts).
   */
  inputRequireGrads?: boolean;
  /** How far LoRA reaches on a multimodal checkpoint (model/trainable.ts LoraReach); absent: PEFT's. */
  loraReach?: LoraReach;
  /**
   * The engine's own layers give each q/k/v or gate/up role its adapter rows, whatever the checkpoint fuses
   * (Linear.module): LoRA counts a pair per role, not one per fused module (model/trainable.ts withoutFusedModules).
   */
  loraPerRole?: true;
  /**
   * Hugging Face ids (lower case) the engine swaps for a re-export of its own whose fused linears are split per
   * role (Unsloth's model mapper: microsoft/phi-4 -> unsloth/phi-4, a LlamaForCausalLM): LoRA counts a pair per
   * role on them (memory/setup.ts loraModel).
   */
  perRoleReexports?: readonly string[];
  /** llama.cpp: `--gpu-layers` puts that many layers (and their KV) on the GPU, the rest in host RAM. */
  layerOffload?: boolean;
  /**
   * `--tp N` runs as a row split (llama.cpp --split-mode row): each weight matrix's rows are spread over the GPUs,
   * while the KV cache and the intermediate results stay whole on the main GPU (the worst rank). Its figures price what
   * each split matrix multiplication adds to a step in place of tensor parallelism's all-reduces (time/row-split.ts).
   */
  tpRowSplit?: RowSplitProfile;
  /**
   * The engine's physical batch (llama.cpp's n_ubatch): the prefill chunk, the fp32 logit rows its output
   * buffer reserves, the cells a sliding-window layer keeps beyond its window, and the host round trips of a
   * prefill with layers in host RAM. Absent: the engine runs a prompt whole (or in its server's chunks).
   */
  ubatch?: number;
  /** How the engine lays out its KV cache and recurrent state (memory/kv-layout.ts); absent: a plain cache. */
  cacheLayout?: CacheLayoutProfile;
  /** Kernel family by weight dtype, ahead of quantFormat / int4QuantFormat (serving engines' own kernels). */
  quantFormatFor?: Partial<Record<WeightDtype, QuantFormat>>;
  /** By weight dtype, on AMD GPUs / on CUDA GPUs below a capability: the kernel named for a family. */
  rocmKernelNames?: RocmKernelNames;
  cudaKernelNames?: CudaKernelNames; // time/hardware.ts kernelName
  /** Time: the dtype an MXFP4 MoE model's non-expert linears (attention, router) and lm_head are stored in by the
   * engine's own files (llama.cpp's MXFP4 GGUF: Q8_0). Absent: BF16, as the Hugging Face checkpoint keeps them. */
  mxfp4Dense?: WeightDtype;
  stepHostSeconds?: number; // host work per decode step the GPU does not hide (scheduler, sampling), seconds
  /** Bytes a serving step's sampler moves on the GPU per running sequence and vocabulary entry, after the forward and
   * in series with it (time/sampler-step.ts). Absent: 0. */
  samplerStepBytesPerLogit?: number;
  seqHostSeconds?: number; // host work per sequence per decode step (sampling each on the CPU), seconds
  /**
   * Host work per decode step that versions of a serving engine whose scheduler ran in series with the GPU left
   * unhidden (TimeOptions.serialScheduler), seconds; the overlapped default hides it.
   */
  serialStepHostSeconds?: number;
  /** Model types served with that serial scheduler while the prefix cache is on and no speculation runs. */
  serialLoopModelTypes?: readonly string[];
  /**
   * Model types served with that serial scheduler (the prefix cache on, no speculation) only by the releases from
   * `from` to before `before` (release strings, post parts ordered); a timing that names no release, or one outside
   * the span, keeps the overlapped loop. Absent: none.
   */
  serialLoopModelTypeReleases?: readonly { modelType: string; from: string; before: string }[];
  /**
   * The same serial scheduler's host work per running sequence per decode step (scheduling, applying the sampled
   * tokens, the model runner's input preparation), seconds; added with serialStepHostSeconds. Absent: 0.
   */
  serialSeqHostSeconds?: number;
  /**
   * Host work per running sequence per decode step in series with the GPU where the current release runs its serial
   * loop for a model type (serialLoopModelTypes, TimeOptions.serialLoop), seconds; in place of serialSeqHostSeconds,
   * which prices the older releases' serial scheduler. Absent: serialSeqHostSeconds.
   */
  serialLoopSeqHostSeconds?: number;
  /**
   * Host work a decode step (asyncSeqHostSeconds: per running request, added) of an engine overlapping its scheduler
   * with the GPU (scheduling, input preparation, the tokens' output); the step takes the longer of the GPU's work and
   * this (piecewise graphs' eager calls on top), seconds; absent 0; not with TimeOptions.serialScheduler/v0Scheduler.
   */
  asyncStepHostSeconds?: number;
  asyncSeqHostSeconds?: number;
  /**
   * Latency of one small tensor-parallel all-reduce over NVLink with the engine's own kernel (vLLM's and
   * SGLang's custom all-reduce), seconds. Absent: NCCL's latency (time/index.ts ALLREDUCE_LATENCY_NVLINK).
   */
  allReduceSeconds?: number;
  /** Its two-stage kernel above the one-stage sizes (layout-profiles.ts); absent: allReduceSeconds throughout. */
  twoStageAllReduce?: TwoStageAllReduce;
  /**
   * Time: the vocabulary-parallel embedding and output layer under tensor parallelism (time/vocab-parallel.ts). The
   * embedding's masked lookup ends in one all-reduce of the forward's tokens x hidden on the layers' all-reduce path
   * (`embeddingAllReduce`); the output layer's logit shards, `logitBytes` a logit in the head's dtype, are gathered
   * by NCCL after the forward (an all-gather, or a gather to the sampling rank: the receiving rank takes the same
   * bytes), then laid out as one [rows, vocabulary] tensor by a copy that reads and writes each logit
   * (`reorderBytesPerLogit`). Absent: a replicated embedding and head, or no tensor parallelism through this path.
   */
  vocabParallel?: VocabParallelProfile;
  /**
   * Time: GPU seconds each kernel of a CUDA-graph decode step costs beyond its bytes (engines/graph-kernel.ts: the
   * kernel boundary's setup, teardown and memory-pipeline bubble, which the graph does not remove). Absent:
   * time/train-work.ts GRAPH_KERNEL_SECONDS.
   */
  graphKernelSeconds?: number;
  /**
   * Time: the same cost in SM cycles, for an engine whose graph kernels' boundary runs at the SM clock: on an NVIDIA
   * card whose SM clock the catalog gives (GpuRates.smClock) a kernel costs this over the clock, in place of
   * graphKernelSeconds. Absent: seconds as above.
   */
  graphKernelCycles?: number;
  /**
   * Kernels an MoE layer's decode step launches beyond a dense MLP's (router GEMM, top-k, token alignment by
   * expert, the weighted sum of the experts' outputs); each costs a graph kernel's gap. Absent: 0.
   */
  moeRoutingKernels?: number;
  /**
   * Time: the same count where the engine's depends on its build's decode graph (TimeOptions.unfusedGraph,
   * noMoeFusion, noGemvFusion: DecodeGraphBuild) and on the model's routing (its config model_type and top-k), read in
   * place of moeRoutingKernels (time/decode-host.ts moeRoutingKernelCount). Not read for a build whose expert matmul
   * runs one expert slot per op (TimeOptions.mulMatIdSync), whose routing perSlotMoeKernels counts. Absent: moeRoutingKernels.
   */
  moeRoutingKernelsByGraph?: (modelType: string, topK: number, graph: DecodeGraphBuild) => number;
  /**
   * Kernels a decode layer whose attention normalizes q and k per head (ModelFacts.qkNormLayers) launches on the
   * step's critical path for those norms, at one sequence and above one; each costs a graph kernel's gap. `eager`:
   * the kernels an eagerly launched prefill layer issues for them (FrameworkProfile.eagerPrefill). Absent: 0.
   */
  qkNormKernels?: { one: number; more: number; eager: number };
  /**
   * Time: kernels a decode step launches beyond the counted chain (OPS_PER_LAYER_COMPILED, moeRoutingKernels) where the
   * model has parts the engine runs as kernels of their own, each at a graph kernel's gap, by the config's model_type
   * and the GPU's compute capability, or its gfx target on AMD (time/decode-host.ts decodeFeatureKernels;
   * engines/<engine>/decode-kernels.ts).
   * `mlaLayer`: per MLA layer (ModelFacts.mlaLayers); `sharedExpert`: per MoE layer with a shared expert
   * (ModelFacts.sharedExpertLayers); `biasedRouter`: per MoE layer of the model types whose router adds a score
   * correction bias before a grouped top-k; `blockFp8Linear` and `blockFp8Moe`: where the blockwise FP8 path runs
   * (time/block-fp8.ts runsBlockFp8Path), per block-scaled FP8 linear (blockFp8Gemms) and per MoE layer of
   * block-scaled FP8 experts, the kernels that prepare their activations; `blockFp8PadSm90`: those a linear adds on
   * compute capability 9.0 only (a row pad the SM90 GEMM needs). Absent, or undefined for the model and GPU: none.
   */
  decodeFeatureKernels?: DecodeFeatureKernelsOf;
  /**
   * Kernels a decode layer of plain attention (ModelFacts.plainAttnLayers) launches above one sequence to copy its q,
   * a strided view of the fused qkv output, into a contiguous tensor for the attention kernel; each costs a graph
   * kernel's gap (a prefill's, an eager launch where the engine launches prefills eagerly). Absent: 0.
   */
  stridedQCopyKernels?: number;
  /**
   * Time: the model types (config model_type) whose tensor-parallel all-reduces the engine fuses with the residual add
   * and RMSNorm after them on cards of compute capability `minCc` and up, without DP attention: each decode layer's two
   * all-reduces take their norms' kernels with them (one kernel fewer each; the last layer's second has no norm to
   * take), up to `maxTokens` tokens a forward where given. Absent: none.
   */
  allReduceNormFusion?: { modelTypes: readonly string[]; minCc: number; maxTokens?: number };
  /**
   * Time: the batch a CUDA-graph decode step of `batch` sequences runs, padded up to the next captured batch size
   * (or `batch` itself above the largest). The padded rows go through every layer with the real ones, so an MoE
   * layer routes them too: the distinct experts a step reads count the padded batch (`ep`: the expert-parallel
   * degree, under which an engine may mask them). Absent: no padding.
   */
  graphBatch?: (batch: number, ep: number) => number;
  /**
   * Time: the largest decode batch the engine captures in CUDA graphs by default on a card of `capacityBytes` at this
   * TP and PP; a larger step runs eagerly, each kernel launched from the host. Absent: every batch is captured.
   */
  graphMaxBatch?: (capacityBytes: number, tp: number, pp: number) => number;
  /**
   * Time: the engine runs a prefill (extend) forward without CUDA graphs, each kernel launched from Python, so a prefill
   * takes at least the host's launches (time/graph-step.ts eagerPrefillHostSeconds). Absent: captured or compiled. */
  eagerPrefill?: boolean;
  /** Time: the host's price of one call of that eager forward; absent: an eager op's (EAGER_DECODE_OP_SECONDS). */
  eagerPrefillCallSeconds?: number;
  /**
   * Time: the calls the engine's eager prefill forward issues from Python for each dense and each MoE decoder layer of
   * the config's model_type on a GPU of compute capability `cc` (`blockFp8`: block-scaled FP8 weights) laid out as
   * `parallel` says, norms, linears' activation quantization and DP attention's gathers and scatters included, the
   * all-reduces not (time/graph-step.ts eagerPrefillHostSeconds; engines/<engine>/extend-kernels.ts). Absent, or
   * undefined there: a graph-captured decode layer's count with the engine's routing and q-norm kernels.
   */
  eagerPrefillLayerKernels?: PrefillLayerKernels;
  /**
   * Time: the engine schedules a prompt's prefill chunks into the running decode steps (chunked prefill mixing
   * prefill and decode tokens in one forward), so a neighbour's prefill shares the step's read of the weights
   * (time/serving-request.ts servingTime). Absent: a prefill runs as a batch of its own.
   */
  prefillInDecodeStep?: boolean;
  /**
   * Time: a step that holds a prompt chunk replays piecewise CUDA graphs, its attention ops issued eagerly between them,
   * where decode-only steps replay one full graph (time/mixed-step.ts). Absent: every step is priced alike.
   */
  mixedStepsPiecewise?: boolean;
  /**
   * Time: whether the engine's prefill forward reads a device value on the host before it launches its first kernel,
   * for a model of this config model_type, MLA attention or not, on a GPU of compute capability `cc` (0 on AMD). Under
   * an overlapped scheduler a neighbour's prefill then launches only once the decode step before it has finished, so
   * the decoding requests wait for all of its launches or GPU work, not for what outlasts that step
   * (time/serving-request.ts servingTime). Absent: the launches run beside the step before.
   */
  prefillHostSync?: (modelType: string, mla: boolean, cc: number) => boolean;
  /**
   * Time: the kernels a decode layer launched in the engine's builds before it fused ops on the GPU
   * (TimeOptions.unfusedGraph): `perLayer` for the layer's ops, plus `perQuantizedLinear` for each linear layer
   * of quantized weights (an activation-quantizing kernel before it); each costs a graph kernel's gap in place of
   * time/train-work.ts OPS_PER_LAYER_COMPILED. Absent: that count.
   */
  unfusedDecodeKernels?: {
    perLayer: number;
    perQuantizedLinear: number;
    /** Kernels a layer launches fewer with flash attention (--attention flash): its attention as one kernel. */
    flashAttentionFewer?: number;
  };
  /** Time: on an Apple GPU (Metal) a decode kernel boundary's seconds and kernels a quantized linear adds (decodeHost). */
  metalDecode?: { kernelSeconds: number; quantizedLinearKernels: number };
  /**
   * Time: ops the engine folds into a mat-vec up to `maxColumns` batch rows and launches apart above them, or in a
   * build before the fusion (TimeOptions.noGemvFusion), each at a graph kernel's gap beyond the counted chain
   * (time/decode-host.ts gemvApartKernels): `perBiasedLinear` per biased linear of a layer (its bias add), `gluPair`
   * per gated layer (the second mat-vec of the gate/up pair and the GLU), `gluPairQuantized` more per gated layer on
   * quantized weights (the second mat-vec's activation quantization). Not read for an unfused graph, which has its
   * own count. Absent: no such fusion.
   */
  gemvFusion?: {
    maxColumns: number;
    perBiasedLinear: number;
    gluPair: number;
    gluPairQuantized: number;
  };
  /**
   * Time: an MoE layer's fused-expert call at batch 1 beyond its weight bytes and kernel gaps, by GPU generation
   * (time/moe-call.ts), seconds. Absent: 0. NVFP4 experts on Blackwell: `blackwellNvfp4`, on 10.x `sm100Nvfp4` first;
   * MXFP4 experts on 10.x: `sm100Mxfp4` where the engine runs them through another kernel than its 16-bit chain;
   * block-scaled FP8 experts on 10.x: `sm100BlockFp8` where its table says so (DecodeFeatureKernels.trtllmMoeBlockFp8).
   */
  moeCallSeconds?: { ampere: number; hopper: number; blackwell: number } & Partial<
    Record<'blackwellNvfp4' | 'sm100Nvfp4' | 'sm100Mxfp4' | 'sm100BlockFp8', number>
  >;
  /**
   * Time: FLOP/s of the routed experts' GEMMs where the engine multiplies MXFP4 experts by 16-bit activations on 10.x
   * (time/fp4-bf16-moe.ts): no tcgen05 MMA kind takes FP4 x BF16, so the call converts the weights on the SMs and
   * multiplies in BF16, at the call's measured rate. Absent: the step's GEMM rate.
   */
  sm100Mxfp4Bf16MoeFlops?: number;
  /**
   * Time: model types whose MoE router GEMM the engine runs in fp32 on the CUDA cores, from release `from` and
   * before `before` (time/fp32-router.ts; vLLM's GLM-4.5 gate, engines/vllm/fp32-router.ts). Applied where the run's
   * release is known (TimeOptions.engineVersion). Absent: the router in the model's dtype.
   */
  fp32Router?: { modelTypes: readonly string[]; from: string; before: string };
  /**
   * Time: the fused-expert GEMM kernel's K tile and pipeline depth for 16-bit experts at decode (time/moe-call.ts
   * fusedMoeChainSeconds): a program walks K in blockK steps, stages - 1 loads in flight (`rocmStages` on an AMD
   * Instinct GPU, whose HBM round trip each waits; absent, not timed there). Absent: no K-loop chain is timed.
   * `grid`: its launch grid's early-exiting programs (time/moe-grid.ts); `defaults`: its default tiles where no tuned
   * config file ships, per dtype family, 16-bit or block-FP8 (time/moe-default-tiles.ts).
   */
  fusedMoeTile16?: FusedMoeTile16;
  /**
   * Time: a block-scaled FP8 linear (128x128 weight blocks, per-token-group activations) at decode, per GPU generation
   * where the engine's blockwise GEMM was timed (`hopper`: cc 9.x; time/block-fp8.ts blockFp8LinearFigures), beyond
   * its weight bytes at the modelled FP8 read rate: a fixed cost plus a cost per 128-wide block of its input
   * dimension K (time/block-fp8.ts), seconds. Absent: 0. `peakShare8`: the share of the 8-bit tensor peak the same
   * kernel reaches at prefill M (thousands of rows), where it is compute-bound: a prefill's GEMMs on a block-scaled
   * checkpoint run at no more than that (time/block-fp8.ts blockFp8GemmRate). Absent: the W8A8 GEMM rate. `rocm`: the
   * same decode cost on the AMD gfx targets listed, where the engine runs its ROCm blockwise kernel; with
   * `sharedExpertsFused` the MoE layers' shared expert runs inside the fused-MoE call there, not as linears, and with
   * `absorbDequant` MLA's kv_b is widened to 16 bits in every step (memory/rocm-block-fp8.ts); `rocmPrefill`: the prefill
   * ceiling of the engine's Triton blockwise kernels there; `ada`: the prefill ceiling of the routed experts' Triton
   * fused MoE on compute capability 8.9 (no CUTLASS or DeepGEMM blockwise kernel below SM90). On Hopper
   * `sharedExpertsFused` says for which models (by architecture and routed experts) and expert-parallel degree it does,
   * and `moePeakShare8` is the routed experts' prefill ceiling where the engine's MoE runner there is not the blockwise
   * kernel of `peakShare8` (absent: `peakShare8`).
   */
  blockFp8Linear?: {
    hopper: {
      baseSeconds: number;
      perKBlockSeconds: number;
      peakShare8?: number;
      moePeakShare8?: number;
      sharedExpertsFused?: (
        model: { architecture: string; routedExperts: number },
        ep: number,
      ) => boolean;
    };
    rocm?: RocmBlockFp8Linear;
    rocmPrefill?: RocmBlockFp8Prefill;
    ada?: { moePeakShare8: number };
    /** On SM100 (cc 10.x), releases named before `before` run a Triton blockwise kernel: its decode figures. */
    sm100Triton?: { before: string; baseSeconds: number; perKBlockSeconds: number };
  };
  /**
   * Time: on an AMD GPU, a decode linear the engine hands to the vendor BLAS library (hipBLASLt, where its skinny
   * kernels do not take the shape): a fixed cost per call plus the weight bytes at a share of the modelled stream
   * rate (time/rocm-gemm.ts), and the most batch rows its skinny kernels take, for 16-bit and per-tensor FP8 weights
   * (a linear with a bias always goes to the library). Absent: every linear at the modelled read rate.
   */
  rocmLibraryGemm?: {
    floorSeconds: number;
    readShare: number;
    skinnyRows16: number;
    skinnyRowsFp8: number;
  };
  /**
   * Time: a build whose expert matmul op copies the routing ids to the host and waits on the stream before it
   * launches the selected expert's mat-vec, one op per expert slot and projection (TimeOptions.mulMatIdSync): the
   * host round trip each such op adds to a decode step, seconds. Absent: 0.
   */
  expertIdsSyncSeconds?: number;
  /**
   * Time: the kernels an MoE layer of such a build (one expert matmul op per slot, TimeOptions.mulMatIdSync)
   * launches in a decode step beyond a dense MLP's count: `routing` for the router's probabilities, selection and
   * weight normalization (router mat-vec included), and `perSlot` for each expert slot's ops beside its projections
   * and activation (the routing-weight multiply and the add into the sum; the first slot starts the sum); each
   * slot's projections launch their own mat-vec (and activation-quantizing kernel) per batch row. Each costs a
   * graph kernel's gap (time/decode-host.ts perSlotMoeKernels). Absent: 0.
   */
  perSlotMoeKernels?: { routing: number; perSlot: number };
  /** Time: the routed-expert matmul at a decode batch (time/moe-tile.ts): per-(token, slot) mat-vecs up to
   * `perSlotMaxTokens` tokens, above them (from compute capability `tile.minCc`) a tile kernel whose column tiles,
   * `granularity` wide steps (`wide` from `wideFrom`) up to `maxColumns`, cover the step's tokens. Absent: routed FLOPs. */
  moeBatchKernel?: {
    perSlotMaxTokens: number;
    tile: Record<'minCc' | 'granularity' | 'wideFrom' | 'wide' | 'maxColumns', number>;
  };
  /** Time: the attention calls a piecewise-graph decode step issues outside its graphs (PiecewiseAttentionCalls). */
  piecewiseAttentionCalls?: PiecewiseAttentionCalls;
  /**
   * Time: a prefill's attention with an fp8 KV cache on GPUs of compute capability `cc`, where the engine quantizes the
   * query to FP8 and runs its own attention kernel: the share of the card's 8-bit tensor peak (twice the 16-bit) that
   * kernel reaches (time/decode.ts prefillGpuSeconds). Absent: attention at the prefill's GEMM rate.
   */
  fp8KvPrefillAttention?: { cc: number; peakShare: number };
  /**
   * Time: a prefill's attention on an AMD GPU (ROCm), where the engine runs a Triton attention kernel over its paged
   * cache: the share of the card's 16-bit peak that kernel reaches (time/decode.ts prefillGpuSeconds). Absent:
   * attention at the prefill's GEMM rate.
   */
  rocmPrefillAttention?: { peakShare: number };
  /**
   * Time: whether the engine's prefill attention on an NVIDIA GPU of compute capability `cc` skips the key tiles left
   * of a sliding-window layer's window, so such a layer's queries attend at most the window (time/prefill-attention.ts
   * prefillAttentionFlops). Absent, or false: every layer's queries attend the whole causal prefix.
   */
  prefillWindowSkip?: (cc: number) => boolean;
  /**
   * Time: a decode step's attention on an AMD GPU (ROCm): the paged cache's block sizes, head sizes and query heads a
   * KV head (at most) the engine's split-context HIP kernel takes, the cache's block size where none is given, and the
   * most tokens a tile of the fallback Triton kernel, which runs one program a sequence and KV head and walks its
   * context one tile at a time (time/decode-attention.ts unsplitChainSeconds), and the two kernels' KV read
   * (memory/rocm-paged-decode.ts). Absent: no such fallback.
   */
  rocmPagedDecode?: RocmPagedDecode;
  /**
   * Time: the decode-attention kernel family the engine runs for a model (its config's model_type, whether its
   * attention is an MLA latent) on an NVIDIA GPU of compute capability `cc`, where a kernel benchmark gives that
   * family's sustained KV read rate (time/decode-attention.ts). Absent, or undefined: the card's stream rate.
   */
  decodeAttention?: (
    modelType: string,
    mla: boolean,
    cc: number,
  ) => DecodeAttentionFamily | undefined;
  /** Time: decode calls of that family that walk their keys unsplit (time/decode-attention.ts unsplitWalkSeconds). */
  unsplitDecodeWalk?: UnsplitDecodeWalk;
  source: string;
  /**
   * GRPO with vLLM colocated: the trainer's model and vLLM share one copy of the weights (Unsloth's
   * fast_inference) instead of vLLM loading its own; absent = a separate copy (TRL).
   */
  rolloutSharesWeights?: boolean;
  /**
   * GRPO: the trainer scores each generation batch with the policy before training on it, a no-grad forward for
   * the old per-token log-probs, whenever it generates with vLLM (its importance-sampling correction of the vLLM /
   * trainer mismatch, on by default) or generation does not line up with the optimizer step
   * (gradient_accumulation_steps not a multiple of steps_per_generation): TRL from v0.23.0
   * (huggingface/trl@35def3ee000a87f6839e66f4b7749b06274ed1b3 trl/trainer/grpo_trainer.py
   * `_generate_and_score_completions`, grpo_config.py `vllm_importance_sampling_correction=True`). Absent: no such
   * pass (time/objective.ts).
   */
  grpoOldLogprobs?: boolean;
  /** GRPO trains at its generation batch's padded length (time/objective.ts policyTrainOptions). Absent: the mean. */
  grpoPadsGenerationBatch?: boolean;
  /**
   * GRPO with vLLM colocated and put to sleep while the trainer trains (--rollout-sleep): the host housekeeping the
   * engine's sleep and wake-up run once each around every generation batch, as full Python garbage collections
   * (gc.collect) and caching-allocator flushes (torch.cuda.empty_cache), timed in time/sleep-cycle.ts. Absent: none.
   */
  rolloutSleepCycle?: { gcCollects: number; emptyCaches: number };
  /** vLLM's share of each GPU where the engine sets it (gpu_memory_utilization); absent = TRL's 0.3. */
  rolloutMemory?: number;
  /**
   * Ops an adapted linear's LoRA issues beside its base matmul when the engine runs the adapter unmerged in its own
   * eager `generate` (TimeOptions.unmergedAdapter; time/decode.ts). Absent: PEFT's lora.Linear.forward
   * (train-work.ts LORA_OPS_PER_LINEAR).
   */
  loraForwardOps?: number;
  /** The trainer's own generate runs in training mode, LoRA dropout live (time/objective.ts). Absent: not counted. */
  generatesInTrainMode?: boolean;
  /** The trainer's own generate runs the forward its AMP wraps in torch.autocast (time/objective.ts). Absent: not. */
  generateAutocast?: boolean;
  loraForwardHost?: LoraForwardHost;
  /**
   * How the trainer's own generate reaches a policy sharded over its ranks (ZeRO-3, FSDP FULL_SHARD) or offloaded:
   * 'gather-once', one gather of every parameter around each generate call with the per-module hooks removed
   * (DeepSpeed under TRL's unwrap_model_for_generation); 'per-forward', every forward of the generate (the prefill
   * and each decode step) gathers each wrapped unit again (FSDP: TRL summons the root unit only). Either way TRL's
   * weight sync to vLLM gathers the whole model once (time/trainer-fetch.ts). Absent: not priced.
   */
  shardedGenerate?: 'gather-once' | 'per-forward';
  /**
   * Host seconds of the server-mode weight sync per named parameter tensor: one HTTP request, one collective_rpc and
   * one NCCL broadcast and barrier each (time/trainer-fetch.ts). Absent: not priced.
   */
  vllmSyncTensorSeconds?: number;
}

export { HF_CONTEXT_MIB, TORCH_CONTEXT_MIB, UPCAST_LOSS } from './profile-types.js';

/**
 * Bytes of one trainable adapter element as the engine keeps it (kbitTrainableBf16, castsParamsToComputeDtype,
 * zero3AdaptersInWeightDtype, then fp32Adapters); null: the weights' own float dtype.
 */
export function adapterBytes(fw: FrameworkProfile, quantized: boolean, zero: number): 2 | 4 | null {
  if (quantized && fw.kbitTrainableBf16 === true) return 2;
  if (!quantized && fw.castsParamsToComputeDtype === true) return null;
  if (!quantized && zero >= 3 && fw.zero3AdaptersInWeightDtype === true) return null;
  return fw.fp32Adapters ? 4 : null;
}
