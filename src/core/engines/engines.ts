/**
 * What each engine can run, kept as data: one profile per engine, each rule citing the engine's docs.
 * The planner offers a configuration only on engines whose profile accepts it, and the plan's options
 * carry the engine's memory profile (`framework`), its master-weight copy and optimizer-in-backward, so
 * that `vramplan estimate` with a plan's `options` reproduces its bytes and `engineOf(options)` (engine.ts)
 * gives back the plan's engine. A combination no engine runs is pruned with reason `no-engine`.
 */
import type { Engine } from '../../schema/engine.js';
import { engineOf } from './engine.js';
import {
  ATTENTION,
  type Attention,
  type EstimateOptions,
  type Framework,
  type Method,
  type Offload,
  type Optimizer,
  type WeightDtype,
} from '../../schema/estimate.js';

export interface EngineProfile {
  id: Engine;
  /** The memory profile (core/memory/frameworks.ts) a plan on this engine is estimated with: `options.framework`. */
  framework: Framework;
  methods: readonly Method[];
  /** Largest data-parallel degree (1: one process, e.g. open-source Unsloth); Infinity otherwise. */
  maxDp: number;
  /** Trains or serves in fp16 (GPUs without bf16 fall back to it); false where only bf16/fp32 exist. */
  fp16: boolean;
  /** With TP, norms run sequence-parallel and the loss vocabulary-parallel by default. */
  tpShardsNormsAndLoss: boolean;
  tp: boolean;
  pp: boolean;
  cp: boolean;
  /** ZeRO stages (FSDP: 2 = SHARD_GRAD_OP, 3 = FULL_SHARD). */
  zero: readonly (0 | 1 | 2 | 3)[];
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
  /** Optimizer step fused into backward (per-parameter hooks): needs one micro-batch per step. */
  optimizerInBackward: boolean;
  /** A 16-bit full fine-tune keeps an fp32 master copy (partitioned by ZeRO stage; fp32 grads with offload). */
  masterWeights: boolean;
  /**
   * Optimizers the launcher writes as torchao optimizers with bf16_stochastic_round=True for pure-bf16 full
   * fine-tunes: the fp32 update is rounded stochastically into the bf16 weight, so small updates are not lost.
   */
  stochasticRounding: readonly Optimizer[];
  /** Attention implementations the engine can be told to use. */
  attention: readonly Attention[];
  /** The docs each rule above comes from. */
  docs: readonly string[];
}

const FLOAT16: readonly WeightDtype[] = ['bf16', 'fp16'];
const HF_OPTIMIZERS: readonly Optimizer[] = [
  // TrainingArguments.optim: adamw_torch(_fused), adamw_bnb_8bit, paged_adamw_32bit, paged_adamw_8bit,
  // lion_32bit, adafactor, sgd (https://huggingface.co/docs/transformers/main/en/optimizers).
  'adamw',
  'adamw-8bit',
  'paged-adamw',
  'paged-adamw-8bit',
  'lion',
  'adafactor',
  'sgd',
  'sgd-momentum',
];

