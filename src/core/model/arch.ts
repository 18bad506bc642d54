/**
 * The normalized model architecture that every memory and time formula reads.
 * Built from a Hugging Face config.json by `archFromHfConfig` (src/core/model/hf-config.ts).
 */

/** Roles a LoRA target or a quantized linear can have; fused checkpoints (qkv, gate_up) are split by role. */
export type LinearRole =
  | 'q'
  | 'k'
  | 'v'
  | 'o'
  | 'gate'
  | 'up'
  | 'down'
  | 'router'
  | 'q_a'
  | 'q_b'
  | 'kv_a'
  | 'kv_b'
  | 'cross_q'
  | 'cross_k'
  | 'cross_v'
  | 'cross_o'
  | 'other';

/** One kind of nn.Linear inside a layer group; `copies` per layer (experts > 1 for MoE expert weights). */
export interface Linear {
  role: LinearRole;
  inFeatures: number;
  outFeatures: number;
  bias: boolean;
  /** How many of this linear exist per layer (e.g. number of experts). */
  copies: number;
  /** Copies active per token (topK for routed experts, otherwise = copies). */
  activeCopies: number;
  /**
   * The checkpoint's one nn.Linear this role is a slice of, where it fuses several roles (Qwen-VL towers' `qkv`,
   * GLM-4.1V's `gate_up_proj`): the roles sharing it share one input, so LoRA adapts them as one module.
   */
  module?: string;
}

/** A run of identical transformer layers (decoder, encoder, cross-attention layers, vision tower). */
export interface LayerGroup {
  name: 'decoder' | 'encoder' | 'cross' | 'vision';
  count: number;
  hidden: number;
  heads: number;
  kvHeads: number;
  headDim: number;
  /** Value head dim when it differs (MLA); else = headDim. */
  vHeadDim: number;
  /** Dense MLP width, or per-expert width for MoE. */
  ffn: number;
  gated: boolean;
  experts: number;
  topK: number;
  /** A grouped router's expert groups (config n_group), where the config routes by group (DeepSeek-V3, GLM-4.5). */
  routerGroups?: number;
  norm: 'rms' | 'layer';
  /** Norm modules per layer (2 pre-norms; Gemma-2 has 4; parallel-residual GPT-J has 1). */
  normsPerLayer: number;
  /** Attention and MLP read the same input (GPT-J, GPT-NeoX, Falcon, Phi-1.5). */
  parallelResidual: boolean;
  /** Dropout on attention probabilities and hidden states is active in training (BERT, T5). */
  dropout: boolean;
  causal: boolean;
  /** Extra attention block over encoder / image states (T5 decoder, Mllama cross layers). */
  crossAttention: boolean;
  /** Sliding-window size for KV cache, when every layer of the group uses one. */
  slidingWindow: number | null;
  /** MLA latent KV width (DeepSeek-V2/V3): cache holds kvLoraRank + ropeDim per token per layer. */
  mlaCacheWidth: number | null;
  /**
   * Bytes per token a layer caches beside its KV, in a dtype of its own (DeepSeek Sparse Attention's indexer keys,
   * fp8 with one fp32 scale per 128: vLLM DeepseekV32IndexerCache); on every TP rank.
   */
  extraCacheBytes?: number;
  /**
   * Each query attends this many cached tokens an indexer picks (DeepSeek Sparse Attention's index_topk): a decode
   * step reads at most this many of the layer's KV entries, and every entry of extraCacheBytes.
   */
  attendTopK?: number;
  /**
   * The layers attend over the KV cache an earlier layer of their kind stores and store none of their own (Gemma 3n /
   * Gemma 4 num_kv_shared_layers; vLLM kv_sharing_target_layer_name allocates them no cache).
   */
  kvShared?: true;
  linears: Linear[];
  /** Parameters per layer that are not in `linears` (norm weights, qk-norm, sinks, biases of fused parts). */
  otherParamsPerLayer: number;
  /** The attention normalizes q and k per head (an RMSNorm over head_dim) before the rotary (Qwen3's q_norm, k_norm). */
  qkNorm?: 'head';
  /**
   * Linear-attention (Gated DeltaNet) or Mamba mixer in place of softmax attention: the layer keeps this fixed
   * state per sequence instead of a KV cache. Absent on attention layers.
   */
  recurrent?: RecurrentState;
}

