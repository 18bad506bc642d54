/**
 * Time flags of the estimate contract (docs/DESIGN.md "Time"): parsed beside EstimateOptions, with the same
 * one-line FlagError for a bad value.
 */
import { z } from 'zod';
import type { EstimateOptions, Framework, WeightDtype } from './estimate.js';
import { GGUF_ONLY } from './estimate.js';
import { FlagError, type RawFlags } from './flags.js';

export const QUANT_FORMATS = [
  'bnb',
  'gptq',
  'awq',
  'exl2',
  'marlin',
  'torchao',
  'hqq',
  /** Tensor-core GEMMs on the low-precision weights and activations (CUTLASS FP8/FP4 W8A8, W4A4). */
  'cutlass',
  /** llama.cpp's quantized kernels on GGUF blocks (MMVQ / MMQ). */
  'gguf',
] as const;
/** How a transformers build's sliding decoder layer rebuilds its mask each step (TimeOptions.slidingMaskInLayer). */
export type SlidingMask = 'slice' | 'index';
export type QuantFormat = (typeof QUANT_FORMATS)[number];
/**
 * Kernels a serving engine runs on AMD GPUs where a CUDA family above has no ROCm build, as estimates and plans name
 * them (FrameworkProfile.rocmKernelNames); reported only, never a `--quant-format` value (the time model prices the
 * family it stands in for).
 */
export const ROCM_KERNELS = [
  /** torch._scaled_mm, i.e. hipBLASLt (and vLLM's skinny wvSplitKQ for a few rows): FP8 W8A8 on ROCm. */
  'hipblaslt',
  /**
   * Triton kernels: vLLM's int8 W8A8 (TritonInt8ScaledMM) and MXFP4 MoE (triton_kernels matmul_ogs) on ROCm; on CUDA
   * the MXFP4 MoE SGLang runs below SM90 (FrameworkProfile.cudaKernelNames).
   */
  'triton',
  /** AWQ int4 through Triton (vLLM's awq_gemm_triton, SGLang's awq_dequantize_triton) on ROCm. */
  'triton-awq',
  /** Petit's NVFP4 kernels (gfx90a, gfx942). */
  'petit',
  /** AMD's AITER kernels (SGLang's MXFP4 MoE on gfx950). */
  'aiter',
  /** SGLang's Triton fused_moe over MXFP4 experts it upcast to BF16 at load (FrameworkProfile.mxfp4UpcastExperts). */
  'triton-bf16',
] as const;
export type RocmKernel = (typeof ROCM_KERNELS)[number];
/** By weight dtype, the kernel an engine runs on AMD GPUs in place of each family (FrameworkProfile.rocmKernelNames). */
export type RocmKernelNames = Partial<
  Record<WeightDtype, Partial<Record<QuantFormat, RocmKernel>>>
>;
/**
 * By weight dtype, the kernel an engine runs on CUDA GPUs below compute capability `below` in place of a family
 * (FrameworkProfile.cudaKernelNames): named in estimates and plans, timed as the family (time/hardware.ts kernelName).
 */
export type CudaKernelNames = Partial<
  Record<WeightDtype, Partial<Record<QuantFormat, { below: number; name: RocmKernel }>>>
>;
/** The kernel a run's quantized weights go through, as `estimate --json` and a plan's choices name it. */
export type KernelName = QuantFormat | RocmKernel;
export const INTERCONNECTS = ['nvlink', 'pcie'] as const;
export type Interconnect = (typeof INTERCONNECTS)[number];