export const ENGINE_PROFILES: Record<Engine, EngineProfile> = {
  'hf-trainer': {
    id: 'hf-trainer',
    framework: 'hf',
    methods: ['full', 'lora', 'qlora'],
    maxDp: Infinity, // DDP through accelerate launch
    fp16: true,
    tpShardsNormsAndLoss: false,
    tp: false,
    pp: false,
    cp: false,
    zero: [0],
    offload: {},
    // bf16 weights + bf16=True trains pure 16-bit; fp32 weights + bf16=True is torch.autocast.
    fullWeights: ['bf16', 'fp16', 'fp32'],
    baseWeights: ['bf16', 'fp16', 'fp32', 'int8', 'nf4', 'fp4'],
    shardedQuantized: [],
    optimizers: HF_OPTIMIZERS,
    offloadOptimizers: [],
    bnbOptimizersSharded: true,
    optimizerInBackward: false,
    masterWeights: false,
    stochasticRounding: [],
    attention: ATTENTION,
    docs: [
      'https://huggingface.co/docs/transformers/main_classes/trainer',
      'https://huggingface.co/docs/transformers/main/en/optimizers',
    ],
  },
  'hf-fsdp': {
    id: 'hf-fsdp',
    framework: 'hf',
    methods: ['full', 'lora', 'qlora'],
    maxDp: Infinity,
    fp16: true,
    tpShardsNormsAndLoss: false,
    tp: false,
    pp: false,
    cp: false,
    // sharding_strategy SHARD_GRAD_OP (ZeRO-2) and FULL_SHARD (ZeRO-3).
    zero: [2, 3],
    // FSDP CPUOffload(offload_params=True) moves parameters and gradients to the host and steps the optimizer there.
    offload: { 'optimizer+params': [3] },
    // Mixed precision keeps fp32 sharded parameters and gathers bf16 units (MixedPrecision param_dtype).
    fullWeights: ['bf16', 'fp16', 'fp32'],
    baseWeights: ['bf16', 'fp16', 'fp32', 'int8', 'nf4', 'fp4'],
    // FSDP shards only float tensors: 4-bit needs bnb_4bit_quant_storage; LLM.int8 Int8Params cannot be sharded.
    shardedQuantized: ['nf4', 'fp4'],
    optimizers: HF_OPTIMIZERS,
    offloadOptimizers: ['adamw', 'sgd', 'sgd-momentum', 'adafactor', 'lion'],
    bnbOptimizersSharded: true,
    optimizerInBackward: false,
    masterWeights: false,
    stochasticRounding: [],
    attention: ATTENTION,
    docs: [
      'https://huggingface.co/docs/accelerate/usage_guides/fsdp',
      'https://huggingface.co/docs/bitsandbytes/main/fsdp_qlora',
    ],
  },
  'hf-deepspeed': {
    id: 'hf-deepspeed',
    framework: 'deepspeed',
    methods: ['full', 'lora', 'qlora'],
    maxDp: Infinity,
    fp16: true,
    tpShardsNormsAndLoss: false,
    tp: false,
    pp: false, // the Trainer integration has no DeepSpeed pipeline engine
    cp: false,
    zero: [1, 2, 3],
    // offload_optimizer (ZeRO-Offload) for stages 1-3; offload_param needs stage 3.
    offload: { optimizer: [1, 2, 3], 'optimizer+params': [3] },
    // bf16/fp16 mode casts the model to 16 bits and keeps its own fp32 master partition: fp32 storage is the same run.
    fullWeights: FLOAT16,
    baseWeights: ['bf16', 'fp16', 'int8', 'nf4', 'fp4'],
    // ZeRO-3 + QLoRA needs bnb_4bit_quant_storage; 8-bit bitsandbytes weights are not supported under ZeRO-3.
    shardedQuantized: ['nf4', 'fp4'],
    // Client optimizers run under ZeRO with zero_allow_untested_optimizer (the Trainer sets it).
    optimizers: HF_OPTIMIZERS,
    // ZeRO-Offload steps on the host with DeepSpeedCPUAdam.
    offloadOptimizers: ['adamw'],
    bnbOptimizersSharded: true,
    optimizerInBackward: false,
    masterWeights: true,
    stochasticRounding: [],
    attention: ATTENTION,
    docs: [
      'https://huggingface.co/docs/transformers/deepspeed',
      'https://www.deepspeed.ai/tutorials/zero-offload/',
      'https://huggingface.co/docs/peft/accelerate/deepspeed',
      'https://deepspeed.readthedocs.io/en/latest/memory.html',
    ],
  },
  torchtune: {
    id: 'torchtune',
    framework: 'torchtune',
    methods: ['full', 'lora', 'qlora'],
    maxDp: Infinity,
    // Recipes take dtype bf16 or fp32 only: https://pytorch.org/torchtune/stable/tutorials/memory_optimizations.html
    fp16: false,
    tpShardsNormsAndLoss: false,
    tp: false,
    pp: false,
    cp: false,
    zero: [0, 3], // single-device recipes, or FSDP2 fully_shard in the distributed recipes
    offload: { 'optimizer+params': [3] }, // fsdp_cpu_offload
    // One dtype for the whole run (dtype: bf16), no autocast and no fp32 master copy.
    fullWeights: ['bf16'],
    baseWeights: ['bf16', 'nf4'], // torchao NF4Tensor for QLoRA
    shardedQuantized: ['nf4'],
    optimizers: [
      'adamw',
      'adamw-8bit',
      'paged-adamw',
      'paged-adamw-8bit',
      'adafactor',
      'sgd',
      'sgd-momentum',
    ],
    offloadOptimizers: ['adamw', 'sgd', 'sgd-momentum', 'adafactor'],
    // bitsandbytes optimizers are documented for the single-device recipes only.
    bnbOptimizersSharded: false,
    optimizerInBackward: true, // optimizer_in_bwd: True (needs gradient_accumulation_steps: 1)
    masterWeights: false,
    // torchao.optim.AdamW8bit(bf16_stochastic_round=True), instantiated by the recipe's optimizer component
    // (https://github.com/pytorch/ao/blob/v0.10.0/torchao/optim/README.md); plain AdamW stays torch's fused one.
    stochasticRounding: ['adamw-8bit'],
    // Attention modules call F.scaled_dot_product_attention (flash kernels where available); no switch.
    attention: ['sdpa'],
    docs: [
      'https://pytorch.org/torchtune/stable/tutorials/memory_optimizations.html',
      'https://github.com/pytorch/ao/blob/v0.10.0/torchao/optim/README.md',
    ],
  },
  torchtitan: {
    id: 'torchtitan',
    framework: 'torchtitan',
    methods: ['full'],
    maxDp: Infinity,
    fp16: true,
    // torchtitan's TP plan: SequenceParallel on the norms, loss_parallel on unless disabled
    // (https://github.com/pytorch/torchtitan: JobConfig parallelism.disable_loss_parallel = false).
    tpShardsNormsAndLoss: true,
    tp: true,
    pp: true,
    cp: true,
    // FSDP2 over the data-parallel shard dimension; mixed precision (bf16 compute over fp32 shards) only under FSDP.
    zero: [3],
    offload: { 'optimizer+params': [3] }, // training.enable_cpu_offload
    fullWeights: ['fp32'],
    baseWeights: [],
    shardedQuantized: [],
    optimizers: ['adamw'],
    offloadOptimizers: ['adamw'],
    bnbOptimizersSharded: false,
    optimizerInBackward: false,
    masterWeights: false,
    stochasticRounding: [],
    attention: ATTENTION,
    docs: [
      'https://github.com/pytorch/torchtitan/blob/main/docs/fsdp.md',
      'https://github.com/pytorch/torchtitan/blob/main/README.md',
    ],
  },
  litgpt: {
    id: 'litgpt',
    framework: 'litgpt',
    methods: ['full', 'lora', 'qlora'],
    maxDp: Infinity,
    fp16: true,
    tpShardsNormsAndLoss: false,
    tp: false,
    pp: false,
    cp: false,
    zero: [0, 3], // Fabric FSDPStrategy
    offload: {},
    fullWeights: ['bf16', 'fp32'], // --precision bf16-true / bf16-mixed
    // --quantize bnb.int8-training (precision 16-true only) / bnb.nf4 / bnb.fp4 (finetune/lora.py L53 at v0.5.13).
    baseWeights: ['bf16', 'fp32', 'int8', 'nf4', 'fp4'],
    shardedQuantized: [], // quantization is single-device only
    optimizers: ['adamw', 'adamw-8bit', 'paged-adamw', 'paged-adamw-8bit', 'sgd', 'sgd-momentum'],
    offloadOptimizers: [],
    bnbOptimizersSharded: false,
    optimizerInBackward: false,
    masterWeights: false,
    stochasticRounding: [],
    // CausalSelfAttention always calls F.scaled_dot_product_attention (flash kernels where PyTorch picks them); no
    // switch (litgpt/model.py L593 at v0.5.13, commit 26857050fe3ff627cd714fe92f5838f51a3d5efa).
    attention: ['sdpa'],
    docs: [
      'https://github.com/Lightning-AI/litgpt/blob/main/tutorials/finetune.md',
      'https://github.com/Lightning-AI/litgpt/blob/main/tutorials/quantize.md',
    ],
  },
  unsloth: {
    id: 'unsloth',
    framework: 'unsloth',
    methods: ['full', 'lora', 'qlora'],
    maxDp: 1, // open-source Unsloth trains on one GPU
    fp16: true,
    tpShardsNormsAndLoss: false,
    tp: false,
    pp: false,
    cp: false,
    zero: [0],
    offload: {},
    fullWeights: ['bf16', 'fp32'],
    baseWeights: ['bf16', 'int8', 'nf4'], // load_in_4bit / load_in_8bit
    shardedQuantized: [],
    optimizers: HF_OPTIMIZERS,
    offloadOptimizers: [],
    bnbOptimizersSharded: false,
    optimizerInBackward: false,
    masterWeights: false,
    stochasticRounding: [],
    attention: ATTENTION,
    docs: ['https://docs.unsloth.ai/get-started/fine-tuning-llms-guide'],
  },
  vllm: {
    id: 'vllm',
    framework: 'vllm',
    methods: ['inference'],
    maxDp: Infinity, // replicas
    fp16: true,
    tpShardsNormsAndLoss: false,
    tp: true,
    pp: true,
    cp: false,
    zero: [0],
    offload: {},
    fullWeights: [],
    // fp8 and int8 (W8A8) checkpoints, bitsandbytes nf4, AWQ/GPTQ int4.
    baseWeights: ['bf16', 'fp16', 'fp32', 'fp8', 'int8', 'nf4', 'int4'],
    shardedQuantized: [],
    optimizers: ['none'],
    offloadOptimizers: [],
    bnbOptimizersSharded: false,
    optimizerInBackward: false,
    masterWeights: false,
    stochasticRounding: [],
    attention: ATTENTION,
    docs: [
      'https://docs.vllm.ai/en/latest/serving/distributed_serving.html',
      'https://docs.vllm.ai/en/latest/features/quantization/supported_hardware.html',
    ],
  },
  'hf-generate': {
    id: 'hf-generate',
    framework: 'hf',
    methods: ['inference'],
    maxDp: Infinity, // one process per GPU
    fp16: true,
    tpShardsNormsAndLoss: false,
    tp: false,
    pp: false,
    cp: false,
    zero: [0],
    offload: {},
    fullWeights: [],
    baseWeights: ['bf16', 'fp16', 'fp32', 'fp8', 'int8', 'nf4', 'fp4', 'int4'],
    shardedQuantized: [],
    optimizers: ['none'],
    offloadOptimizers: [],
    bnbOptimizersSharded: false,
    optimizerInBackward: false,
    masterWeights: false,
    stochasticRounding: [],
    attention: ATTENTION,
    docs: ['https://huggingface.co/docs/transformers/main/en/quantization/overview'],
  },
};