/**
 * The per-sequence state of one linear-attention / SSM layer (vLLM MambaStateShapeCalculator: a conv state of
 * conv channels x (kernel - 1) and a temporal state of heads x key dim x value dim).
 */
export interface RecurrentState {
  /**
   * Mamba (v1) reads as inner-channel heads of d_state x 1; a short conv (LFM2) keeps only its conv window;
   * lightning attention (MiniMax) keeps K^T V per head (head_dim x head_dim) and no conv window.
   */
  kind: 'gated-deltanet' | 'mamba2' | 'mamba' | 'short-conv' | 'lightning';
  /** Heads of the state (value heads) and its key and value widths (Mamba2: head dim x state size). */
  heads: number;
  keyDim: number;
  valueDim: number;
  /** Mamba2: groups of B and C (n_groups); a TP engine replicates them when TP does not divide them. */
  groups?: number;
  /** Channels of the causal conv1d and its kernel size. */
  convChannels: number;
  convKernel: number;
  /** Bytes per state element when the config names a dtype for it (mamba_ssm_dtype); else the compute dtype. */
  stateBytes: number | null;
  /** vLLM's bytes per temporal-state element when the config names none and a vLLM hook sets its own default. */
  vllmStateBytes?: number;
  /** Chunk length of the training kernel (FLA chunk_gated_delta_rule / mamba_chunk_scan_combined). */
  chunk: number;
}

/** Vision tower geometry: what sizes the image tokens (`--images`, `--image-pixels`). */
export interface VisionInput {
  /** Pixel patch side and the merge factor per side (tokens per image = patches / merge^2). */
  patch: number;
  merge: number;
  /** Fixed tokens per image when the projector pools to a fixed count (Gemma 3 mm_tokens_per_image). */
  fixedTokens: number | null;
  /** Pixels of an image when the user names none (the processor's default or the tower's image_size^2). */
  defaultPixels: number;
  /** Largest pixels per image the processor admits (max_pixels), when it caps them. */
  maxPixels: number | null;
  /** The tower's own forward over the patches (vision.ts towerRun); absent where the reader does not say. */
  tower?: VisionTower;
  /** The tower's parameters outside its blocks (embeddings, norms, merger, projector), within Arch.otherParams. */
  params?: number;
}

/** What the vision tower runs per image before its patches are merged or pooled into tokens. */
export interface VisionTower {
  /** Patches per image whatever its size (SigLIP resizes to image_size); null: from the pixels. */
  fixedPatches: number | null;
  /** Pixels of one tile the tower runs as its own sequence (Llama 4 image_size tiles); null: whole images. */
  tilePixels: number | null;
  /** Tokens added per tile or image before the blocks (class embedding). */
  extraTokens: number;
  /** Window attention (Qwen2.5-VL): patches per window; the full-attention layers attend over the image. */
  windowPatches: number | null;
  fullAttentionLayers: number;
  /** Weights each patch meets before the blocks (patch embedding) and each output token after (merger, projector). */
  patchEmbedParams: number;
  projectorParams: number;
  /** get_input_embeddings returns the patch embedding (transformers enable_input_require_grads hooks it). */
  inputGradHook: boolean;
}

/**
 * An nn.Linear outside the layer groups: a vision projector, a patch merger, Llama 4's unfold patch embedding.
 * PEFT's 'all-linear' adapts every nn.Linear but the output layer (peft 0.21.2 tuners/tuners_utils.py
 * _maybe_include_all_linear_layers), these included; no contract target names them.
 */
export interface OuterLinear {
  inFeatures: number;
  outFeatures: number;
  /**
   * It sits under an attention / MLP module of the tower and its leaf name is also a linear's name inside the
   * blocks (Llama 4's vision_adapter.mlp.fc1/fc2); false for one-off leaves (linear_1, merging_layer, mlp.0).
   */
  blockLeaf: boolean;
}

export type SourceDtype = 'float32' | 'float16' | 'bfloat16';

/** Quantization a checkpoint ships with (config.json `quantization_config`). */
export interface CheckpointQuant {
  method: 'bitsandbytes-4bit' | 'bitsandbytes-8bit' | 'gptq' | 'awq' | 'fp8' | 'mxfp4' | 'other';
  bits: number;
  groupSize: number | null;
  /** A block-scaled FP8 checkpoint's weight blocks [block_n, block_k] (quantization_config.weight_block_size). */
  block?: readonly [number, number];
  /** Module names the checkpoint leaves unquantized. */
  skipped: string[];
}