export interface TimeOptions {
  /** Micro-batches per optimizer step. */
  gradAccum: number;
  /** Fraction of board power, 0.3-1. */
  powerLimit: number;
  /** GPUs in one node. */
  gpusPerNode: number;
  /** Within a node; null = the GPU's catalog entry. */
  interconnect: Interconnect | null;
  /** GB/s per GPU between nodes. */
  interNodeGBps: number;
  /** Kernel family of quantized weights; null = the framework's usual one for the dtype. */
  quantFormat: QuantFormat | null;
  /**
   * The serving engine's scheduler runs in series with the GPU (vLLM before async scheduling became its default,
   * SGLang before v0.4's overlap scheduler): each decode step adds the engine's serialStepHostSeconds and serialSeqHostSeconds per running sequence. No flag
   * sets it; `validate --throughput` does for published rows measured on such versions (their `scheduler`).
   */
  serialScheduler?: boolean;
  /**
   * That serial loop is the one the engine's current release runs for the model type (FrameworkProfile
   * .serialLoopModelTypes): its per-request host work a step is the current release's (serialLoopSeqHostSeconds)
   * instead of serialSeqHostSeconds. Set with serialScheduler by time/estimate-time.ts serialLoopOptions; no flag sets it.
   */
  serialLoop?: boolean;
  /**
   * The serving engine ran its pre-V1 loop (vLLM's V0 engine, the default before v0.8): each decode step adds the
   * engine's v0StepHostSeconds plus v0SeqHostSeconds per sequence instead of serialStepHostSeconds. No flag sets it;
   * `validate --throughput` does for published rows measured on such versions (their `scheduler`: 'v0').
   */
  v0Scheduler?: boolean;
  /**
   * The engine release the timing measured ("0.5.5", "0.6.3.post1"): with v0Scheduler, a release from the engine's
   * v0OutputHost.since processes outputs beside the next forward (time/v0-host.ts). No flag sets it; `validate
   * --throughput` does for rows whose `engine_version` names it.
   */
  engineVersion?: string;
  /**
   * The attention backend the run named on its command line (SGLang's `--attention-backend triton`), where it is not
   * the engine's default for the model, GPU and release. No flag sets it; `validate --throughput` does for rows whose
   * `attention_backend` names it.
   */
  attentionBackend?: string;
  /**
   * The run added a tuned fused_moe config file for its experts that its release did not ship, so no default tiles
   * (time/moe-default-tiles.ts). No flag sets it; `validate --throughput` does for rows whose `fused_moe_config` is
   * 'tuned'.
   */
  moeTunedConfig?: boolean;
  /**
   * The run's build had no tuned fused_moe config file for its experts' shape although a release read ships one (a
   * tuning PR's Before column), so the default tiles ran (time/moe-default-tiles.ts). No flag sets it; `validate
   * --throughput` does for rows whose `fused_moe_config` is 'default'.
   */
  moeDefaultTiles?: boolean;
  /**
   * With v0Scheduler: the V0 engine ran with chunked prefill on (`--enable-chunked-prefill`), whose scheduler batches
   * the running decodes first and then prefill chunks into the same forward (vllm-project/vllm
   * docs/source/models/performance.rst, "Chunked Prefill"), so a neighbour's prefill shares the decode step's read of
   * the weights as under V1. No flag sets it; `validate --throughput` does for published rows whose command turned it
   * on (their `chunked_prefill`).
   */
  v0ChunkedPrefill?: boolean;
  /**
   * Requests a second the benchmark client sends a serving burst's `--batch` prompts at (`vllm bench serve` /
   * `sglang.bench_serving` `--request-rate R`): request i reaches the scheduler i / R seconds after the first
   * (time/length-spread.ts sentAt). Absent: all at once (`--request-rate inf`). Set by `--request-rate`, and by
   * `validate --throughput` for published bursts run at a finite rate (their `request_rate`).
   */
  requestRate?: number;
  /**
   * The timing covers the engine's forward pass only (llama-bench's test_gen: llama_decode, synchronize, a random
   * next token): the engine's per-step server loop and per-sequence sampling are not in it. No flag sets it;
   * `validate --throughput` does for published rows timed that way (their `harness`).
   */
  decodeOnly?: boolean;
  /**
   * The timed forward passes compute no logits: llama-bench's prompt test (test_prompt) hands llama_decode one batch
   * with its logits array NULL, which outputs the last token only ("if set to NULL ... only the last token is output",
   * llama_batch in ggml-org/llama.cpp include/llama.h @0011438e931ec7fd258433f61d411301a759fae2), so every microbatch but
   * the last selects no rows for the output head (the graph's inp_out_ids) and ggml-cuda skips the empty mat-mul
   * (`ggml_is_empty(node)`, ggml/src/ggml-cuda/ggml-cuda.cu): a pp512 run at -ub B reads the head once per 512/B steps.
   * The step reads no lm_head. No flag sets it; `validate --throughput` does for rows timed that way (harness
   * 'llama-bench-pp').
   */
  noOutputHead?: boolean;
  /**
   * The llama.cpp build multiplied F16 weights at batch 1 in dequantize_mul_mat_vec ('dmmv': builds before
   * ggml-org/llama.cpp#10318, November 2024), not today's mul_mat_vec: decode pays dmmv's latency-bound last wave of rows
   * (core/time/matvec-tail.ts). No flag sets it; `validate --throughput` does for rows of such builds.
   */
  f16MatVec?: 'dmmv';
  /**
   * The rig's PCIe link per GPU when it is not the card's own (a board that gives each of two cards x8 lanes,
   * an older PCIe generation): 'PCIe <gen> x<lanes>', read as the catalog's `interconnect.pcie`. No flag sets it;
   * `validate --throughput` does for published rows whose source describes the rig's lanes (their `pcie`).
   */
  pcieLink?: string;
  /**
   * The llama.cpp build ran MUL_MAT_ID one expert slot at a time, each op copying the routing ids to the host and
   * synchronizing the stream before it launched the expert's mat-vec (the Mixtral support of December 2023):
   * decode pays the engine's expertIdsSyncSeconds per op. No flag sets it; `validate --throughput` does for rows of
   * such builds (their `mul_mat_id`).
   */
  mulMatIdSync?: boolean;
  /**
   * The engine build launched every op of its decode graph, before it fused ops on the GPU (llama.cpp before
   * mid-2025): each layer pays the engine's unfusedDecodeKernels graph gaps instead of a compiled layer's. No flag
   * sets it; `validate --throughput` does for rows of such builds (their `ggml_graph`).
   */
  unfusedGraph?: boolean;
  /**
   * The llama.cpp build predates ggml-cuda's GEMV fusion (ggml-org/llama.cpp#16715, October 2025): its mat-vecs take
   * no bias add or gate/up GLU at any batch, so decode pays the engine's gemvFusion kernels at one row too. No flag
   * sets it; `validate --throughput` does for rows of such builds (their `ggml_graph`).
   */
  noGemvFusion?: boolean;
  /**
   * The llama.cpp build predates ggml-cuda's MoE routing fusions as well (its chains of adds, ggml-org/llama.cpp#15631,
   * opened 2025-08-28, and its top-k MoE kernel, ggml-org/llama.cpp#16130, September 2025): each routing op and each add of the experts' sum is its
   * own kernel (FrameworkProfile.moeRoutingKernelsByGraph). No flag sets it; `validate --throughput` does, with
   * noGemvFusion, for rows of such builds (their `ggml_graph`).
   */
  noMoeFusion?: boolean;
  /**
   * The engine build ran the model's 16-bit experts through Triton's fused_moe where the engine now runs them through
   * TensorRT-LLM's MoE (FrameworkProfile.decodeFeatureKernels trtllmMoe16: SGLang 0.5.6 took flashinfer_trtllm for
   * Qwen3-MoE's fp8 and modelopt_fp4 checkpoints only). No flag sets it; `validate --throughput` does for rows of such
   * builds (their `moe_runner`).
   */
  tritonMoe16?: boolean;
  /**
   * A vLLM run on ROCm with VLLM_ROCM_USE_AITER=1 (off by default in vllm/envs.py): its block-scaled FP8 GEMMs run
   * AITER's kernels, not the Triton ones the profile's `blockFp8Linear.rocmPrefill` prices. No flag sets it;
   * `validate --throughput` does for rows of such runs (their `rocm_aiter`).
   */
  rocmAiter?: boolean;
  /**
   * The engine build sized moe_align_block_size's buffer for every expert's padded block at any batch, before the
   * small-batch cap (sgl-project/sglang#14133): the fused_moe grid's early-exiting programs at a few tokens
   * (time/moe-grid.ts). No flag sets it; `validate --throughput` does for rows of such builds (their `moe_align`).
   */
  moeAlignUncapped?: boolean;
  /**
   * The engine build did not fuse the model's all-reduces with the norm after them (FrameworkProfile
   * allReduceNormFusion: SGLang 0.5.6 listed gpt-oss and the DeepSeek-V3 family only). No flag sets it; `validate
   * --throughput` does for rows of such builds (their `allreduce_norm_fusion`).
   */
  noAllReduceNormFusion?: boolean;
  /**
   * The library build ran a model's routed experts in a per-expert Python loop (transformers 4.x sparse MoE blocks,
   * e.g. Qwen2MoeSparseMoeBlock.forward: `for expert_idx in range(self.num_experts)`, before transformers 5's
   * experts_implementation="grouped_mm"): training times the experts with the 'loop' dispatch instead of the
   * engine's own. No flag sets it; `validate --throughput` does for rows of such builds (their `moe_dispatch`).
   */
  moeLoop?: boolean;
  /**
   * The run's DeepSpeed hooked every module inside the sparse MoE blocks that the engine's DeepSpeed marks as ZeRO-3
   * leaf modules by default (a DeepSpeed before v0.18.0, deepspeedai/DeepSpeed#7604, under a harness that set no leaf
   * module): each expert's modules are gathered, released and hooked one by one (time/zero-hooks.ts). No flag sets
   * it; `validate --throughput` does for rows of such runs (their `deepspeed_moe_leaf`).
   */
  zeroMoeHooked?: boolean;
  /**
   * Model saves a measured step time holds, per optimizer step: a trainer's own checkpoints inside a run timed from
   * its first step to its last (transformers' `train_runtime`), each one under ZeRO-3 a consolidated 16-bit state
   * dict gathered to rank 0's host (time/model-save.ts). No flag sets it; `validate --throughput` does for rows whose
   * figure includes saves (their `timed_saves` over `timed_steps`).
   */
  savesPerStep?: number;
  /**
   * A dense MoE block (the engine's moeDense: Llama4TextMoe) whose experts the run replaced with one nn.Linear set per
   * expert, run one after another (axolotl's llama4_linearized_experts, monkeypatch/models/llama4/modeling.py): each
   * expert reads its slice of the repeated tokens and writes its slice of the output, whose gradients autograd
   * builds at the size of the whole block (time/train-work.ts DENSE_LOOP_*). No flag sets it; `validate --throughput`
   * does for rows of such runs (their `moe_dispatch`).
   */
  denseMoeLoop?: boolean;
  /**
   * PEFT LoRA on the fused experts' gate_up_proj and down_proj of this many MoE layers through ParamWrapper
   * (LoraConfig.target_parameters naming those layers), beside the options' LoRA targets: their ΔW and W + ΔW work
   * (time/param-wrapper.ts expertParamLoraWork), W + ΔW rebuilt at each hit expert's access where the experts loop.
   * No flag sets it; `validate --throughput` does for rows of such runs (their `expert_param_lora_layers`).
   */
  expertParamLoraLayers?: number;
  /**
   * The run quantized the MoE's fused 3-D expert parameters at load (EstimateContext.quantizedExperts: axolotl's
   * quantize_moe_experts), so no routed expert is left in floating point (time/float-experts.ts): each access of a
   * layer's expert stack dequantizes all of it through the parametrization (axolotl-ai-cloud/axolotl@067b021c
   * src/axolotl/monkeypatch/moe_quant.py), in the forward, the recompute and the backward as every k-bit linear.
   */
  quantizedExperts?: boolean;
  /**
   * Decode runs every routed expert on every token: transformers 4.55-4.57's GptOssExperts.forward outside training
   * repeats the hidden states once per expert and multiplies them by all experts' weights with torch.bmm, then weights
   * the outputs by the router (huggingface/transformers@00d4b3d2142cb4ced2f51b90614b5d26bc045015
   * src/transformers/models/gpt_oss/modeling_gpt_oss.py), so a decode step reads every expert, not the distinct ones
   * its tokens route to. No flag sets it; `validate --throughput` does for rows of such rollouts (their
   * `generate_experts`).
   */
  generateAllExperts?: boolean;
  /**
   * The decode runs a LoRA policy's adapters unmerged, eagerly: the trainer's own `generate` of a GRPO rollout
   * (`--rollout hf`) of a LoRA or QLoRA policy. The ops each adapted linear of a layer issues beside its base matmul
   * (the policy engine's FrameworkProfile.loraForwardOps, PEFT's otherwise; time/decode-host.ts `decodeHost`). Set by the
   * objective's rollout (time/objective.ts), not by a flag.
   */
  unmergedAdapterOps?: number;
  /**
   * The ops each 4-bit bitsandbytes linear issues at an eager decode step where the policy engine's own generate calls
   * the dequantize kernels itself (FrameworkProfile.generateDecode), in place of bitsandbytes' module path
   * (time/decode-host.ts `decodeHost`). Set by the objective's rollout (time/objective.ts), not by a flag.
   */
  bnb4DecodeOps?: number;
  /**
   * Cast ops torch.autocast adds to each decode step of the trainer's own `generate` over fp32 weights (time/objective.ts
   * autocastDecodeOps; time/decode-host.ts `decodeHost`). Set by the objective's rollout, not by a flag.
   */
  autocastDecodeOps?: number;
  /**
   * The decode generates with a training engine's own model (the trainer's `generate` of a GRPO rollout): that
   * engine's expert storage applies, after its k-bit training preparation (time/float-experts.ts), not the storage of
   * the engine whose decode kernels time the step. Set by the objective's rollout (time/objective.ts), not by a flag.
   */
  expertsOf?: Framework;
  /**
   * The ops each adapted linear's LoRA issued in the measured build's own generate, where that build differs from the
   * engine's profile (FrameworkProfile.loraForwardOps); time/objective.ts hands it to the rollout's decode. No flag sets
   * it; `validate --throughput` does for rows of such builds (their `lora_forward_ops`).
   */
  loraForwardOps?: number;
  /**
   * The measured build's eager generate ran each decoder layer partly through torch.compile'd functions: the layer's
   * own eager ops outside them (routing included), its compiled calls, and how many of those replay a CUDA-graph tree
   * (unsloth_zoo's gpt-oss decode path; time/decode-host.ts `compiledLayerHost`). `sync`: the layers whose cache
   * update blocks the host on the stream, and the eager ops and compiled calls the host issues between the previous
   * layer's MoE call and that sync (time/decode-host.ts `layerSyncStall`). No flag sets it; `validate --throughput`
   * does for rows of such builds (their `generate_layer`).
   */
  generateLayer?: {
    eagerOps: number;
    compiledCalls: number;
    cudagraphCalls: number;
    sync?: { layers: number; eagerOps: number; compiledCalls: number };
  };
  /**
   * The 4-D attention masks the measured build's generate made for every decode step through torch.vmap
   * (transformers' create_masks_for_generate on a static cache: one per distinct layer type, two for gpt-oss), host
   * work before the step's first layer while the GPU idles (time/decode-host.ts GENERATE_MASK_LAYERS). No flag sets
   * it; `validate --throughput` does for rows of such builds (their `generate_masks`).
   */
  generateMasks?: number;
  /**
   * The measured build's transformers (before 4.53) rebuilds the 4-D mask inside each sliding decoder layer (Gemma 2,
   * Gemma 3): 'slice' (4.50.0: tril/where, then a slice at a host offset), 'index' (4.52.4: the offset as a tensor and
   * an index by it); engines/hf/eager-modules.ts counts each. No flag sets it (the pinned transformers builds its masks
   * once a step); `validate --throughput` does for rows of such builds (their `sliding_mask_in_layer`).
   */
  slidingMaskInLayer?: SlidingMask;
  /**
   * The measured run padded each batch to its longest sample and ran transformers' SDPA attention, which then passes
   * the padding mask to scaled_dot_product_attention with is_causal=False (LlamaSdpaAttention, transformers 4.36):
   * every key block is computed and the mask read (time/train-work.ts SDPA_MASK_BYTES), by the memory-efficient
   * kernel at SDPA_MEM_EFF_ATTN_SHARE of the flash rate. No flag sets it (the
   * estimate contract's samples fill --seq); `validate --throughput` does for rows of such runs (their `sdpa_mask`).
   */
  sdpaPaddingMask?: boolean;
  /**
   * The measured run handed SDPA inputs no fused kernel takes, so PyTorch ran its math path: key and value with fewer
   * heads than the query before enable_gqa (torch 2.0-2.4's sdp_utils require equal num_heads for the flash and
   * memory-efficient kernels), as Falcon-7B's remote modelling code of 2023 passes its one multi-query head. The
   * scores are materialized and the causal mask added to the whole square (time/train-work.ts SDPA_MATH_SCORE_PASSES).
   * No flag sets it (the pinned transformers repeats or groups the heads); `validate --throughput` does for rows of such
   * runs (their `sdpa_backend`).
   */
  sdpaMath?: boolean;
  /**
   * The measured run's SDPA ran cuDNN's fused attention: PyTorch puts the cuDNN backend first on compute capability
   * 9.0 and 10.x when the cuDNN it loads is newer than 9.15.0 (aten/src/ATen/native/transformers/cuda/sdp_utils.cpp
   * `check_prefer_cudnn_attention`, pytorch/pytorch@001f694a), and torch's context_parallel ring runs whichever
   * backend SDPA chose (torch/distributed/tensor/experimental/_context_parallel/_attention.py `_sdpa_handler`,
   * pytorch/pytorch@09b101c5: the cuDNN op maps to `_scaled_dot_product_ring_cudnn_attention`).
   * The attention is timed at GpuRates.attnCudnn (time/hardware.ts). No flag sets it (the torch and cuDNN builds are
   * not estimate inputs); `validate --throughput` does for rows that name the backend (their `sdpa_backend`).
   */
  sdpaCudnn?: boolean;
  /**
   * The engine build ran its loss uncompiled whatever --compile said, the engine profile's loss.compiledWithModel aside
   * (torchtitan from 2024-12-18 to 2025-02-20, train.py @9dec370: "compiling loss function causes CUDA errors, turning
   * off for now"; prime-rl's trainer compiles each decoder layer alone, `apply_compile` in
   * src/prime_rl/trainer/model.py @b798a90d, and its SFT loop runs torch CrossEntropyLoss over the logits cast
   * `.float()`, sft/train.py): the loss's logit traffic is the eager loss's (time/train-work.ts). No flag sets it;
   * `validate --throughput` does for rows of such builds (their `loss_compile`), as EstimateContext.eagerLoss for memory.
   */
  eagerLoss?: boolean;
  /**
   * The build permuted the routed rows once more around its grouped experts to pad each expert's rows to an alignment
   * (torchtitan's `expert_parallel` wrapper before pytorch/torchtitan#1854, which prime-rl's trainer ran at its torchtitan
   * pin): the engine profile's `torchGroupedMm.alignPermute` passes join the experts' row traffic (time/grouped-mm.ts).
   * No flag sets it; `validate --throughput` does for rows of such builds (their `moe_permute`).
   */
  alignPermute?: boolean;
  /**
   * The build's causal-LM loss shifted the fp32 logits with a contiguous copy (transformers up to 4.48's
   * ForCausalLMLoss and the models' own losses before it; huggingface/transformers#35646, in v4.49, pads the labels
   * instead): the copy and its backward join the eager loss's logit traffic (time/loss-bytes.ts). No flag sets it;
   * `validate --throughput` does for rows of such builds (their `causal_loss`), as EstimateContext.shiftedLogitsCopy
   * for memory.
   */
  shiftedLogitsCopy?: boolean;
  /**
   * The measured run stepped torch.optim.AdamW with its defaults (foreach=None, fused=None: the foreach step on CUDA),
   * where the engine profile's stack launches it fused: the step's traffic is the foreach ops' passes
   * (time/optimizer-step.ts). No flag sets it; `validate --throughput` does for rows of such runs (their `adam_impl`).
   */
  adamForeach?: boolean;
  /**
   * The measured run's own loop clipped no gradient norm, where the engine profile's trainer clips every step
   * (FrameworkProfile.gradClip; time/optimizer-step.ts gradClipBytes). No flag sets it; `validate --throughput` does for
   * rows of such loops (their `grad_clip`).
   */
  noGradClip?: boolean;
  /**
   * The measured run stepped transformers.AdamW (the Trainer's `optim="adamw_hf"`, its default in transformers 4.18):
   * a Python loop of seven in-place ops a parameter tensor (time/optimizer-step.ts). No flag sets it; `validate
   * --throughput` does for rows of such runs (their `adam_impl: "hf-loop"`).
   */
  adamHfLoop?: boolean;
  /**
   * The engine build captured its decode step in piecewise CUDA graphs, each layer's attention run eagerly from
   * Python between the captured pieces (vLLM V1 before FULL_AND_PIECEWISE became its default): the host issues each
   * layer's attention calls, and the step waits for the host where those take longer than the GPU's work (the
   * engine's piecewiseAttentionCalls). No flag sets it; `validate --throughput` does for rows of such builds (their
   * `cuda_graphs`).
   */
  piecewiseGraphs?: boolean;
  /**
   * The engine build launched every kernel of its fused decode step from the host, with no CUDA or HIP graph replay
   * (llama.cpp's HIP builds before ggml-org/llama.cpp#22254 turned GGML_HIP_GRAPHS on): each kernel boundary costs a
   * host launch in place of a graph gap (time/decode-host.ts launchedKernelSeconds). No flag sets it; `validate
   * --throughput` does for rows of such builds (their `cuda_graphs`).
   */
  ungraphedDecode?: boolean;
  /**
   * The largest decode batch the engine build replays in CUDA graphs, in place of the engine's default
   * (FrameworkProfile.graphMaxBatch); a larger decode step runs eagerly, each kernel launched from the host. No flag
   * sets it; `validate --throughput` does for rows of builds whose limit differs (their `graph_max_batch`).
   */
  graphMaxBatch?: number;
  /**
   * With v0Scheduler: the run's `--max-seq-len-to-capture`, in place of the engine profile's default
   * (FrameworkProfile.v0GraphMaxSeqLen): a V0 decode step whose sequences are longer runs eagerly. No flag sets it;
   * `validate --throughput` does for rows whose command line sets it (their `max_seq_len_to_capture`).
   */
  maxSeqLenToCapture?: number;
  /**
   * The served run's `--max-model-len`: with v0Scheduler, the V0 scheduler's default step budget follows it
   * (FrameworkProfile.v0Scheduler). No flag sets it; `validate --throughput` does for rows whose command line sets
   * it (their `max_model_len`).
   */
  maxModelLen?: number;
  /**
   * The serving engine build parsed the model's chat template (its Jinja source) on every chat request, where the
   * engine's current release parses it once: each request costs the frontend the engine profile's
   * servingFrontend.templateParseSeconds more. No flag sets it; `validate --throughput` does for rows of such builds
   * (their `chat_template_parse`).
   */
  chatTemplateParse?: boolean;
  /**
   * The model's chat template's parse time over the template the engine profile's templateParseSeconds was timed on
   * (the parse follows the template's Jinja source): scales that per-request parse. Default 1. No flag sets it;
   * `validate --throughput` does for rows that say it (their `chat_template_parse_scale`).
   */
  chatTemplateParseScale?: number;
  /**
   * The run's DeepSpeed config set `overlap_comm: false`: ZeRO-2 and ZeRO-3 reduce each gradient bucket from
   * the compute stream and wait for it there before backward goes on (stage_1_and_2.py average_tensor: `stream =
   * current_stream()` unless overlap_comm, then each handle's wait; stage3.py `reduce_and_partition_stream` is the
   * default stream; DeepSpeed v0.16.5). A waited NCCL collective holds the stream it was waited on
   * (ProcessGroupNCCL: WorkNCCL::wait makes the current stream wait for the work's end event), so the reduces run
   * in series with backward. ZeRO-3's prefetched parameter gathers still overlap: issued (from the default stream as
   * well, parameter_offload.py `__allgather_stream`; the collective runs on ProcessGroupNCCL's stream after the work
   * queued before it) ahead of the current module's kernels and waited on only by the next module. No flag sets it
   * (vramplan's launcher writes overlap_comm true); `validate --throughput` does for rows whose config says so (their
   * `deepspeed_overlap_comm`).
   */
  serialComm?: boolean;
  /**
   * The run's FSDP set `forward_prefetch` (FSDP1: each unit's pre-forward also unshards the next unit in forward
   * order, torch/distributed/fsdp/_runtime_utils.py `_get_handle_to_prefetch`). vramplan's launcher writes it false
   * (engines/hf/accelerate.ts); `validate --throughput` sets it for rows whose config says so (their
   * `fsdp_forward_prefetch`). Read by time/fsdp-unshard-order.ts `forwardGathersInSeries`.
   */
  fsdpForwardPrefetch?: boolean;
  /**
   * The run's FSDP1 MixedPrecision reduced in float32 under a 16-bit param_dtype (`reduce_dtype=torch.float32`): each
   * unit's post-backward hook casts the unsharded 16-bit gradient to float32 on the post-backward stream
   * (`flat_param.grad.to(handle._reduce_dtype)`), reduce-scatters it at 4 bytes an element and casts the shard back to
   * the parameter dtype (torch/distributed/fsdp/_runtime_utils.py `_post_backward_hook`, `_cast_grad_to_param_dtype` at
   * pytorch/pytorch@00ae0bc91ac2c1718d1baa193d9d299e2b82776c). vramplan's launcher leaves accelerate's policy (reduce in
   * the mixed-precision dtype); `validate --throughput` sets it for rows whose run says so (their `fsdp_reduce_dtype`).
   * Read by time/train-comm-work.ts commWork.
   */
  fsdpReduceFp32?: boolean;
  /**
   * The run checkpointed each layer with torch's reentrant checkpoint at the model's call site (transformers'
   * `gradient_checkpointing_enable` without kwargs: `use_reentrant: True`, modeling_utils.py in the 4.45.2 and 4.48.1
   * wheels). torch's FSDP then gathers each unit a third time a micro-batch, for the recompute (time/
   * fsdp-unshard-order.ts `recomputeRegathers`; non-reentrant checkpointing recomputes on backward's gather), and under
   * FSDP1 with a per-expert loop each unit's backward gather runs in series (`backwardGathersInSeries`). Absent: the
   * engine profile's `reentrantCheckpoint`. vramplan's launcher writes non-reentrant checkpointing
   * (engines/hf/trainer.ts); no flag sets it; `validate --throughput` does for rows whose build ran it (their
   * `checkpoint_reentrant`).
   */
  reentrantCheckpoint?: boolean;
  /**
   * The run's FSDP is FSDP2 (`fully_shard`, accelerate's `fsdp_version: 2`): true adds its copies of each gathered unit
   * into the parameters and of the gradients into the reduce-scatter buffer on the compute stream, false leaves them
   * out (FSDP1's flat parameter gathers in place). Absent: the engine profile decides (FrameworkProfile.fsdp2: torchtitan
   * and torchtune always, hf-fsdp by the fsdp_version it writes or `--fsdp-version`). No flag sets it; `validate
   * --throughput` does for rows that state their `fsdp_version`. Read by time/fsdp2-copies.ts.
   */
  fsdp2?: boolean;
  /**
   * The run's DeepSpeed config left `reduce_bucket_size`, `stage3_prefetch_bucket_size` and
   * `stage3_param_persistence_threshold` 'auto', which transformers' Trainer fills from the model's hidden size (its
   * square, 0.9 of it, ten times it: integrations/deepspeed.py trainer_config_finalize): ZeRO-3's all-gathers and
   * reduce-scatters come in groups of those sizes, each its own collective (time/zero-collectives.ts,
   * time/zero-hooks.ts). No flag sets it (vramplan's launcher leaves the keys out: DeepSpeed's defaults);
   * `validate --throughput` does for rows whose config says so (their `deepspeed_buckets`).
   */
  zeroAutoBuckets?: boolean;
  /**
   * The run's DeepSpeed config left `offload_param.pin_memory` at its default, false (runtime/zero/offload_config.py
   * DeepSpeedZeroOffloadParamConfig, v0.9.5 to v0.18.3): the parameter partitions sit in pageable host memory and
   * each copy to the GPU goes through the driver's staging buffer (time/offload-work.ts PAGEABLE_COPY_SHARE). No
   * flag sets it (vramplan's launcher writes pin_memory true); `validate --throughput` does for rows whose config
   * says so (their `deepspeed_pin_memory`).
   */
  pageableOffload?: boolean;
  /**
   * The run's DeepSpeed config left `offload_optimizer.pin_memory` at its default, false before v0.19.5
   * (runtime/zero/offload_config.py DeepSpeedZeroOffloadOptimizerConfig; true from deepspeedai/DeepSpeed#8207): the
   * host gradient buffers (ZeRO-3's grad_partitions_flat_buffer, ZeRO-1/2's offloaded gradient partitions) are
   * pageable and each gradient copy to the host goes through the driver's staging buffer (time/offload-work.ts
   * PAGEABLE_COPY_SHARE). No flag sets it (vramplan's launcher writes pin_memory true); `validate --throughput` does
   * for rows whose config says so (their `deepspeed_optimizer_pin_memory`).
   */
  pageableGradOffload?: boolean;
  /**
   * The physical CPU cores of one node's host, where the run's source names its CPUs: an offloaded optimizer step's
   * host rate scales with them from the cores it was measured on (FrameworkProfile.hostStepCores,
   * time/optimizer-step.ts hostStepRate). No flag sets it (a plan keeps the measured rig's rate); `validate
   * --throughput` does for rows whose source names the host (their `host_cores`).
   */
  hostCores?: number;
  /**
   * The run was launched with DeepSpeed's `--bind_cores_to_rank` (each rank on its own physical cores, OMP_NUM_THREADS
   * set to their count: deepspeed/launcher/launch.py), so its host step runs at the bound rate, without
   * FrameworkProfile.hostStepUnboundShare. No flag sets it (vramplan's launch folders bind none); `validate
   * --throughput` does for rows launched so (their `deepspeed_bind_cores`).
   */
  hostCoresBound?: boolean;
  /**
   * The bitsandbytes build dequantized NF4/FP4 weights through its branch-tree kernel (releases before 0.48.0,
   * bitsandbytes-foundation/bitsandbytes#1746): each 4-bit dequantization pass takes core/time/bnb-dequant.ts's factor longer than a pass
   * at the memory rate on the GPUs it was measured slow on. No flag sets it (the pinned bitsandbytes has the lookup
   * kernel); `validate --throughput` does for rows of such builds (their `bnb_dequant`).
   */
  bnbTreeDequant?: boolean;
  /**
   * The measured build's offloaded checkpoints came back to the device in series with the backward: unsloth_zoo's
   * UnslothCheckpointFunction before its double buffering (unslothai/unsloth-zoo#534, May 2026) copies each layer's
   * saved input into one shared GPU buffer on a side stream that first waits for the compute stream, and the recompute
   * waits for that copy (time/offload-work.ts serialReloadBytes). No flag sets it (the pinned Unsloth double-buffers);
   * `validate --throughput` does for rows of such builds (their `checkpoint_reload`).
   */
  offloadReloadSerial?: boolean;
  /**
   * The measured TRL build (before v0.16) loaded the synced weights into the vLLM of its own process in one
   * `load_weights` call over the state dict (huggingface/trl v0.15.2 grpo_trainer.py _move_model_to_vllm), not one
   * request per tensor (FrameworkProfile.vllmSyncTensorSeconds). No flag sets it; `validate --throughput` does for
   * rows of such builds (their `trl_sync`).
   */
  vllmSyncOneCall?: boolean;
  /**
   * The measured GRPO trainer build ran its old log-probs forward (a no-grad pass of the policy over the generation
   * batch) under any vLLM rollout, whatever its importance-sampling setting: Unsloth 2026.3.17 rewrites trl's
   * `... or (self.use_vllm and self.vllm_importance_sampling_correction):` to `... or (self.use_vllm):`
   * (unsloth/models/rl_replacements.py grpo_trainer__generate_and_score_completions; Unsloth 2026.10.9 no longer does).
   * No flag sets it; `validate --throughput` does for rows of such builds (their `old_logprobs`).
   */
  vllmOldLogprobs?: boolean;
  /**
   * A k-bit training run's residual stream was fp32: TRL before v0.22's SFTTrainer ran PEFT's
   * prepare_model_for_kbit_training and then, under bf16, peft_module_casting_to_bf16, which keeps every norm in fp32
   * (huggingface/trl@v0.13.0 trl/trainer/sft_trainer.py, trl/trainer/utils.py); the norm's fp32 output reaches
   * bitsandbytes' Linear4bit, which returns its output in its input's dtype (bitsandbytes/nn/modules.py
   * Linear4bit.forward, `out.to(inp_dtype)`), so the MLP output and every residual sum after it are fp32
   * (time/kbit-stream.ts); under autocast an fp32-fed Linear4bit computes "in fp32" (set_compute_type), and the
   * casts of its weight, input and output are timed as bytes (kbitStreamCastBytes). No flag sets it (the pinned TRL
   * runs neither); `validate --throughput` does for rows of such builds (their `kbit_stream`).
   */
  kbitFp32Stream?: boolean;
  /**
   * The objective's trainer takes its loss from the model's whole logits (TRL's ORPO and CPO / SimPO: schema/objectives.ts
   * readsLogits): Liger's fused linear cross-entropy does not run, its other kernels do (EstimateContext.trainerReadsLogits).
   * No flag sets it; the objective's time (time/objective.ts) does for those objectives.
   */
  trainerReadsLogits?: boolean;
  /**
   * The k-bit run's LoRA adapters stayed fp32 as get_peft_model makes them (EstimateContext.kbitFp32Adapters): the
   * optimizer step and the offloaded gradients move them at 4 bytes where the engine's profile keeps them 16-bit
   * (core/memory/trainable-width.ts, the width memory counts). No flag sets it; `estimate` passes a `--from` reader's
   * build context (the axolotl reader sets it where its trainer is transformers' Trainer or TRL's ORPO / CPO).
   */
  kbitFp32Adapters?: boolean;
  /**
   * The measured build multiplied GPTQ int4 weights through auto-gptq's "cuda-old" QuantLinear, which for training-sized
   * inputs dequantizes the whole weight in torch ops before torch.matmul (time/gptq-dequant.ts). No flag sets it (the
   * pinned transformers loads GPTQ through gptqmodel's kernels); `validate --throughput` does for rows of such builds
   * (their `gptq_dequant`).
   */
  gptqTorchDequant?: boolean;
  /**
   * The rollout's decode steps ran bitsandbytes' 4-bit path in fp32: vLLM quantized an fp32-stored checkpoint while
   * loading (`quantize_4bit` records the tensor's dtype in its QuantState), unsloth_zoo's patched
   * `_apply_4bit_weight` computes in the QuantState's dtype, and vLLM captured its decode CUDA graphs inside
   * `load_vllm`, before Unsloth's `post_patch` set the shared QuantStates to the 16-bit dtype: each replayed step
   * dequantizes to fp32 and multiplies in fp32 (time/bnb-dequant.ts `copyBytes`). No flag sets it (vramplan does not
   * know a checkpoint's stored dtype); `validate --throughput` does for rows of such runs (their `bnb_decode_dtype`).
   */
  bnbDecodeFp32?: boolean;
  /**
   * The rollout's decode steps dequantized the routed experts' bitsandbytes 4-bit down projections to fp32 and the
   * other linears to 16 bits: Unsloth's gpt-oss load on a GPU without bf16 (forced float32) marks the experts'
   * `down_projs` for an fp32 QuantState (loader.py UNSLOTH_FORCE_CUSTOM_DTYPE, `_pre_set_compute_dtype`; unsloth_zoo
   * patching_utils `patch_model_and_tokenizer` sets `quant_state.dtype`), and unsloth_zoo's decode MoE
   * (temporary_patches/gpt_oss.py `moe_forward_inference`) runs them with autocast off on an fp32 input, which sets
   * bitsandbytes' Linear4bit compute dtype to fp32 (`set_compute_type`) (time/bnb-dequant.ts `copyBytes`). No flag
   * sets it; `validate --throughput` does for rows of such runs (their `bnb_decode_dtype`).
   */
  bnbDecodeFp32MoeDown?: boolean;
  /**
   * The run's LoRA adapters were created in the frozen weights' dtype and never cast to fp32: PEFT before 0.12.0
   * (LoraLayer.update_layer moves the adapters to the base weight's floating dtype, peft v0.10.0
   * tuners/lora/layer.py; get_peft_model's autocast_adapter_dtype, which keeps bf16/fp16 adapters in fp32, came in
   * v0.12.0) under pure 16-bit training: no cast of each adapted linear's input to the adapter dtype and back. No flag
   * sets it (the pinned PEFT casts); `validate --throughput` does for rows of such builds (their `lora_adapter_dtype`).
   */
  adaptersInWeightDtype?: boolean;
  /**
   * The run's LoRA dropout was above 0 where the engine's default has none (PEFT's nn.Dropout on each adapted linear's
   * input, forward and backward: LoraPathCost.dropoutIn; and at each decode step of a trainer's generate in training
   * mode: FrameworkProfile.generatesInTrainMode). No flag sets it; `validate --throughput` does for rows
   * whose run set it (their `lora_dropout`).
   */
  loraDropout?: boolean;
  /**
   * The run trained its 16-bit model without torch.autocast (no AMP): fp32 adapters then compute their branch in fp32
   * and the 16-bit base output is promoted to fp32 by the add and cast back (LoraPathCost.fp32Branch). No flag sets
   * it (the engines' trainers run autocast); `validate --throughput` does for rows of such runs (their `autocast`).
   */
  noAutocast?: boolean;
  /**
   * The run called torch.use_deterministic_algorithms(True) (warn_only or not) with fill_uninitialized_memory at its
   * default: every tensor allocated through the empty factories is filled with NaN first (LoraPathCost
   * deterministicFill on the LoRA path). No flag sets it; `validate --throughput` does for rows of such runs (their
   * `deterministic`).
   */
  deterministicFill?: boolean;
}

