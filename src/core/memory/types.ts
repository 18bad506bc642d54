/** The memory estimate's result types: bytes per component, per phase and per pipeline stage. */
import { type CacheFigures } from './kv-layout.js';
import type { Mxfp4KernelContext } from './mxfp4-expert-profile.js';

/** Bytes per component; sums to deviceBytes. */
export interface Breakdown {
  weights: number;
  quantConstants: number;
  adapters: number;
  masterWeights: number;
  gradients: number;
  optimizer: number;
  activations: number;
  logits: number;
  kvCache: number;
  /** Gathered ZeRO-3 layers, autocast weight copies, gradient buckets, step temporaries. */
  buffers: number;
  /** Reserved-but-unallocated cache, CUDA context, paged (unified-memory) optimizer states. */
  overhead: number;
  /** Preference / RL only (objective.ts): the frozen reference copy, vLLM's weights and its KV pool. */
  referenceModel?: number;
  rolloutWeights?: number;
  rolloutKvCache?: number;
  /** PPO only (objective.ts): the value model trained beside the policy, and the frozen reward model. */
  valueModel?: number;
  rewardModel?: number;
  /**
   * Multimodal models with `images`: the vision tower's own activations over its patches (memory/vision.ts),
   * apart from the language model's `activations`. Absent without images.
   */
  visionActivations?: number;
}

export type Phase =
  | 'load'
  | 'forward'
  | 'backward'
  | 'backward-layer'
  | 'backward-end'
  | 'optimizer-step'
  | 'prefill'
  | 'decode'
  | 'rollout'
  | 'vision-encoder'
  | 'vision-backward';

export interface PhaseTotal {
  phase: Phase;
  allocatedBytes: number;
  /** What is allocated in this phase, by component, unrounded (no overhead: that is a device-level notion). */
  parts: Omit<Breakdown, 'overhead'>;
}

export interface MemoryEstimate {
  perGpu: {
    allocatedBytes: number;
    reservedBytes: number;
    deviceBytes: number;
    breakdown: Breakdown;
  };
  peakPhase: Phase;
  phases: PhaseTotal[];
  /** Host RAM per GPU process for offloaded states, parameters or checkpoints. */
  hostBytesPerGpu: number;
  /**
   * Paged KV-cache engines (vLLM) with a GPU: the pool left for KV blocks under gpu_memory_utilization,
   * what one token of one sequence takes in it, and the tokens that fit.
   */
  kvPool?: { poolBytes: number; bytesPerToken: number; tokens: number };
  /**
   * Paged-pool servers: the bytes their budget (pool fraction x GPU memory) must hold to start, the least pool
   * included (vLLM: one request of the full context; SGLang: a non-empty pool). On a GPU short of it deviceBytes
   * is the GPU memory it would start on (inference.ts poolStartShort).
   */
  poolStartBudget?: number;
  /**
   * Inference: one sequence's cache per GPU as the engine lays it out (kv-layout.ts): KV bytes per token of
   * context (full-attention layers), the bytes sliding-window layers hold once the context passes their
   * window, and the fixed recurrent state of linear-attention / SSM layers.
   */
  cache?: CacheFigures;
  /** Paged optimizer states: on the device while they fit, the rest in host RAM (paged.ts). */
  paged?: PagedStates;
  params: { total: number; trainable: number };
  /** Data-parallel replicas gpus / (tp·pp·cp) (docs/DESIGN.md); ZeRO/FSDP shard over dp·cp. */
  parallel: { dp: number; tp: number; pp: number; cp: number };
  /** Which pipeline stage is the worst rank. */
  worstStage: 'only' | 'first' | 'last';
  /** Every stage's phase allocations and extras, for memorySurface (the worst stage is `worstStage`). */
  stages: StageSummary[];
  overhead: {
    allocatorSlack: number;
    /** Largest one-off block kept reserved on top of the allocated peak (part of allocatorSlack). */
    transient: number;
    cudaContext: number;
    /** Paged optimizer states' working set (what the fit counts); `paged` says how many more stay resident. */
    pagedOptimizer: number;
  };
}

