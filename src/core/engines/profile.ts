/**
 * What an engine runs, kept as data (one profile per engine folder, each rule citing the engine's docs):
 * the planner offers a configuration only on engines whose profile accepts it.
 */
import type {
  Attention,
  Checkpointing,
  EstimateOptions,
  Float8Compute,
  Framework,
  LoraTarget,
  Method,
  Objective,
  Offload,
  Optimizer,
  WeightDtype,
} from '../../schema/estimate.js';
import type { Engine } from '../../schema/engine.js';
import type { Rule } from './rules.js';

export interface EngineProfile {
  id: Engine;
  /** The memory profile (core/memory/frameworks.ts) a plan on this engine is estimated with: `options.framework`. */
  framework: Framework;
  methods: readonly Method[];
  /** Training objectives it runs (sft, and the preference / RL trainers of its library). */
  objectives: readonly Objective[];
  /** Largest data-parallel degree (1: one process, e.g. open-source Unsloth); Infinity otherwise. */
  maxDp: number;
  /** Trains or serves in fp16 (GPUs without bf16 fall back to it); false where only bf16/fp32 exist. */
  fp16: boolean;
  /** With TP, norms run sequence-parallel and the loss vocabulary-parallel by default. */
  tpShardsNormsAndLoss: boolean;
  /**
   * The engine's recipes chunk the loss (what --chunked-loss runs on it) unless told otherwise: why, with its
   * source. The planner (no loss switch) and `--framework <engine>` without --chunked-loss estimate it chunked;
   * `--chunked-loss false` estimates and launches the plain loss.
   */
  chunkedLossByDefault?: string;
  tp: boolean;
  pp: boolean;
  cp: boolean;
  /** Expert parallelism for training MoE models (`--ep` with a training method); absent: none. */
  ep?: boolean;
  /**
   * Serving MoE models over tensor-parallel attention with the MoE layers expert parallel over the same GPUs (`--tp N
   * --ep N`, one engine: whole experts per rank): how the engine is told, with its source. The planner offers it only
   * on engines that have it (plan/expert-parallel.ts); absent, `estimate --ep` still runs where the memory profile has
   * expertParallel.
   */
  tpExpertParallel?: string;
  /** ZeRO stages (FSDP: 2 = SHARD_GRAD_OP, 3 = FULL_SHARD). */
  zero: readonly (0 | 1 | 2 | 3)[];
  /**
   * The ZeRO stage it trains one GPU at without offload, where it runs no ZeRO-0: one rank partitions nothing, so the
   * search offers that stage on one GPU for this engine alone (elsewhere the engine's own ZeRO-0 stands for it).
   */
  oneRankZero?: 2;
  /** Offload kinds, each with the ZeRO stages it runs under. */
  offload: Readonly<Partial<Record<Offload, readonly number[]>>>;
  /** Weight storage for full fine-tunes: bf16/fp16 = 16-bit parameters, fp32 = fp32 parameters under autocast / FSDP mixed precision. */
  fullWeights: readonly WeightDtype[];
  /** Frozen base weights for LoRA / QLoRA / inference without sharding. */
  baseWeights: readonly WeightDtype[];
  /** Quantized base weights that may be sharded (ZeRO-3 / FSDP with dp > 1). */
  shardedQuantized: readonly WeightDtype[];
  optimizers: readonly Optimizer[];
  /** Optimizers that run on the host when the optimizer is offloaded. */
  offloadOptimizers: readonly Optimizer[];
  /** 8-bit / paged bitsandbytes optimizers under sharding (ZeRO / FSDP with dp > 1). */
  bnbOptimizersSharded: boolean;
  /**
   * Of those, the ones the launcher writes under sharding as a class whose states are DTensors sharded like the
   * parameters (torchao's low-bit optimizers under FSDP2): they run sharded where bnbOptimizersSharded is false.
   */
  shardedLowBitOptimizers?: readonly Optimizer[];
  /** Optimizer step fused into backward (per-parameter hooks): needs one micro-batch per step. */
  optimizerInBackward: boolean;
  /** A 16-bit full fine-tune keeps an fp32 master copy (partitioned by ZeRO stage; fp32 grads with offload). */
  masterWeights: boolean;
  /**
   * Optimizers the launcher writes as torchao optimizers with bf16_stochastic_round=True for pure-bf16 full
   * fine-tunes: the fp32 update is rounded stochastically into the bf16 weight, so small updates are not lost.
   */
  stochasticRounding: readonly Optimizer[];
  /**
   * The torch release its launch folder pins (requirements.txt): its ROCm wheels carry kernels for some AMD gfx
   * targets only (engines/torch-targets.ts); absent: no pin (a serving image brings its own torch).
   */
  torch?: string;
  /** FP8 training formats it converts the linears to (torchao: kernels/float8.ts); absent: none. */
  float8?: readonly Float8Compute[];
  /** Activation checkpointing modes the engine can be told to use. */
  checkpointing: readonly Checkpointing[];
  /** Loads Liger's kernels (TrainingArguments.use_liger_kernel / axolotl LigerPlugin): kernels/liger.ts. */
  liger?: boolean;
  /** Loads Unsloth's tiled MLP (from_pretrained unsloth_tiled_mlp=True; core/memory/activations.ts). */
  tiledMlp?: boolean;
  /** Its launcher writes accelerate's fsdp_version, which `--fsdp-version` sets (EstimateOptions.fsdpVersion). */
  fsdpVersion?: boolean;
  /** Trains --modules-to-save: full copies of the embedding / head beside LoRA (PEFT modules_to_save). */
  modulesToSave?: boolean;
  /** Attention implementations the engine can be told to use. */
  attention: readonly Attention[];
  /** How it shards ZeRO stages when it does (shardingKind; launch/common.ts shardingOf); absent: FSDP. */
  sharding?: Sharding;
  /**
   * `launch --sharding <its sharding>` picks it: the flag form names a ZeRO plan's engine by how it shards, among
   * the engines that set this and for a plan on any of their frameworks (engines/sharding-flag.ts).
   */
  shardingFlag?: boolean;
  /**
   * Its ZeRO sharding takes bitsandbytes optimizers only as untested ones (DeepSpeed's
   * zero_allow_untested_optimizer, runtime/engine.py _configure_zero_optimizer): a plan that needs the switch
   * loses a near-tie (plan/results.ts riskOf).
   */
  bnbOptimizersUntested?: boolean;
  /**
   * ZeRO stages it runs only through a path its documentation does not describe (an opt-in the code reads but no
   * guide sets): a plan on one loses a near-tie (plan/results.ts riskOf).
   */
  zeroUndocumented?: readonly number[];
  /**
   * Its guides launch several GPUs on one machine only (no --nnodes / --num_machines in them): a training plan over
   * several machines runs on an undocumented path, left out unless search.undocumented (plan/loop.ts
   * hardwareGate), and loses a near-tie when searched (plan/results.ts riskOf).
   */
  oneMachineDocumented?: boolean;
  /**
   * Why the engine, as its launch folder installs and runs it, has no Apple GPU (Metal / MPS) path, quoting its
   * own docs or source (engines/apple.ts): the planner's hardware gate and `estimate --gpu` refuse it on Apple
   * GPUs. Absent: it runs there.
   */
  notOnApple?: string;
  /**
   * Quantized base weights (nf4, fp4, int8, int4) on Apple GPUs, as the libraries its launch folder pins run them:
   * the formats its quantization path runs on MPS and those it fails on there, each with the source
   * (engines/apple.ts). The planner's hardware gate and `estimate --gpu` read it alike. A quantized format in
   * neither list is unread for Apple GPUs: the planner keeps it off them, estimate estimates it. Absent: none read.
   */
  appleWeights?: AppleWeights;
  /**
   * Platforms (`rocm`: AMD GPUs) on which the engine's time leaves out kernel costs nobody read for it (its memory
   * profile says which), where another engine's are modelled: a plan there loses a near-tie (plan/results.ts riskOf).
   */
  timeUnread?: readonly 'rocm'[];
  /**
   * How a node's processes load the checkpoint into host RAM (memory/host-ram.ts). `onePerNode`: one process
   * materialises it and the others receive shards ('zero3': only under ZeRO-3); otherwise each process loads the
   * whole model. `streamed`: the checkpoint is read tensor by tensor from an mmap (page cache, no held copy).
   * `offloadBufferFactor`: host staging buffers as a factor of the offloaded states. `streamedWeights`: base
   * weights loaded with a per-rank device_map (bitsandbytes quantization on load), the launcher's or, under FSDP /
   * ZeRO-3, the 4-bit quantizer's own: each tensor goes from the mmap straight to the GPU, no held copy.
   * `shardedQuantWeights`: under ZeRO-3, base weights the launch loads layer by layer, quantized on the GPU and
   * kept on local rank 0's host (FrameworkProfile.shardedQuantLoad): the node holds the quantized model and one
   * safetensors file per process while loading (memory/host-ram.ts loadingPeak).
   * Absent: each process loads and holds a copy, no buffers.
   */
  hostLoading?: {
    onePerNode: 'always' | 'zero3' | 'never';
    streamed: boolean;
    offloadBufferFactor?: number;
    streamedWeights?: readonly WeightDtype[];
    shardedQuantWeights?: readonly WeightDtype[];
  };
  /** The docs each rule above comes from. */
  docs: readonly string[];
  /**
   * What the engine does where the user says nothing (`estimate --framework <engine>` applies each whose flag
   * was not given; the planner searches the values, and the rules forbid what the engine never runs).
   */
  defaults: readonly EngineDefault[];
  /**
   * The LoRA targets the engine's own recipes train (docs/engines.md): what a scenario without loraTargets plans
   * on it (engines.ts engineFieldsInto), and `estimate --framework <engine>`'s default (loraRecipeDefault in
   * `defaults`). Absent: the contract's q,v.
   */
  loraTargets?: LoraRecipe;
  /** What the libraries this engine drives reject or change (rules.ts), with versions and sources. */
  rules: readonly Rule[];
}