// DGX A100: eight 200 Gb/s HDR InfiniBand ports, one per GPU = 25 GB/s per GPU
// (https://docs.nvidia.com/dgx/dgxa100-user-guide/introduction-to-dgxa100.html); the scenario default too.
export const DEFAULT_INTER_NODE_GBPS = 25;

/** Which kernel families exist for which weight dtype (what each library ships). */
export const QUANT_FORMATS_FOR: Readonly<Record<string, readonly QuantFormat[]>> = {
  // bitsandbytes LLM.int8 (https://huggingface.co/docs/bitsandbytes); torchao int8 weight-only
  // (https://github.com/pytorch/ao); hqq 8-bit (https://github.com/mobiusml/hqq); GPTQ/EXL2 8-bit; Marlin
  // 8-bit weight-only, W8A16 (vLLM marlin_utils.py query_marlin_supported_quant_types: uint4b8 and uint8b128).
  int8: ['bnb', 'torchao', 'hqq', 'gptq', 'exl2', 'marlin'],
  // GPTQ/AWQ/Marlin/EXL2 4-bit integer kernels; torchao int4 weight-only; hqq 4-bit; bnb FP4/NF4 as int4.
  int4: ['gptq', 'awq', 'exl2', 'marlin', 'torchao', 'hqq', 'bnb'],
  nf4: ['bnb', 'torchao', 'hqq'],
  fp4: ['bnb'],
  // vLLM: FP8 W8A8 (CUTLASS, compute capability 8.9+) or weight-only FP8 Marlin on Ampere
  // (https://docs.vllm.ai/en/latest/features/quantization/fp8.html); MXFP4/NVFP4 likewise (Blackwell or Marlin).
  fp8: ['cutlass', 'marlin'],
  // llama.cpp's MXFP4 GGUF runs through its GGUF kernels (mmvq.cu vec_dot_mxfp4_q8_1).
  mxfp4: ['cutlass', 'marlin', 'gguf'],
  nvfp4: ['cutlass', 'marlin'],
  ...GGUF_ONLY,
};