export interface Arch {
  /** Catalog id, or a path-derived id for a local config. */
  id: string;
  hfId: string | null;
  /**
   * The Hugging Face repository the user named, where it is a catalog alias of this entry rather than its `hfId`
   * (an instruction-tuned release or a fine-tune with the same architecture, such as
   * deepseek-ai/DeepSeek-R1-Distill-Llama-8B for llama-3.1-8b): what launch files load and what published
   * checkpoints are looked up by (`modelRepo`).
   */
  repo?: string;
  modelType: string;
  architecture: string;
  kind: 'causal-lm' | 'encoder' | 'encoder-decoder';
  groups: LayerGroup[];
  /** Width of the final hidden state (input of lm_head). */
  hidden: number;
  vocab: number;
  tiedEmbeddings: boolean;
  /** Token embeddings + learned position / token-type embeddings. */
  embedParams: number;
  /** lm_head parameters, 0 when tied to the embeddings. */
  lmHeadParams: number;
  /** Final norm, pooler, shared embeddings of enc-dec, vision projector... */
  otherParams: number;
  maxPositions: number;
  /**
   * Positions are relative (T5's bucketed attention bias) or ALiBi slopes (BLOOM): no position table caps the
   * context, so `maxPositions` is the length the model was trained at, not a limit (T5 paper §2.1; BLOOM
   * paper §3.2.4, ALiBi's extrapolation: Press et al. 2022).
   */
  unboundedPositions?: true;
  /** Longer context the config declares through rope_scaling (factor × original positions), when any. */
  ropeScaledPositions?: number;
  dtype: SourceDtype;
  quant: CheckpointQuant | null;
  /** Exact parameter count read from safetensors headers, when a local folder gave them. */
  measuredParams: number | null;
  /**
   * Bytes of the checkpoint's largest safetensors file (8-byte length + header + tensor data, from the headers),
   * when a local folder or the Hub gave them; else loaders take memory/host-ram.ts SAFETENSORS_FILE_BYTES.
   */
  safetensorsFileBytes?: number;
  /** Multimodal wrappers: how images become tokens of the language model's sequence. */
  vision?: VisionInput;
  /** Linears outside the layer groups (counted in otherParams), which only 'all-linear' adapts. */
  outerLinears?: OuterLinear[];
  /**
   * Multi-token-prediction layers the checkpoint stores. Kept apart from the model: transformers builds no
   * module for them and drops their keys on load (`_keys_to_ignore_on_load_unexpected`), vLLM/SGLang load
   * them only for MTP speculative decoding; so no memory, FLOPs or LoRA targets, and not in ParamCounts.total.
   */
  mtpLayers?: number;
  /** Parameters of those MTP layers (in the checkpoint's files only: ParamCounts.checkpoint). */
  mtpParams?: number;
  /**
   * Each attention layer adds a learned per-head logit to the softmax's denominator (gpt-oss's `sinks`,
   * transformers GptOssAttention): an engine runs such a model only on attention kernels that take the sink term,
   * which picks its attention backend (time/piecewise.ts).
   */
  attentionSinks?: true;
  /** What was assumed to read this config (unknown model_type read as the closest known layout). */
  assumptions?: string[];
}

/** Parameter totals derived from an Arch. */
export interface ParamCounts {
  total: number;
  /** Parameters touched per token (MoE: routed experts replaced by topK). */
  active: number;
  embed: number;
  lmHead: number;
  /** Parameters inside nn.Linear weights of the layers (what int8/nf4/LoRA act on). */
  linear: number;
  /** Biases of those linears. */
  linearBias: number;
  /** Norms and everything else. */
  other: number;
  /** Largest single layer's parameters (ZeRO-3 gathers one layer at a time). */
  largestLayer: number;
  /** Parameters of the MTP layers the checkpoint also stores (Arch.mtpParams), 0 when none. */
  mtp: number;
  /** What the checkpoint's files hold: total + mtp (the Hub's safetensors total). */
  checkpoint: number;
}

/** The repository a model's launch files load: the alias the user named, else the catalog's Hugging Face id. */
export const modelRepo = (arch: Pick<Arch, 'hfId' | 'repo'>): string | null =>
  arch.repo ?? arch.hfId;
