/**
 * The estimate contract (docs/DESIGN.md, "The estimate contract"): every flag, its allowed values
 * and default. The CLI parses flags into this shape; the planner builds the same shape per candidate.
 */
import { z } from 'zod';

export const METHODS = ['inference', 'full', 'lora', 'qlora'] as const;
/** llama.cpp's low-bit mixes (llama-quantize Q2_K, Q3_K_M, IQ1_S, IQ2_XXS, IQ2_M, IQ3_XXS, IQ3_M). */
export const LOW_BIT_GGUF = [
  'q2_k',
  'q3_k_m',
  'iq1_s',
  'iq2_xxs',
  'iq2_m',
  'iq3_xxs',
  'iq3_m',
] as const;
/** The GGUF weight types (llama.cpp). */
export const GGUF_DTYPES = ['q4_0', 'q4_k_m', 'q5_k_m', 'q6_k', 'q8_0', ...LOW_BIT_GGUF] as const;
/** Each GGUF type mapped to the one format that holds and runs it, for the tables keyed by weight dtype. */
export const GGUF_ONLY = Object.fromEntries(
  GGUF_DTYPES.map((d) => [d, ['gguf'] as const]),
) as Record<(typeof GGUF_DTYPES)[number], readonly ['gguf']>;
export const WEIGHT_DTYPES = [
  'fp32',
  'fp16',
  'bf16',
  'fp8',
  'int8',
  'nf4',
  'fp4',
  'int4',
  /** OCP microscaling FP4 (E2M1, one E8M0 scale per 32): gpt-oss checkpoints; serving engines only. */
  'mxfp4',
  /** NVIDIA FP4 (E2M1, one FP8 scale per 16, fp32 per tensor): Blackwell tensor cores. */
  'nvfp4',
  /** GGUF quantization types of llama.cpp (tools/quantize): llama.cpp only. */
  ...GGUF_DTYPES,
] as const;
/** KV cache dtype of the serving engines: auto = the compute dtype; fp8 (llama.cpp: q8_0). */
export const KV_CACHE_DTYPES = ['auto', 'fp8', 'q4_0'] as const;
export type KvCacheDtype = (typeof KV_CACHE_DTYPES)[number];
/**
 * Compute dtype: fp32/fp16/bf16 for every op, or FP8 training (fp8: torchao.float8 tensorwise scaling; mxfp8:
 * torchao MX with 32-element blocks), where the linears' matmuls run in 8-bit and everything else stays bf16
 * (https://docs.pytorch.org/ao/stable/workflows/training.html).
 */
export const COMPUTE_DTYPES = ['fp32', 'fp16', 'bf16', 'fp8', 'mxfp8'] as const;
/** The floating dtypes activations, norms and the loss run in. */
export type FloatDtype = 'fp32' | 'fp16' | 'bf16';
/** FP8 training's matmul formats (torchao.float8 / torchao.prototype.mx_formats). */
export type Float8Compute = 'fp8' | 'mxfp8';
export const isFloat8Compute = (c: string): c is Float8Compute => c === 'fp8' || c === 'mxfp8';
/**
 * The dtype of everything but the converted linears' matmuls: FP8 training keeps activations, norms, the loss and
 * the saved linear inputs in bf16 (torchao float8_linear.py matmul_with_hp_or_float8_args saves input_hp).
 */
export const floatCompute = (c: (typeof COMPUTE_DTYPES)[number]): FloatDtype =>
  isFloat8Compute(c) ? 'bf16' : c;
export const OPTIMIZERS = [
  'adamw',
  'adamw-8bit',
  'paged-adamw',
  'paged-adamw-8bit',
  'adam-mini',
  'sgd',
  'sgd-momentum',
  'lion',
  'adafactor',
  'none',
] as const;
export const STATE_DTYPES = ['fp32', 'bf16'] as const;
export const LORA_TARGETS = ['q', 'k', 'v', 'o', 'gate', 'up', 'down', 'embed', 'lm_head'] as const;
export const CHECKPOINTING = ['none', 'selective', 'full', 'offload'] as const;
export const ATTENTION = ['eager', 'sdpa', 'flash'] as const;
export const OFFLOAD = ['none', 'optimizer', 'optimizer+params'] as const;
export const SPARSE_FORMATS = ['csr', '2:4'] as const;
export const FRAMEWORKS = [
  'hf',
  'torchtune',
  'litgpt',
  'unsloth',
  'deepspeed',
  'vllm',
  'torchtitan',
  'sglang',
  'llama.cpp',
] as const;