export function defaultTimeOptions(gpus: number): TimeOptions {
  return {
    gradAccum: 1,
    powerLimit: 1,
    gpusPerNode: Math.min(gpus, 8),
    interconnect: null,
    interNodeGBps: DEFAULT_INTER_NODE_GBPS,
    quantFormat: null,
  };
}

function num(flags: RawFlags, flag: string): number | undefined {
  const v = flags[flag];
  if (v === undefined) return undefined;
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : NaN;
}

/** The lowest power limit accepted, as a fraction of board power (nvidia-smi's floor is near it). */
export const MIN_POWER_FRACTION = 0.3;

/**
 * `--power-limit` in every command: watts (`300W`, `300 W`, or a bare number above 1) or a fraction of
 * the board power (`0.8`). Null when the text is neither.
 */
export function parsePowerLimit(
  v: unknown,
): { fraction: number; watts?: undefined } | { watts: number; fraction?: undefined } | null {
  if (typeof v === 'number')
    return !Number.isFinite(v) ? null : v <= 1 ? { fraction: v } : { watts: v };
  if (typeof v !== 'string') return null;
  const m = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(w)?\s*$/i.exec(v);
  if (!m) return null;
  const n = Number(m[1]);
  return m[2] !== undefined || n > 1 ? { watts: n } : { fraction: n };
}