/** An engine's quantized weight formats on Apple GPUs (EngineProfile.appleWeights). */
export interface AppleWeights {
  /** Formats its quantization path runs on MPS, and the source that says so. */
  runs?: { weights: readonly WeightDtype[]; source: string };
  /** Formats it fails on there, and why (the source line). */
  fails?: { weights: readonly WeightDtype[]; why: string };
}

/** How ZeRO-style sharding is realised: DeepSpeed ZeRO or PyTorch FSDP. */
export type Sharding = 'deepspeed' | 'fsdp';

/** How the engine of profile `p` shards ZeRO stages (FSDP where the profile says nothing). */
export const shardingKind = (p: EngineProfile): Sharding => p.sharding ?? 'fsdp';

/** A pure-bf16 full fine-tune on `p` whose launcher writes a stochastically rounding optimizer. */
export const roundsStochastically = (
  p: Pick<EngineProfile, 'stochasticRounding'>,
  o: Pick<EstimateOptions, 'method' | 'weights' | 'optimizer'>,
): boolean =>
  o.method === 'full' && o.weights === 'bf16' && p.stochasticRounding.includes(o.optimizer);

/** One default an engine applies: the flag it stands for, why, and the change to the options. */
export interface EngineDefault {
  flag: string;
  why: string;
  apply: (o: EstimateOptions) => void;
}