/** Engines a scenario's `search.framework` stands for (the Hugging Face stack has three launchers). */
export const ENGINE_FAMILY: Record<Framework, readonly Engine[]> = {
  hf: ['hf-trainer', 'hf-fsdp', 'hf-deepspeed', 'hf-generate'],
  deepspeed: ['hf-deepspeed'],
  torchtune: ['torchtune'],
  torchtitan: ['torchtitan'],
  litgpt: ['litgpt'],
  unsloth: ['unsloth'],
  vllm: ['vllm'],
};

const BNB_OPTIMIZERS = new Set<Optimizer>(['adamw-8bit', 'paged-adamw', 'paged-adamw-8bit']);
const QUANTIZED = new Set<WeightDtype>(['fp8', 'int8', 'nf4', 'fp4', 'int4']);

/** What engineRejects answers when asked not to explain (the planner only tests for null). */
export const REJECTED = 'rejected';

/**
 * Why `engine` cannot run `o` (a short rule, quoting the profile), or null when it can. `dp` is the
 * data-parallel degree and `accum` the micro-batches per optimizer step. With `explain` false a rejection
 * is REJECTED instead of a sentence built from the profile: the planner asks tens of thousands of times and
 * reads only null.
 */
export function engineRejects(
  engine: Engine,
  o: EstimateOptions,
  dp: number,
  accum: number,
  explain = true,
): string | null {
  const p = ENGINE_PROFILES[engine];
  if (!p.methods.includes(o.method)) return explain ? `runs ${p.methods.join('/')} only` : REJECTED;
  if (dp > p.maxDp) return 'runs on one GPU';
  if (o.tp > 1 && !p.tp) return 'no tensor parallelism';
  if (o.pp > 1 && !p.pp) return 'no pipeline parallelism';
  if (o.cp > 1 && !p.cp) return 'no context parallelism';
  if (!p.zero.includes(o.zero)) return explain ? `ZeRO stages ${p.zero.join('/')} only` : REJECTED;
  if (o.offload !== 'none' && !(p.offload[o.offload] ?? []).includes(o.zero))
    return explain ? `no ${o.offload} offload at ZeRO-${o.zero}` : REJECTED;
  const sharded = o.zero >= 3 && (dp > 1 || o.offload === 'optimizer+params');
  if (o.method === 'full') {
    if (!p.fullWeights.includes(o.weights))
      return explain ? `full fine-tunes ${p.fullWeights.join('/')}` : REJECTED;
    // FSDP2 mixed precision (torchtitan) exists only when parameters are sharded.
    if (engine === 'torchtitan' && dp === 1) return 'bf16 compute needs FSDP (dp > 1)';
  } else {
    if (!p.baseWeights.includes(o.weights)) return explain ? `no ${o.weights} weights` : REJECTED;
    if (sharded && QUANTIZED.has(o.weights) && !p.shardedQuantized.includes(o.weights))
      return explain ? `no ${o.weights} weights under sharding` : REJECTED;
  }
  if (!p.attention.includes(o.attention))
    return explain ? `attention ${p.attention.join('/')} only` : REJECTED;
  if (!p.optimizers.includes(o.optimizer))
    return explain ? `no ${o.optimizer} optimizer` : REJECTED;
  if (o.offload !== 'none' && !p.offloadOptimizers.includes(o.optimizer))
    return explain ? `no host-side ${o.optimizer} step` : REJECTED;
  if (BNB_OPTIMIZERS.has(o.optimizer) && o.zero > 0 && dp > 1 && !p.bnbOptimizersSharded)
    return explain ? `no ${o.optimizer} under sharding` : REJECTED;
  if (o.optimizerInBackward && (!p.optimizerInBackward || accum > 1 || o.method !== 'full'))
    return 'no optimizer-in-backward here';
  return null;
}