/**
 * Training objective (DESIGN.md "Engines, serving and RL"): supervised, preference (DPO family), GRPO, PPO, a
 * reward model (TRL RewardTrainer: a sequence-classification score head over chosen/rejected pairs) or a process
 * reward model (TRL PRMTrainer: a token-classification head over every position).
 */
export const OBJECTIVES = [
  'sft',
  'dpo',
  'orpo',
  'kto',
  'simpo',
  'grpo',
  'ppo',
  'reward',
  'prm',
] as const;
/** Where the reference log-probs come from: a reference model each step, none, or computed once before training. */
export const REFERENCES = ['model', 'none', 'precomputed'] as const;
/**
 * Speculative decoding methods of the serving engines: an EAGLE-3 draft head, the MTP layers the checkpoint
 * ships (DeepSeek-V3 num_nextn_predict_layers), or n-gram lookup in the prompt (vLLM SpeculativeConfig.method).
 */
export const SPECULATIVE_METHODS = ['eagle3', 'mtp', 'ngram'] as const;
export type SpeculativeMethod = (typeof SPECULATIVE_METHODS)[number];

/** GRPO's generation engine: vLLM on the training GPUs, vLLM on separate GPUs, or transformers generate. */
export const ROLLOUTS = ['vllm-colocate', 'vllm-server', 'hf'] as const;

export type Method = (typeof METHODS)[number];
export type Objective = (typeof OBJECTIVES)[number];
export type Reference = (typeof REFERENCES)[number];
export type Rollout = (typeof ROLLOUTS)[number];
export type WeightDtype = (typeof WEIGHT_DTYPES)[number];
export type ComputeDtype = (typeof COMPUTE_DTYPES)[number];
export type Optimizer = (typeof OPTIMIZERS)[number];
export type StateDtype = (typeof STATE_DTYPES)[number];
export type LoraTarget = (typeof LORA_TARGETS)[number];
/** Modules LoRA can train fully beside its adapters (PEFT modules_to_save). */
export const SAVED_MODULES = ['embed', 'lm_head'] as const;
export type SavedModule = (typeof SAVED_MODULES)[number];
export type Checkpointing = (typeof CHECKPOINTING)[number];
export type Attention = (typeof ATTENTION)[number];
export type Offload = (typeof OFFLOAD)[number];
export type SparseFormat = (typeof SPARSE_FORMATS)[number];
/** A built-in memory profile's name (the contract's --framework values). */
export type BuiltInFramework = (typeof FRAMEWORKS)[number];
/** Names of plug-in engines' memory profiles, declared by module augmentation as PluginEngines is (schema/engine.ts). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface PluginFrameworks {}
/** A memory profile's name: a built-in one, or a plug-in engine's (core/engines/store.ts registerEngine). */
export type Framework = BuiltInFramework | keyof PluginFrameworks;
const REGISTERED_FRAMEWORKS = new Set<Framework>();
/** Makes a registered engine's framework valid input (schema/engine.ts registerEngineName). */
export function registerFrameworkName(name: Framework): void {
  if (!(FRAMEWORKS as readonly string[]).includes(name)) REGISTERED_FRAMEWORKS.add(name);
}
/** Every framework the flags and scenarios accept: the built-in ones, then the registered ones. */
export const frameworkNames = (): readonly Framework[] => [...FRAMEWORKS, ...REGISTERED_FRAMEWORKS];
export const isFramework = (v: unknown): v is Framework =>
  typeof v === 'string' &&
  ((FRAMEWORKS as readonly string[]).includes(v) || REGISTERED_FRAMEWORKS.has(v as Framework));
export type GgufDtype = (typeof GGUF_DTYPES)[number];
export const isGguf = (w: string): w is GgufDtype => (GGUF_DTYPES as readonly string[]).includes(w);

const count = (max: number) => z.number().int().min(1).max(max);