/** One pipeline stage's phase allocations (same order as `phases`) and the extras on top of them. */
export interface StageSummary {
  stage: 'only' | 'first' | 'last';
  phaseAllocated: number[];
  transient: number;
  /**
   * `transient` is the larger of these two: the largest block that grows with a micro-batch's tokens
   * (inference.ts largestTransient) and the optimizer step's one-off fp32 gradient piece, whatever the batch
   * (training.ts fp32GradStepTensor). The planner's surface fits each on its own (a max is not linear in batch).
   */
  batchTransient: number;
  stepTransient: number;
  paged: number;
  host: number;
  weights: number;
  kv: number;
}

/** Context needed beyond the options: the GPU's capacity (vLLM sizes its pool from it). */
export interface EstimateContext {
  gpuCapacityBytes?: number;
  /** The GPU's name as the driver reports it (hardware.ts gpuDeviceName): a server's defaults may read it. */
  gpuDeviceName?: string;
  /**
   * The card and kernel an MXFP4 MoE serving run takes (time/gpu-memory-context.ts): an engine that pads MXFP4
   * experts for its kernel (FrameworkProfile.mxfp4ExpertPad) holds them at the padded shape (mxfp4-pad-bytes.ts).
   * Absent (no GPU given): held at the checkpoint's shape.
   */
  mxfp4Kernel?: Mxfp4KernelContext;
  /** The engine holds the MXFP4 experts upcast to BF16 on the GPU given (time/mxfp4-upcast.ts): a BF16 model. */
  mxfp4Upcast?: boolean;
  /**
   * Skip rounding the breakdown and listing the phases (`phases` is empty): for callers that read only
   * totals and stage summaries, e.g. memorySurface, which makes thousands of estimates per search.
   */
  lean?: boolean;
  /**
   * The engine build ran its loss uncompiled whatever --compile said (torchtitan from 2024-12-18 to 2025-02-20:
   * "compiling loss function causes CUDA errors, turning off for now", train.py @9dec370): the engine profile's
   * loss.compiledWithModel does not apply. No flag sets it; `validate` does for rows of such builds (their
   * `loss_compile: "off"`).
   */
  eagerLoss?: boolean;
  /**
   * The engine build compiled its loss but not the model (torchtitan's `compile.components = ["loss"]`:
   * build_cross_entropy_loss wraps the loss in torch.compile when "loss" is listed, parallelize applies the model's
   * compile only when "model" is, components/loss.py and models/deepseek_v3/infra/parallelize.py @8a2686c4a): the
   * engine profile's loss.compiledWithModel applies with --compile off. No flag sets it; `validate` does for rows of
   * such builds (their `loss_compile: "alone"`).
   */
  lossCompiledAlone?: boolean;
  /**
   * The run stepped torch AdamW with its foreach default where the engine profile's optimizer is fused
   * (FrameworkProfile.adamImpl): the step holds `_foreach_sqrt(exp_avg_sqs)`, a copy of v over the parameter group.
   * No flag sets it; `validate` does for rows of such runs (their `adam_impl: "foreach"`).
   */
  adamForeach?: boolean;
  /**
   * The run did not accumulate gradients (one micro-batch an optimizer step) and its trainer freed them after each
   * step (torch >= 2.0 `zero_grad(set_to_none=True)`): they live from backward to the step only, not through the
   * next forward (FrameworkProfile.gradsPersist). No flag sets it; `validate` does for rows whose `grad_accum` is 1.
   */
  gradsFreedEachStep?: boolean;
  /**
   * A k-bit run whose residual stream is fp32 (TRL before v0.22 ran prepare_model_for_kbit_training and kept the
   * norms fp32: time/kbit-stream.ts): checkpointed layer inputs and the recomputed layer's stream tensors are
   * fp32. No flag sets it; `validate` does for rows of such runs (their `kbit_stream: "fp32"`).
   */
  kbitFp32Stream?: boolean;
  /**
   * The objective's trainer takes its loss from the model's whole logits (ObjectiveProfile.readsLogits: TRL's ORPO
   * and CPO / SimPO): Liger's fused linear cross-entropy does not run, its other kernels do. No flag sets it;
   * memory/objective.ts preparedContext does for those objectives.
   */
  trainerReadsLogits?: boolean;
  /**
   * A k-bit run whose loader ran PEFT's prepare_model_for_kbit_training (every non-quantized parameter to fp32) and
   * then cast the norms, embeddings and lm_head back to the compute dtype (axolotl 0.19.0 loaders/model.py
   * _configure_embedding_dtypes, _prepare_model_for_quantization): the residual stream stays 16-bit, the
   * unquantized experts stay fp32. It skips the preparation under ZeRO-3 and FSDP. No flag sets it; the axolotl
   * reader does for its QLoRA configs.
   */
  kbitNormsCastBack?: boolean;
  /**
   * The run loaded its 4-bit base whole onto every rank's GPU before sharding (transformers' own load: the
   * Trainer, or axolotl without qlora_sharded_model_loading), not through the engine's layer-by-layer loader
   * (FrameworkProfile.shardedQuantLoad). No flag sets it; the Trainer-stack readers (hf-args, Accelerate,
   * LLaMA-Factory) and the axolotl reader, for configs without that key, do.
   */
  quantizerLoadsWhole?: boolean;
  /**
   * The run replaced a MoE's fused routed experts with one nn.Linear per expert (axolotl's llama4_linearized_experts,
   * axolotl-ai-cloud/axolotl@067b021c src/axolotl/monkeypatch/models/llama4/modeling.py): bitsandbytes quantizes them
   * as it does every nn.Linear, so the engine's unquantizedExperts does not apply; time runs them as a dense loop
   * (TimeOptions.denseMoeLoop). No flag sets it; the axolotl reader does for configs with the key.
   */
  linearizedExperts?: boolean;
  /**
   * The run quantized a MoE's fused 3-D expert parameters at load (axolotl's quantize_moe_experts: bitsandbytes
   * 4-bit or int8 under a torch parametrization, axolotl-ai-cloud/axolotl@067b021c src/axolotl/monkeypatch/moe_quant.py),
   * so the engine's unquantizedExperts does not apply; the parametrization dequantizes a layer's whole stack on
   * access, the largest weight dequantized at once. No flag sets it; the axolotl reader does for configs with the key.
   */
  quantizedExperts?: boolean;
  /**
   * The k-bit run's LoRA adapters stay fp32 as get_peft_model makes them (PEFT's autocast_adapter_dtype default):
   * the trainer does not cast them to bf16 (FrameworkProfile.kbitTrainableBf16 does not apply). No flag sets it;
   * the axolotl reader does where its trainer is transformers' Trainer or TRL's experimental ORPO / CPO.
   */
  kbitFp32Adapters?: boolean;
  /**
   * The run's LoRA adapters were built in the frozen weights' dtype and never cast to fp32 (PEFT before 0.12.0:
   * TimeOptions.adaptersInWeightDtype): the adapters, their gradients and like-parameter optimizer states take that
   * width (memory/trainable-width.ts). No flag sets it.
   */
  adaptersInWeightDtype?: boolean;
  /**
   * The measured transformers shifted the logits, not the labels, for the causal-LM loss (4.48.1
   * `loss/loss_utils.py` ForCausalLMLoss: `logits[..., :-1, :].contiguous()` of the fp32 upcast): one more fp32
   * copy of the logits is alive while cross_entropy runs forward. The pinned transformers pads the labels instead
   * (`nn.functional.pad(labels, (0, 1))`, huggingface/transformers@0114da07). No flag sets it; `validate` does for
   * rows of such builds (their `causal_loss: "shift-logits"`).
   */
  shiftedLogitsCopy?: boolean;
  /**
   * PPO's policy: the share of each sequence (completion / seq) whose log-probs the loss takes; the objective
   * sets it for the policy's estimate (memory/objective.ts). An engine whose profile has loss.ppoSlicedLogprobs
   * keeps the logits that path holds (training.ts slicedLogprobHoldings).
   */
  logprobShare?: number;
}

/** Paged optimizer states (bitsandbytes paged optimizers in unified memory) and where they sit. */
export interface PagedStates {
  /** Every paged state byte of this GPU. */
  statesBytes: number;
  /** The states one step touches at once (the largest parameter's): all the fit verdict needs on the device. */
  workingSetBytes: number;
  /** The states that stay on the device (in deviceBytes and breakdown.optimizer). */
  deviceBytes: number;
  /** The rest, paged out to host RAM (in hostBytesPerGpu). */
  hostBytes: number;
  /** The device figure with only the working set on the device: what `fits` compares with the capacity. */
  fitDeviceBytes: number;
}