/** The estimate options a configuration takes on `engine` (its memory profile and master-weight copy). */
export function onEngine(o: EstimateOptions, engine: Engine): EstimateOptions {
  return engineFieldsInto({ ...o }, engine);
}

/**
 * onEngine in place: writes the engine's fields into `out` (the planner's scratch options, so its hot loops
 * allocate nothing), reading the configuration's own sequence/loss-parallel flags from `base` (default
 * `out`) and the tensor-parallel degree from `out`.
 */
export function engineFieldsInto(
  out: EstimateOptions,
  engine: Engine,
  base: EstimateOptions = out,
): EstimateOptions {
  const p = ENGINE_PROFILES[engine];
  const sixteen = base.weights === 'bf16' || base.weights === 'fp16';
  const tpExtras = p.tpShardsNormsAndLoss && out.tp > 1;
  const sequenceParallel = base.sequenceParallel || tpExtras;
  const lossParallel = base.lossParallel || tpExtras;
  out.framework = p.framework;
  out.masterWeights = p.masterWeights && base.method === 'full' && sixteen;
  out.sequenceParallel = sequenceParallel;
  out.lossParallel = lossParallel;
  return out;
}

/** The plan's engine writes an optimizer that rounds bf16 weight updates stochastically (torchao's bf16_stochastic_round). */
export function stochasticallyRounded(o: EstimateOptions): boolean {
  return (
    o.method === 'full' &&
    o.weights === 'bf16' &&
    ENGINE_PROFILES[engineOf(o)].stochasticRounding.includes(o.optimizer)
  );
}