/**
 * The most GPUs one configuration may use (--gpus, --rollout-gpus, a plans file): the scenario's
 * limits.maxGpus bound, six times the largest published training run (16,384 H100s for Llama 3 405B,
 * https://arxiv.org/abs/2407.21783 §3.3.1).
 */
export const MAX_GPUS = 100_000;

/** One fully specified configuration (defaults applied); what the memory model reads. */
export const EstimateOptionsSchema = z
  .object({
    method: z.enum(METHODS),
    weights: z.enum(WEIGHT_DTYPES),
    compute: z.enum(COMPUTE_DTYPES),
    masterWeights: z.boolean(),
    doubleQuant: z.boolean(),
    optimizer: z.enum(OPTIMIZERS),
    optimizerStates: z.enum(STATE_DTYPES),
    loraRank: count(65_536),
    loraTargets: z.array(z.enum(LORA_TARGETS)).min(1),
    /** 'all-linear' as given by the user: every linear of the layers (PEFT's meaning, lm_head excluded). */
    loraAllLinear: z.boolean(),
    /**
     * LoRA / QLoRA: the dropout probability in front of each adapter (PEFT and torchtune nn.Dropout, LitGPT
     * lora_dropout); absent = the memory profile's default (FrameworkProfile.loraDropout).
     */
    loraDropout: z.number().min(0).lt(1).optional(),
    /**
     * LoRA / QLoRA: modules trained fully beside the adapters (PEFT modules_to_save): a trained copy of each,
     * with its gradient and optimizer states; absent = none.
     */
    modulesToSave: z.array(z.enum(SAVED_MODULES)).min(1).optional(),
    batch: count(1_000_000),
    seq: count(100_000_000),
    checkpointing: z.enum(CHECKPOINTING),
    attention: z.enum(ATTENTION),
    chunkedLoss: z.boolean(),
    /** Liger kernels on the Hugging Face engines (fused linear cross-entropy, RMSNorm, SwiGLU, RoPE). */
    liger: z.boolean(),
    /**
     * Unsloth's tiled MLP (from_pretrained unsloth_tiled_mlp=True): each layer's MLP runs over the sequence in
     * tiles of hidden-size tokens and recomputes them in backward; absent = off.
     */
    tiledMlp: z.boolean().optional(),
    /**
     * The FSDP generation an engine whose launcher writes accelerate's `fsdp_version` runs (its profile's
     * fsdpVersion): 1 the FlatParameter FSDP, 2 torch's `fully_shard`; absent = what its launcher writes.
     */
    fsdpVersion: z.union([z.literal(1), z.literal(2)]).optional(),
    optimizerInBackward: z.boolean(),
    zero: z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)]),
    offload: z.enum(OFFLOAD),
    gpus: count(MAX_GPUS),
    tp: count(4096),
    pp: count(4096),
    /** Context-parallel degree (ring attention over the sequence); data parallel = gpus / (tp*pp*cp). */
    cp: count(4096),
    /** Megatron sequence parallel: with TP, norm/dropout activations sharded across the TP group. */
    sequenceParallel: z.boolean(),
    /** With TP: logits and loss kept vocabulary-sharded. */
    lossParallel: z.boolean(),
    /** torch.compile / fused kernels (memory and time). */
    compile: z.boolean(),
    sparsity: z.number().min(0).max(1),
    sparseFormat: z.enum(SPARSE_FORMATS),
    framework: z.custom<Framework>((v) => isFramework(v), {
      // zod's own enum message, over the registered frameworks.
      error: () =>
        `Invalid option: expected one of ${frameworkNames()
          .map((n) => JSON.stringify(n))
          .join('|')}`,
    }),
    // Preference / RL fine-tuning: absent for SFT (so SFT options echo as before), all set otherwise
    // (core/memory/objective.ts reads them; flags.ts applies TRL's defaults).
    objective: z.enum(OBJECTIVES).optional(),
    reference: z.enum(REFERENCES).optional(),
    /** GRPO: completions sampled per prompt (TRL num_generations). */
    generations: count(65_536).optional(),
    /**
     * Prompt tokens: of a serving request (absent = half of `seq`; the rest of `seq` is generated), or of a
     * GRPO prompt (seq = promptTokens + completionTokens).
     */
    promptTokens: count(100_000_000).optional(),
    /** GRPO: mean generated tokens per completion (a generation batch decodes until its longest). */
    completionTokens: count(100_000_000).optional(),
    /**
     * GRPO: the longest completion a generation may reach (TRL max_completion_length): a generation batch decodes
     * until its longest completion or this cap (absent = uncapped: 1.47 x the mean).
     */
    maxCompletionTokens: count(100_000_000).optional(),
    rollout: z.enum(ROLLOUTS).optional(),
    /** vllm-colocate: the share of each training GPU vLLM takes (TRL vllm_gpu_memory_utilization). */
    rolloutMemory: z.number().gt(0).lt(1).optional(),
    /**
     * vllm-colocate: vLLM sleeps while the policy trains (TRL vllm_enable_sleep_mode, Unsloth's
     * UNSLOTH_VLLM_STANDBY=1): its share is held only in the rollout phase (absent = awake throughout).
     */
    rolloutSleep: z.boolean().optional(),
    /** vllm-server: GPUs of --gpus that run the vLLM server (the rest train). */
    rolloutGpus: count(MAX_GPUS).optional(),
    /**
     * GRPO: micro-batches one generation batch feeds (TRL steps_per_generation, by default the gradient
     * accumulation: `--grad-accum`); absent = 1. Each process generates batch x this many completions at once.
     */
    stepsPerGeneration: count(1_000_000).optional(),
    /**
     * PPO: optimisation epochs over each generation batch (TRL num_ppo_epochs, torchtune ppo_epochs); absent =
     * the objective's (TRL's default, 4).
     */
    ppoEpochs: count(1_000).optional(),
    /**
     * PPO: sequences generated and scored at once (TRL local_rollout_forward_batch_size, torchtune
     * forward_batch_size); absent = TRL's default, 64.
     */
    rolloutChunk: count(1_000_000).optional(),
    /** Serving: KV cache dtype (absent = auto, the compute dtype). */
    kvCacheDtype: z.enum(KV_CACHE_DTYPES).optional(),
    /**
     * Serving: tokens a block of the paged KV cache (vLLM --block-size; absent = the engine's default). It picks the
     * engine's decode-attention kernel where that depends on it (vLLM on ROCm: docs/time-model.md).
     */
    kvBlockSize: count(4096).optional(),
    /**
     * Serving with prefix caching (vLLM automatic prefix caching, SGLang's radix cache; both on by default):
     * the share of each prompt that is a shared prefix already in the cache, not prefilled again (absent = 0).
     */
    prefixCacheFraction: z.number().min(0).lt(1).optional(),
    /**
     * Multimodal models: images per sample (their tokens are already in `seq`) and pixels per image (absent =
     * the model's default size); the vision tower's own activations and FLOPs read them (core/model/vision.ts).
     */
    images: count(1_000_000_000).optional(),
    imagePixels: count(1_000_000_000).optional(),
    /** llama.cpp `-ngl`: layers on the GPU, the rest in host RAM (absent = all). */
    gpuLayers: z.number().int().min(0).max(100_000).optional(),
    /**
     * llama.cpp `--n-cpu-moe N`: the routed-expert weights of the first N layers in host RAM, the rest of those
     * layers and their KV on the GPU (absent = none; `--cpu-moe` is every layer).
     */
    cpuMoeLayers: z.number().int().min(0).max(100_000).optional(),
    /**
     * Serving MoE models: the expert-parallel degree, whole experts per rank over the GPUs the MoE layers span
     * (tp, or tp x dp with dpAttention); absent = 1, each expert tensor-parallel (docs/estimate.md). Training (an
     * engine with the trainingEp trait: torchtitan's expert_parallel_degree): whole experts per rank over ep of the
     * dp_shard x cp x tp GPUs, FSDP-sharded over the rest (efsdp).
     */
    ep: count(4096).optional(),
    /**
     * Serving MoE models: the data-parallel ranks (gpus / (tp x pp)) are one engine: attention and its KV per
     * rank, the MoE layers over all of them (vLLM --data-parallel-size, SGLang --enable-dp-attention).
     */
    dpAttention: z.boolean().optional(),
    /**
     * Serving: speculative decoding (absent = none), the draft tokens each step proposes, and the chance each
     * draft token is accepted (given or the method's default: flags.ts SPEC_DEFAULTS).
     */
    speculative: z.enum(SPECULATIVE_METHODS).optional(),
    specTokens: count(64).optional(),
    specAcceptance: z.number().min(0).max(1).optional(),
    /**
     * Serving many LoRA adapters on one base (vLLM --enable-lora --max-loras, SGLang --max-loras-per-batch): the
     * adapter slots the engine preallocates at rank `loraRank` (max_lora_rank); absent = no LoRA serving.
     */
    maxLoras: count(4096).optional(),
    /**
     * Serving: the engine's running cap where it is above `batch` (vLLM --max-num-seqs, or its default, while fewer
     * requests run): a paged pool's start-up profile samples one row per slot (vLLM profile_run's
     * _dummy_sampler_run), so the sampler's bytes follow it; absent = `batch`.
     */
    maxNumSeqs: count(65536).optional(),
  })
  .strict();