/** Power limit as a fraction of `boardPowerW`; throws FlagError with the range in both units. */
export function powerLimitFraction(v: unknown, boardPowerW: number | null | undefined): number {
  const range = boardPowerW
    ? `a fraction of board power from ${MIN_POWER_FRACTION} to 1 (0.8) or watts from ${Math.ceil(boardPowerW * MIN_POWER_FRACTION)} to ${boardPowerW} (${Math.round(boardPowerW * 0.8)}W)`
    : `a fraction of board power from ${MIN_POWER_FRACTION} to 1 (0.8); watts (300W) need a --gpu with a published board power`;
  const p = parsePowerLimit(v);
  if (p === null) throw new FlagError('power-limit', v, range);
  const f = p.fraction ?? (boardPowerW ? p.watts / boardPowerW : NaN);
  // A rounding tolerance so that the board power's own watts (450W on a 450 W card) are 1.
  const EPS = 1e-9;
  if (!(f >= MIN_POWER_FRACTION - EPS && f <= 1 + EPS))
    throw new FlagError('power-limit', v, range);
  return Math.min(1, f);
}

/** Time flags to TimeOptions for a configuration; throws FlagError naming the flag. */
export function timeOptionsFromFlags(
  flags: RawFlags,
  o: EstimateOptions,
  boardPowerW?: number | null,
): TimeOptions {
  const t = defaultTimeOptions(o.gpus);
  const ga = num(flags, 'grad-accum');
  if (ga !== undefined) {
    if (!Number.isSafeInteger(ga) || ga < 1 || ga > 1_000_000)
      throw new FlagError('grad-accum', flags['grad-accum'], 'an integer from 1 to 1000000');
    t.gradAccum = ga;
  }
  if (flags['power-limit'] !== undefined)
    t.powerLimit = powerLimitFraction(flags['power-limit'], boardPowerW);
  const gpn = num(flags, 'gpus-per-node');
  if (gpn !== undefined) {
    if (!Number.isSafeInteger(gpn) || gpn < 1 || gpn > 1024)
      throw new FlagError('gpus-per-node', flags['gpus-per-node'], 'an integer from 1 to 1024');
    if (o.gpus > gpn && o.gpus % gpn !== 0)
      throw new FlagError(
        'gpus-per-node',
        flags['gpus-per-node'],
        `a divisor of --gpus ${o.gpus} (whole nodes), or at least ${o.gpus}`,
      );
    t.gpusPerNode = gpn;
  }
  const ic = flags.interconnect;
  if (ic !== undefined && ic !== null) {
    if (typeof ic !== 'string' || !(INTERCONNECTS as readonly string[]).includes(ic))
      throw new FlagError('interconnect', ic, `one of ${INTERCONNECTS.join(', ')}`);
    t.interconnect = ic as Interconnect;
  }
  const inter = num(flags, 'inter-node-gbps');
  if (inter !== undefined) {
    if (!(inter > 0 && inter <= 10_000))
      throw new FlagError(
        'inter-node-gbps',
        flags['inter-node-gbps'],
        'GB/s per GPU, above 0 up to 10000',
      );
    t.interNodeGBps = inter;
  }
  const qf = flags['quant-format'];
  if (qf !== undefined && qf !== null) {
    if (typeof qf !== 'string' || !(QUANT_FORMATS as readonly string[]).includes(qf))
      throw new FlagError('quant-format', qf, `one of ${QUANT_FORMATS.join(', ')}`);
    const allowed = QUANT_FORMATS_FOR[o.weights];
    if (!allowed)
      throw new FlagError(
        'quant-format',
        qf,
        `no value with --weights ${o.weights} (kernel families apply to quantized weights)`,
      );
    if (!allowed.includes(qf as QuantFormat))
      throw new FlagError(
        'quant-format',
        qf,
        `one of ${allowed.join(', ')} with --weights ${o.weights}`,
      );
    t.quantFormat = qf as QuantFormat;
  }
  const rate = requestRateOf(flags, o);
  if (rate !== undefined) t.requestRate = rate;
  return t;
}

/** `--request-rate`: requests a second above 0, or inf (every prompt sent at once, the clients' default). */
const RequestRateSchema = z.union([z.literal('inf'), z.coerce.number().positive()]);

/**
 * `--request-rate R` (serving): the rate the client sends the burst's --batch prompts at (TimeOptions.requestRate);
 * undefined where absent or inf (all at once). Throws FlagError naming the flag, the value and what is allowed.
 */
function requestRateOf(flags: RawFlags, o: EstimateOptions): number | undefined {
  const v = flags['request-rate'];
  if (v === undefined || v === null) return undefined;
  const parsed = RequestRateSchema.safeParse(typeof v === 'string' ? v.trim() : v);
  if (!parsed.success || (typeof v === 'string' && v.trim() === ''))
    throw new FlagError('request-rate', v, 'requests a second above 0, or inf (all sent at once)');
  if (o.method !== 'inference')
    throw new FlagError('request-rate', v, 'only with --method inference');
  return parsed.data === 'inf' || !Number.isFinite(parsed.data) ? undefined : parsed.data;
}