/** An engine's LoRA targets as its recipes write them, with the recipe read. */
export interface LoraRecipe {
  /** PEFT's 'all-linear' shorthand (every linear of the layers, lm_head excluded); `targets` then lists them. */
  allLinear: boolean;
  targets: readonly LoraTarget[];
  /** The recipe: repository, version and file. */
  source: string;
}

/** The seven projections of a transformer layer (PEFT 'all-linear' on a dense decoder, lm_head excluded). */
export const LINEAR_TARGETS: readonly LoraTarget[] = ['q', 'k', 'v', 'o', 'gate', 'up', 'down'];

/** `estimate --framework <engine>` without --lora-targets: the recipe's targets on LoRA / QLoRA. */
export const loraRecipeDefault = (r: LoraRecipe): EngineDefault => ({
  flag: 'lora-targets',
  why: `the recipes' targets (${r.source})`,
  apply: (o) => {
    if (o.method !== 'lora' && o.method !== 'qlora') return;
    o.loraTargets = [...r.targets];
    o.loraAllLinear = r.allLinear;
  },
});

/** Quantized base weights an engine must name in shardedQuantized to shard them. */
const QUANTIZED = new Set<WeightDtype>(['fp8', 'int8', 'nf4', 'fp4', 'int4']);

/** Whether `p` refuses the quantized base weights of this LoRA/QLoRA layout because ZeRO-3 shards them. */
export const refusesShardedQuantized = (
  p: EngineProfile,
  o: EstimateOptions,
  dp: number,
): boolean =>
  o.method !== 'full' &&
  o.zero >= 3 &&
  (dp > 1 || o.offload === 'optimizer+params') &&
  QUANTIZED.has(o.weights) &&
  !p.shardedQuantized.includes(o.weights);

/** bitsandbytes optimizers (8-bit and paged states). */
export const BNB_OPTIMIZERS: ReadonlySet<Optimizer> = new Set<Optimizer>([
  'adamw-8bit',
  'paged-adamw',
  'paged-adamw-8bit',
]);

/** A bitsandbytes optimizer over sharded data-parallel ranks on an engine that steps none there. */
export const refusesShardedBnb = (p: EngineProfile, o: EstimateOptions, dp: number): boolean =>
  BNB_OPTIMIZERS.has(o.optimizer) &&
  o.zero > 0 &&
  dp > 1 &&
  !p.bnbOptimizersSharded &&
  !(p.shardedLowBitOptimizers ?? []).includes(o.optimizer);