export type EstimateOptions = z.infer<typeof EstimateOptionsSchema>;

/** GPUs that train: all of them, less the vLLM server's in GRPO server mode. */
export const trainingGpus = (o: EstimateOptions): number =>
  o.rollout === 'vllm-server' ? o.gpus - (o.rolloutGpus ?? 1) : o.gpus;

/** GPUs one MoE layer spans: the TP group, or every data-parallel rank's with DP attention (pp = 1). */
export const moeGroupOf = (
  o: Pick<EstimateOptions, 'gpus' | 'tp' | 'pp' | 'dpAttention'>,
): number => (o.dpAttention ? o.tp * Math.max(1, Math.floor(o.gpus / (o.tp * o.pp))) : o.tp);

/** A preference or RL objective (absent or 'sft' is supervised fine-tuning). */
export const isPreferenceOrRl = (o: EstimateOptions): boolean =>
  o.objective !== undefined && o.objective !== 'sft';

/** Contract defaults (docs/DESIGN.md); `weights` and `optimizer` depend on the method. */
export function defaultOptions(method: Method = 'full'): EstimateOptions {
  return {
    method,
    weights: method === 'qlora' ? 'nf4' : 'bf16',
    compute: 'bf16',
    masterWeights: false,
    doubleQuant: false,
    optimizer: method === 'inference' ? 'none' : 'adamw',
    optimizerStates: 'fp32',
    loraRank: 16,
    loraTargets: ['q', 'v'],
    loraAllLinear: false,
    batch: 1,
    seq: 2048,
    checkpointing: 'none',
    attention: 'sdpa',
    chunkedLoss: false,
    liger: false,
    optimizerInBackward: false,
    zero: 0,
    offload: 'none',
    gpus: 1,
    tp: 1,
    pp: 1,
    cp: 1,
    sequenceParallel: false,
    lossParallel: false,
    compile: false,
    sparsity: 0,
    sparseFormat: 'csr',
    framework: 'hf',
  };
}

/** Prompt tokens of a serving request: `promptTokens`, else half the context (the rest is generated). */
export const promptTokensOf = (o: Pick<EstimateOptions, 'seq' | 'promptTokens'>): number =>
  Math.max(1, Math.min(o.seq - 1, o.promptTokens ?? Math.floor(o.seq / 2)));

/**
 * Tokens of a `prompt` the engine prefills when `cachedShare` of it is found in the prefix cache
 * (EstimateOptions.prefixCacheFraction; absent: none): the rest, rounded, at least one.
 */
export const freshPromptTokens = (prompt: number, cachedShare: number | undefined): number =>
  Math.max(1, Math.round(prompt * (1 - (cachedShare ?? 0))));

/** Output tokens of a serving request: the context past its prompt, at least one. */
export const outputTokensOf = (o: Pick<EstimateOptions, 'seq' | 'promptTokens'>): number =>
  Math.max(1, o.seq - promptTokensOf(o));

/** A request's mean context over its life: its prompt plus half its output (tokens held in the KV cache). */
export const meanContextOf = (o: Pick<EstimateOptions, 'seq' | 'promptTokens'>): number => {
  const prompt = promptTokensOf(o);
  return Math.max(1, Math.round(prompt + (o.seq - prompt) / 2));
};
