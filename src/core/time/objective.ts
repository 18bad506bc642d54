/**
 * Step time of a preference / RL step by phase (DESIGN.md "Engines, serving and RL"): rollout (GRPO: the
 * generation batch decoded by the rollout engine), reference log-probs (a forward pass of the reference),
 * policy training (the SFT step over the sequences it trains on) and weight sync (GRPO: the policy's weights
 * to vLLM). Reuses the planner's trainWork/trainStep and decodeStep. Sources: TRL v1.9.0 grpo_trainer.py,
 * dpo_trainer.py.
 */
import { loraDropoutOn } from '../memory/lora-dropout.js';
import { pagedMigrationSeconds } from './paged-migration.js';
import {
  generatesInTrainer,
  hasCritic,
  OBJECTIVE_PROFILES,
  ROLLOUT_FRAMEWORKS,
  rollsOut,
} from '../../schema/objectives.js';
import type { Arch } from '../model/arch.js';
import { trainedArch } from '../model/score-head.js';
import type { Gpu } from '../../schema/gpu.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import type { TimeOptions } from '../../schema/time.js';
import {
  decodeStep,
  estimateTime,
  gpuRates,
  modelFacts,
  trainStep,
  trainWork,
  TRAIN_PHASES,
  weightBytes,
  type GpuRates,
  type ModelFacts,
  type TimeResult,
  type TrainWork,
} from './index.js';
import { policyOptions, preparedContext, readsLogits } from '../memory/objective.js';
import { FRAMEWORKS } from '../memory/frameworks.js';
import { loneCompletionSteps, longestCompletion } from './completion-length.js';
import { loraForwardOpsOf, loraStepTime } from './multi-lora.js';
import { floatCompute } from '../../schema/estimate.js';
import { type CountFreeWork } from './train-work.js';
import { forwardFetchSeconds } from './train-step.js';
import { autocastCastOps } from './autocast.js';
import { builtAdapterBytes } from '../memory/trainable-width.js';
import { isFloatDtype } from '../model/dtypes.js';
import { sleepCycleSeconds } from './sleep-cycle.js';
import type { GenerateDecodeProfile } from '../memory/eager-layer-profile.js';
import {
  generateFetchSeconds,
  NO_FETCH,
  passFetchSeconds,
  syncFetchSeconds,
  trainerFetch,
  type TrainerFetch,
} from './trainer-fetch.js';

const round = (x: number) => Number(x.toPrecision(4));

/** The objective's phases in seconds per optimizer step. */
export interface ObjectivePhases {
  rollout: number;
  referenceLogprobs: number;
  policyTraining: number;
  weightSync: number;
  /** PPO: the value model's and the reward model's forwards over the generation batch (0 otherwise). */
  criticScoring?: number;
}

/**
 * The policy's SFT step of a preference / RL configuration: its options (memory/objective.ts policyOptions),
 * its training work, and its step at each rates object asked for (`steps`, with trainStep's phases). The
 * rollout does not enter it, so configurations that differ only in the rollout share one (the planner's GRPO
 * rows, each timed at every GPU option and power level: hence one step per rates object).
 */
export interface PolicyWork {
  options: EstimateOptions;
  train: TrainWork;
  /** Its steps so far, by rates object (few: a row's GPU options and power levels; searched last first). */
  steps: PolicyStep[];
  /**
   * The rollout decodes of the objective works made on it (few: searched by their shape); in a search, shared
   * with the policy works whose options decode alike (RolloutDecodes).
   */
  rollouts: RolloutDecode[];
}

/** A policy work's step at one rates object, with trainStep's phases. */
interface PolicyStep {
  rates: GpuRates;
  step: number;
  phases: Float64Array;
  /** A further no-grad forward of the policy: its forward phase and the parameter fetches it waits on. */
  forwardPass: number;
}

/** A rollout decode's seconds at one rates object. */
interface RolloutStep {
  rates: GpuRates;
  prefill: number;
  step: number;
  lora: number;
}

/**
 * One rollout decode (options, and the adapter's when vLLM serves it unmerged) and its step per rates object
 * (at the model facts and time options first asked for): the rows that share a policy work and decode alike
 * (same decode options) time it once per GPU option and power level.
 */
export interface RolloutDecode {
  shape: RolloutShape;
  decode: EstimateOptions;
  lora: EstimateOptions | null;
  m: ModelFacts | null;
  t: TimeOptions | null;
  steps: RolloutStep[];
  /** The policy's engine where the rollout decodes the policy's own weights (TimeOptions.expertsOf), else null. */
  expertsOf: EstimateOptions['framework'] | null;
}

/**
 * The policy's work of `o` at time options `t` (only gradAccum is read). `decodes`: the rollout decodes of the
 * search's other policy works, shared with this one's where their options are alike (RolloutDecodes). `freeOf`:
 * the training work's CountFreeWork for the policy's options at the trainer's time options (shared by policies that
 * differ only in GPU count and grad-accum: train-work.ts), else made with it.
 */
export function policyWork(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  decodes: RolloutDecodes | null = null,
  freeOf: ((p: EstimateOptions, tp: TimeOptions) => CountFreeWork) | null = null,
): PolicyWork {
  const p = policyTrainOptions(o, t);
  const tp = trainerTimeOptions(o, t);
  return {
    options: p,
    train: freeOf ? trainWork(m, p, tp, undefined, undefined, freeOf(p, tp)) : trainWork(m, p, tp),
    steps: [],
    rollouts: decodes ? decodes.rolloutsOf(p) : [],
  };
}

/**
 * `t` with the objective's trainer's loss path (TimeOptions.trainerReadsLogits, memory/objective.ts readsLogits) and,
 * where the trainer prepares the k-bit model itself and the build left the stream unset, its fp32 residual stream
 * (memory/objective.ts preparedContext): the planner's policy work and the estimate's step read the same options.
 */
function trainerTimeOptions(o: EstimateOptions, t: TimeOptions): TimeOptions {
  const logits = readsLogits(o) && t.trainerReadsLogits !== true;
  const stream = t.kbitFp32Stream === undefined && preparedContext(o, {}).kbitFp32Stream === true;
  if (!logits && !stream) return t;
  return {
    ...t,
    ...(logits ? { trainerReadsLogits: true } : {}),
    ...(stream ? { kbitFp32Stream: true } : {}),
  };
}

/**
 * The options the policy trains at (policyOptions), its sequence the padded one where the engine pads each process's
 * GRPO generation batch to its longest before splitting it (FrameworkProfile.grpoPadsGenerationBatch): the prompt and
 * the longest completion of the batch x steps_per_generation rows (completion-length.ts longestCompletion, the cap
 * bounding it). The prompts' spread is not known: their mean is kept.
 */
export function policyTrainOptions(o: EstimateOptions, t: TimeOptions): EstimateOptions {
  const p = policyOptions(o);
  if (o.objective !== 'grpo' || FRAMEWORKS[p.framework].grpoPadsGenerationBatch !== true) return p;
  const completion = o.completionTokens ?? 0;
  const rows = o.batch * (o.stepsPerGeneration ?? t.gradAccum);
  p.seq = (o.promptTokens ?? 0) + longestCompletion(completion, o.maxCompletionTokens, rows);
  return p;
}

/** The fields a rollout decode sets on its policy's options (rolloutDecode): the rest it takes from them. */
const DECODE_SETS = new Set([
  'method',
  'optimizer',
  'weights',
  'framework',
  'batch',
  'seq',
  'tp',
  'pp',
  'cp',
  'gpus',
]);

/**
 * The training side's fields a rollout decode takes from its policy and never reads: activation checkpointing,
 * the ZeRO stage and offload, Liger's kernels and fp32 master weights shape the policy's step, while decodeStep and
 * loraStepTime read the decode's layout, dtypes, engine, attention and adapters (test/core/policy-works.test.ts
 * records the fields they read over hf, colocated, shared-weight and server decodes and fails if one of these is).
 * Policies that differ only in these decode alike.
 */
export const DECODE_UNREAD = [
  'checkpointing',
  'zero',
  'offload',
  'liger',
  'masterWeights',
] as const satisfies readonly (keyof EstimateOptions)[];

/** The fields decodeAlike does not compare: those the decode sets, and those it never reads. */
const DECODE_SKIPS = new Set<string>([...DECODE_SETS, ...DECODE_UNREAD]);

/**
 * Whether two policies' options give alike decode options: the same keys in the same order (a decode's keys are
 * its policy's, then those it sets), with like values (sameValue) but for the fields the decode sets or never reads
 * (DECODE_SKIPS).
 */
function decodeAlike(
  a: EstimateOptions,
  ka: readonly string[],
  b: EstimateOptions,
  kb: readonly string[],
): boolean {
  if (ka.length !== kb.length) return false;
  const ra = a as unknown as Record<string, unknown>;
  const rb = b as unknown as Record<string, unknown>;
  for (let i = 0; i < ka.length; i++) {
    const k = ka[i]!;
    if (k !== kb[i] || (!DECODE_SKIPS.has(k) && !sameValue(ra[k], rb[k]))) return false;
  }
  return true;
}

/** Like option values: the same primitive, or arrays of the same elements (LoRA targets). */
const sameValue = (a: unknown, b: unknown): boolean =>
  a === b ||
  (Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => x === b[i]));

/**
 * The rollout decodes of one search's policy works. A decode's options are its policy's with the fields it sets
 * itself (DECODE_SETS: method, optimizer, weights, framework, batch, sequence and layout), so policies that
 * differ only in those and in the training fields no decode reads (DECODE_UNREAD: checkpointing, ZeRO, offload,
 * Liger, master weights) decode alike at every shape: the optimizers, micro-batches, layouts and training
 * settings of one configuration share one list of decodes (PolicyWork.rollouts), and so one decodeStep per shape
 * and rates object. decodeStep and loraStepTime read their options' values only, so a decode found there times
 * exactly as a new one would.
 */
export class RolloutDecodes {
  /** Per class of policy options that decode alike: one member's options and the class's decodes. */
  private readonly classes: {
    from: EstimateOptions;
    /** Object.keys(from), listed once for every comparison with the class. */
    keys: readonly string[];
    rollouts: RolloutDecode[];
  }[] = [];
  /** Class ids by a few fields of the options (the candidates decodeAlike decides between). */
  private readonly byFields = new Map<string, number[]>();

  /** The decodes of the class of policy options `p` (made empty for a new class). */
  rolloutsOf(p: EstimateOptions): RolloutDecode[] {
    const key = `${p.attention}|${p.compute}|${p.kvCacheDtype}`;
    let ids = this.byFields.get(key);
    if (!ids) this.byFields.set(key, (ids = []));
    const keys = Object.keys(p);
    for (let i = 0; i < ids.length; i++) {
      const c = this.classes[ids[i]!]!;
      if (decodeAlike(c.from, c.keys, p, keys)) return c.rollouts;
    }
    ids.push(this.classes.length);
    const rollouts: RolloutDecode[] = [];
    this.classes.push({ from: p, keys, rollouts });
    return rollouts;
  }
}

/**
 * What a preference / RL step costs besides its GPU's rates (the planner makes it once per row, as trainWork):
 * the policy's training work, the rollout's decode shape, and the weight bytes synced to vLLM.
 */
export interface ObjectiveWork {
  policy: PolicyWork;
  /** The rollout engine's decode options (one chunk of completions at the completion's mean context), or null. */
  decode: EstimateOptions | null;
  /** The decode with its step (shared by the policy work's rows that decode alike), or null. */
  rollout: RolloutDecode | null;
  /** The same decode at batch 1, for the steps the longest completion runs alone (vLLM), or null. */
  rolloutAlone: RolloutDecode | null;
  /** Decode steps of a generation batch that run its longest completion alone (completion-length.ts). */
  loneSteps: number;
  /** Generation batches each engine decodes per optimizer step. */
  rounds: number;
  prompt: number;
  completion: number;
  /** The tokens a row's cache grows by over the decode, on average (half the mean completion, or the longest's). */
  contextGrowth: number;
  /** The cap on a completion (TRL max_completion_length), or undefined. */
  maxCompletion: number | undefined;
  /** The rollout serves the trained adapter unmerged (one LoRA in vLLM's punica kernels), or null. */
  rolloutLora: EstimateOptions | null;
  reference: boolean;
  /**
   * The trainer's no-grad forward for the old per-token log-probs over each generation batch
   * (FrameworkProfile.grpoOldLogprobs: with a vLLM rollout, or generation out of step with the optimizer).
   */
  oldLogprobs: boolean;
  /**
   * KTO's KL completions (ObjectiveProfile.klForward): a no-grad forward of the policy over them in policy training,
   * and one of the reference beside its forward over the batch where the reference runs.
   */
  klForward: boolean;
  /** Bytes sent to vLLM after each step, and how: 1 copied on the GPU (colocated), 2 over NCCL (server). */
  syncBytes: number;
  sync: 0 | 1 | 2;
  /** What the trainer's generate and the sync fetch of a sharded or offloaded policy, and the sync's requests. */
  fetch: TrainerFetch;
  /**
   * Host seconds of the colocated vLLM's sleep / wake-up cycle around each generation batch (--rollout-sleep,
   * FrameworkProfile.rolloutSleepCycle; time/sleep-cycle.ts), 0 otherwise.
   */
  sleepCycle: number;
  /** Tokens of the objective's own rows per optimizer step (a pair counts once; GRPO: completions). */
  tokensPerStep: number;
  /** PPO: the value model's training work and the optimisation epochs over each generation batch; null otherwise. */
  critic: { value: TrainWork; epochs: number; phases: Float64Array } | null;
}

// https://github.com/huggingface/trl/blob/v1.9.0/trl/experimental/ppo/ppo_config.py local_rollout_forward_batch_size=64:
// PPO generates and scores its batch in chunks.
const PPO_ROLLOUT_CHUNK = 64;

const FORWARD = TRAIN_PHASES.indexOf('forward');

/**
 * The rollout's decode shape for one engine (trainer process, or the server): TRL generates one generation
 * batch (per_device_train_batch_size x processes x steps_per_generation) at once, every steps_per_generation
 * micro-steps (grpo_trainer.py _prepare_inputs; grpo_config.py: steps_per_generation defaults to
 * gradient_accumulation_steps).
 */
function rolloutShape(o: EstimateOptions, t: TimeOptions, dp: number) {
  const spg = o.stepsPerGeneration ?? t.gradAccum;
  // Colocated / hf: each process generates its share; server: `trl vllm-serve --data-parallel-size` shards it.
  const chunk =
    o.rollout === 'vllm-server'
      ? Math.ceil((o.batch * dp * spg) / (o.rolloutGpus ?? 1))
      : o.batch * spg;
  // Generation batches per optimizer step (below 1 when one batch feeds several steps).
  // PPO generates the batch in chunks of local_rollout_forward_batch_size (ppo_trainer.py batch_generation).
  // --rollout-chunk: the recipe's own (torchtune forward_batch_size: generate_trajectory_batched).
  const most = o.rolloutChunk ?? PPO_ROLLOUT_CHUNK;
  if (hasCritic(o) && chunk > most)
    return { chunk: most, rounds: (t.gradAccum / spg) * Math.ceil(chunk / most) };
  return { chunk, rounds: t.gradAccum / spg };
}

/** What sets a rollout's decode options beside the policy's (objectiveWork). */
export interface RolloutShape {
  weights: EstimateOptions['weights'];
  framework: EstimateOptions['framework'];
  chunk: number;
  seq: number;
  /** The adapter served unmerged (one LoRA in vLLM's punica kernels). */
  lora: boolean;
  /**
   * The trainer's own generate runs the policy's LoRA unmerged: the ops each adapted linear adds (the policy
   * engine's loraForwardOps, and its dropout where it generates in training mode: trainerGenerateAdapterOps;
   * TimeOptions.unmergedAdapterOps), 0 otherwise.
   */
  peft: number;
  /** Cast ops torch.autocast adds to each decode step of the trainer's generate (autocastDecodeOps), 0 otherwise. */
  autocast: number;
  /** The policy engine's own decode layer where its generate replaces the model's (ownGenerateDecode), else null. */
  own: GenerateDecodeProfile | null;
}

/** A rollout decode of shape `x` on the policy options `p`, with no step timed yet. */
function newRolloutDecode(p: EstimateOptions, x: RolloutShape): RolloutDecode {
  // vLLM runs fused kernels / CUDA graphs (its memory profile); transformers generate is eager.
  const decode: EstimateOptions = {
    ...p,
    method: 'inference',
    optimizer: 'none',
    weights: x.weights,
    // generate() dispatches each step's ops eagerly whatever the policy's engine (Unsloth included: its
    // fused kernels are training kernels; its fast decoding is the vLLM path, fast_inference=True).
    framework: x.framework,
    batch: x.chunk,
    // The KV read grows with the completion: its mean context.
    seq: x.seq,
    tp: 1,
    pp: 1,
    cp: 1,
    gpus: 1,
  };
  // The shared-weights rollout serves the adapter unmerged: vLLM built with enable_lora, one adapter slot of
  // max_lora_rank (unsloth_zoo 7b78d53 vllm_utils.py load_vllm: enable_lora, max_lora_rank, max_loras), so each
  // decode step reads the adapter and runs its shrink and expand kernels (multi-lora.ts loraStepTime).
  return {
    shape: x,
    decode,
    lora: x.lora ? { ...decode, maxLoras: 1 } : null,
    m: null,
    t: null,
    steps: [],
    expertsOf: x.weights === p.weights ? p.framework : null,
  };
}

/** The policy work's rollout decode of shape `x`, made on first use. */
function rolloutDecode(policy: PolicyWork, x: RolloutShape): RolloutDecode {
  for (const d of policy.rollouts) {
    const y = d.shape;
    if (
      y.weights === x.weights &&
      y.framework === x.framework &&
      y.chunk === x.chunk &&
      y.seq === x.seq &&
      y.lora === x.lora &&
      y.peft === x.peft &&
      y.autocast === x.autocast &&
      y.own === x.own
    )
      return d;
  }
  const d = newRolloutDecode(policy.options, x);
  policy.rollouts.push(d);
  return d;
}

/** PPO's value model, which trains fully beside the policy on the same rows (objectives.ts `critic`); null without one. */
function criticWork(
  m: ModelFacts,
  o: EstimateOptions,
  p: EstimateOptions,
  t: TimeOptions,
): ObjectiveWork['critic'] {
  const fixed = o.objective ? OBJECTIVE_PROFILES[o.objective].critic?.epochs : undefined;
  if (fixed === undefined) return null;
  // The recipe's own epoch count (--ppo-epochs: torchtune ppo_epochs, TRL num_ppo_epochs) over the objective's.
  const epochs = o.ppoEpochs ?? fixed;
  const weights = o.method === 'full' ? o.weights : floatCompute(o.compute);
  const value = trainWork(m, { ...p, method: 'full', weights }, t);
  return { value, epochs, phases: new Float64Array(TRAIN_PHASES.length) };
}

/**
 * The objective's GPU-independent work (time options at one power level: only gradAccum, and a measured build's
 * loraForwardOps and vllmSyncOneCall, are read). `policy`:
 * policyWork(m, o, t), or one made for options whose policyOptions are the same at the same gradAccum.
 */
export function objectiveWork(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  params: number,
  policy: PolicyWork = policyWork(m, o, t),
): ObjectiveWork {
  const p = policy.options;
  const dp = Math.max(1, Math.floor(p.gpus / (p.tp * p.pp * p.cp)));
  const grpo = rollsOut(o);
  const completion = o.completionTokens ?? 0;
  const prompt = o.promptTokens ?? 0;
  const shape = grpo ? rolloutShape(o, t, dp) : { chunk: 0, rounds: 0 };
  // A colocated vLLM that shares the trainer's weights (Unsloth fast_inference: load_vllm on the same
  // bitsandbytes checkpoint, engines/unsloth/memory.ts rolloutSharesWeights) decodes them as stored, through
  // vLLM's bitsandbytes path for 4-bit weights; LoRA stays unmerged (vLLM's LoRA kernels), so no weights move.
  const shared =
    o.rollout === 'vllm-colocate' && FRAMEWORKS[p.framework].rolloutSharesWeights === true;
  const adapter = o.method === 'lora' || o.method === 'qlora';
  // transformers' generate keeps a finished row in the batch, its next token the pad token
  // (generation/utils.py _sample: `next_tokens * unfinished_sequences + pad_token_id * (1 - unfinished_sequences)`),
  // so every row's cache grows until the longest completion ends: the mean context over the decode is the prompt and
  // half the longest. vLLM drops a finished request: half the mean completion.
  const decoded = (chunk: number) =>
    generatesInTrainer(o.rollout)
      ? longestCompletion(completion, o.maxCompletionTokens, chunk)
      : completion;
  const own = generatesInTrainer(o.rollout) ? ownGenerateDecode(p, m) : null;
  const rolloutShapeOf = (chunk: number): RolloutShape => ({
    weights: generatesInTrainer(o.rollout) || shared ? o.weights : floatCompute(o.compute),
    framework: ROLLOUT_FRAMEWORKS[o.rollout ?? 'vllm-colocate'],
    chunk,
    seq: prompt + Math.ceil(decoded(chunk) / 2),
    lora: shared && adapter,
    peft:
      generatesInTrainer(o.rollout) && adapter
        ? (own?.adapterOps ?? trainerGenerateAdapterOps(p, t))
        : 0,
    autocast: generatesInTrainer(o.rollout) ? autocastDecodeOps(m, p) : 0,
    own,
  });
  const rollout = grpo ? rolloutDecode(policy, rolloutShapeOf(shape.chunk)) : null;
  // vLLM's scheduler drops a finished request from the running batch, so the longest completion's last steps run
  // alone (batch 1); transformers' generate keeps stepping finished rows as padding to the end.
  const lone =
    rollout && !generatesInTrainer(o.rollout)
      ? loneCompletionSteps(completion, shape.chunk, o.maxCompletionTokens)
      : 0;
  const alone = lone > 0 ? rolloutDecode(policy, rolloutShapeOf(1)) : null;
  // LoRA: TRL merges the adapters and sends the merged weights (grpo_trainer.py _move_model_to_vllm).
  const sync =
    !grpo || generatesInTrainer(o.rollout) || shared ? 0 : o.rollout === 'vllm-colocate' ? 1 : 2;
  const train = policy.train;
  const critic = criticWork(m, o, p, t);
  return {
    policy,
    decode: rollout && rollout.decode,
    rollout,
    rolloutAlone: alone,
    loneSteps: lone,
    rolloutLora: rollout && rollout.lora,
    rounds: shape.rounds,
    prompt,
    completion,
    contextGrowth: grpo ? decoded(shape.chunk) / 2 : 0,
    maxCompletion: o.maxCompletionTokens,
    // The reference forward (no grad) over the same sequences, every micro-batch (dpo_trainer.py
    // _compute_loss; grpo_trainer.py _generate_and_score_completions when beta > 0).
    reference: o.reference === 'model',
    klForward: o.objective !== undefined && OBJECTIVE_PROFILES[o.objective].klForward === true,
    oldLogprobs: grpo && oldLogprobsPass(p, t, o),
    syncBytes: sync === 0 ? 0 : params * weightBytes(floatCompute(o.compute)),
    sync,
    fetch: grpo
      ? trainerFetch(FRAMEWORKS[p.framework], m, t, generatesInTrainer(o.rollout), sync)
      : NO_FETCH,
    sleepCycle:
      grpo && o.rollout === 'vllm-colocate' && o.rolloutSleep === true
        ? sleepCycleSeconds(FRAMEWORKS[p.framework])
        : 0,
    // The objective's own tokens: the padding the policy trains over is not counted.
    tokensPerStep: (train.tokensPerStep * o.batch * o.seq) / (p.batch * p.seq),
    critic,
  };
}

/**
 * The policy engine's own decode layer in the trainer's generate, where the engine replaces the model type's generate
 * (FrameworkProfile.generateDecode: Unsloth's FastLlamaModel for Llama, Mistral and Qwen2): its layer's ops replace
 * transformers' eager layer, its adapter ops PEFT's forward (no dropout, no autocast casts: the factors are cast once
 * and kept) and its dequantize calls bitsandbytes' module path. Null otherwise.
 */
function ownGenerateDecode(p: EstimateOptions, m: ModelFacts): GenerateDecodeProfile | null {
  const g = FRAMEWORKS[p.framework].generateDecode;
  return g !== undefined && g.modelTypes.includes(m.modelType) ? g : null;
}

/**
 * Ops each adapted linear adds beside its base matmul at a decode step of the trainer's own generate: the engine's
 * LoRA forward (a measured build's count, the engine's, or PEFT's lora.Linear.forward), and, where the trainer
 * generates in training mode with LoRA dropout set (FrameworkProfile.generatesInTrainMode; the engine's dropout or
 * the run's, as adapter-path.ts reads it), nn.Dropout's one native_dropout kernel on each adapted linear's input
 * (peft v0.20.0 tuners/lora/bnb.py Linear4bit.forward line 549, layer.py Linear.forward: `lora_B(lora_A(dropout(x)))`),
 * and the host time of the forward's Python beyond those ops in eager ops (FrameworkProfile.loraForwardHost: PEFT's,
 * scripts/peft-decode-host.py; Unsloth's rewrite, scripts/measure/unsloth_lora_forward_host.py).
 */
function trainerGenerateAdapterOps(p: EstimateOptions, t: TimeOptions): number {
  const fw = FRAMEWORKS[p.framework];
  const dropout = fw.generatesInTrainMode === true && loraDropoutOn(p, fw, t.loraDropout);
  // The engine's forward (PEFT's own, or the engine's rewrite of it) with its Python (multi-lora.ts
  // loraForwardOpsOf): a build's own count replaces its kernels, not its Python, and a count of none runs no adapter.
  return loraForwardOpsOf(fw, t) + (dropout ? 1 : 0) + autocastAdapterCastOps(p, t);
}

/**
 * Casts torch.autocast adds to each adapted linear at a decode step of the trainer's generate where the adapters are
 * fp32 under 16-bit AMP (FrameworkProfile.generateAutocast; fp32 adapters as memory counts them,
 * memory/trainable-width.ts builtAdapterBytes: get_peft_model's autocast_adapter_dtype=True default). lora_A and
 * lora_B are nn.Linear, on autocast's lower-precision list, so each call casts its fp32 weight (a leaf that requires
 * grad: cached only within the autocast region, and every decode step is a region of its own, autocastDecodeOps);
 * on a 16-bit model PEFT first casts x to the adapters' fp32 (peft v0.15.2 tuners/lora/layer.py Linear.forward
 * `x = self._cast_input_dtype(x, lora_A.weight.dtype)`, one of train-work.ts LORA_OPS_PER_LINEAR), so lora_A's call casts it back:
 * 3 casts. bitsandbytes' Linear4bit skips PEFT's input cast under autocast (tuners/lora/bnb.py `requires_conversion =
 * not torch.is_autocast_enabled()`): its two weight casts only.
 */
function autocastAdapterCastOps(p: EstimateOptions, t: TimeOptions): number {
  const fw = FRAMEWORKS[p.framework];
  if (fw.generateAutocast !== true || p.compute === 'fp32' || t.noAutocast === true) return 0;
  if (builtAdapterBytes(p, fw, t) !== 4) return 0;
  return isFloatDtype(p.weights) ? 3 : 2;
}

/**
 * Cast ops torch.autocast adds to a decode step of the trainer's generate where the policy keeps fp32 weights under
 * 16-bit AMP on an engine whose generate runs the autocast-wrapped forward (FrameworkProfile.generateAutocast). Each
 * step's forward is an autocast region of its own, and autocast empties its cast cache on leaving the outermost
 * region (torch.autocast.__exit__: `torch.clear_autocast_cache()` once autocast_decrement_nesting() reaches 0), so
 * every step casts every fp32 weight and bias again, and the linears' fp32 inputs (time/autocast.ts
 * autocastCastOps), plus the LM head's weight and its input from the final norm: 2 ops. The casts' bytes (4 B read
 * and 2 B written a weight) are left out: the eager decode this applies to is bound by its dispatch.
 */
function autocastDecodeOps(m: ModelFacts, p: EstimateOptions): number {
  if (FRAMEWORKS[p.framework].generateAutocast !== true) return 0;
  if (p.weights !== 'fp32' || p.compute === 'fp32') return 0;
  return m.layers * autocastCastOps(m.arch, p.attention === 'eager') + 2;
}

/**
 * Whether the engine's GRPO trainer scores each generation batch with the policy before training on it
 * (FrameworkProfile.grpoOldLogprobs): with a vLLM rollout (its importance-sampling correction, on by default), or
 * when gradient_accumulation_steps is not a multiple of steps_per_generation (grpo_trainer.py at TRL v1.9.0,
 * `_generate_and_score_completions`); and under any vLLM rollout where the measured build forced it
 * (TimeOptions.vllmOldLogprobs).
 */
function oldLogprobsPass(p: EstimateOptions, t: TimeOptions, o: EstimateOptions): boolean {
  // A trainer build that runs the pass under any vLLM rollout (TimeOptions.vllmOldLogprobs: Unsloth 2026.3.17).
  if (t.vllmOldLogprobs === true && !generatesInTrainer(o.rollout)) return true;
  if (FRAMEWORKS[p.framework].grpoOldLogprobs !== true) return false;
  const spg = o.stepsPerGeneration ?? t.gradAccum;
  return !generatesInTrainer(o.rollout) || t.gradAccum % spg !== 0;
}

/**
 * Seconds per optimizer step by phase at rates `r` into `out`; returns the step. Colocated sync copies the
 * weights in device memory (read + write); server sync is an NCCL broadcast from rank 0 (vllm_client.py
 * update_named_param) over the node's link. `pagedSpilled`: the policy's paged optimizer states do not all fit
 * on the card, so its step migrates them (paged-migration.ts).
 */
export function objectiveStep(
  m: ModelFacts,
  w: ObjectiveWork,
  t: TimeOptions,
  r: GpuRates,
  out: ObjectivePhases,
  pagedSpilled = false,
): number {
  // The policy's step at these rates, once for every objective work that shares it.
  const ps = policyStepAt(w.policy, r);
  out.policyTraining = ps.step + (pagedSpilled ? pagedMigrationSeconds(w.policy.train, r) : 0);
  // The reference runs through the policy's wrapped modules (LoRA: adapters disabled) or a copy wrapped as the
  // policy is (memory/objective.ts referenceBytes): under ZeRO-3 / FSDP sharding or parameter offload its forward
  // fetches every parameter once more (forwardFetchSeconds).
  out.referenceLogprobs = w.reference ? ps.forwardPass * (w.klForward ? 2 : 1) : 0;
  if (w.critic) {
    // PPO (ppo_trainer.py train): after the rollout, the reference, value and reward forwards over the batch
    // (no grad), then num_ppo_epochs passes of the policy and value models' training over it.
    const value = trainStep(w.critic.value, r, w.critic.phases);
    const valueFwd = w.critic.phases[FORWARD]!;
    out.criticScoring =
      valueFwd + forwardFetchSeconds(w.critic.value, r, valueFwd) + ps.forwardPass;
    out.policyTraining = w.critic.epochs * (out.policyTraining + value);
  }
  // The old log-probs' forward (no grad) over the step's sequences: the trainer's own pass, in policy training.
  if (w.oldLogprobs) out.policyTraining += ps.forwardPass;
  // KTO's KL completions under the policy (no grad), in policy training.
  if (w.klForward) out.policyTraining += ps.forwardPass;
  out.rollout = 0;
  // A sharded or offloaded policy's parameters, fetched for the trainer's generate and the sync (trainer-fetch.ts).
  const fetch = w.fetch === NO_FETCH ? 0 : passFetchSeconds(w.policy.train, r);
  if (w.rollout) {
    // The decode's step at these rates, once for every objective work that shares it.
    const d = rolloutStepAt(w.rollout, m, t, r);
    const prefill = d.prefill * (w.prompt / (w.prompt + w.contextGrowth));
    // A generation batch decodes until its longest completion ends (or the cap): the longest of its chunk.
    const steps = longestCompletion(w.completion, w.maxCompletion, w.rollout.shape.chunk);
    const a = w.rolloutAlone ? rolloutStepAt(w.rolloutAlone, m, t, r) : null;
    const lone = a ? w.loneSteps * (a.step + a.lora) : 0;
    // A sleeping colocated vLLM wakes before each generation batch and sleeps after it: host work in series.
    const wait = generateFetchSeconds(
      w.fetch,
      fetch,
      w.policy.train.layers,
      prefill,
      d.step,
      steps,
    );
    out.rollout =
      w.rounds *
      (prefill + (steps - (a ? w.loneSteps : 0)) * (d.step + d.lora) + lone + w.sleepCycle + wait);
  }
  out.weightSync =
    (w.sync === 0 ? 0 : w.sync === 1 ? (2 * w.syncBytes) / r.mem : w.syncBytes / r.intraPair) +
    syncFetchSeconds(w.fetch, fetch);
  return (
    out.rollout +
    out.referenceLogprobs +
    out.policyTraining +
    out.weightSync +
    (out.criticScoring ?? 0)
  );
}

/** The policy work's step at rates `r` (trainStep, with its phases), made on first use. */
function policyStepAt(pw: PolicyWork, r: GpuRates): PolicyStep {
  const steps = pw.steps;
  for (let i = steps.length - 1; i >= 0; i--) if (steps[i]!.rates === r) return steps[i]!;
  const phases = new Float64Array(TRAIN_PHASES.length);
  const step = trainStep(pw.train, r, phases);
  const fwd = phases[FORWARD]!;
  const s = { rates: r, step, phases, forwardPass: fwd + forwardFetchSeconds(pw.train, r, fwd) };
  steps.push(s);
  return s;
}

/** The rollout decode's prefill, step and adapter seconds at rates `r`, made on first use. */
function rolloutStepAt(ro: RolloutDecode, m: ModelFacts, t: TimeOptions, r: GpuRates): RolloutStep {
  // Kept for the first model facts and time options only (the planner's: one of each per search).
  if (ro.m !== m || ro.t !== t) {
    if (ro.m !== null) return decodeSeconds(ro, m, t, r);
    ro.m = m;
    ro.t = t;
  }
  const steps = ro.steps;
  for (let i = steps.length - 1; i >= 0; i--) if (steps[i]!.rates === r) return steps[i]!;
  const s = decodeSeconds(ro, m, t, r);
  steps.push(s);
  return s;
}

function decodeSeconds(ro: RolloutDecode, m: ModelFacts, t: TimeOptions, r: GpuRates): RolloutStep {
  // The trainer's generate of a LoRA policy runs its adapters unmerged, eagerly (TimeOptions.unmergedAdapter).
  const peft = ro.shape.peft;
  const e = ro.expertsOf;
  const cast = ro.shape.autocast;
  const own = ro.shape.own;
  const tt =
    peft > 0 || e || cast > 0 || own
      ? {
          ...t,
          ...(peft > 0 ? { unmergedAdapterOps: peft } : {}),
          ...(cast > 0 ? { autocastDecodeOps: cast } : {}),
          ...(own ? ownDecodeOptions(own, m) : {}),
        }
      : t;
  if (e) tt.expertsOf = e;
  const d = decodeStep(m, ro.decode, tt, r);
  const lora = ro.lora ? (loraStepTime(m, ro.lora, r)?.seconds ?? 0) : 0;
  return { rates: r, prefill: d.prefillSeconds, step: d.stepSeconds, lora };
}

/** The time options of the engine's own decode layer (ownGenerateDecode): its ops a layer and a 4-bit linear's. */
const ownDecodeOptions = (g: GenerateDecodeProfile, m: ModelFacts): Partial<TimeOptions> => ({
  generateLayer: {
    eagerOps: g.layerOps + m.biasedLinearsPerLayer * g.biasOps,
    compiledCalls: 0,
    cudagraphCalls: 0,
  },
  bnb4DecodeOps: g.bnb4Ops,
});

/** The objective's time result: the SFT step's, with the objective's phases added and the step re-summed. */
export function estimateObjectiveTime(
  model: Arch,
  o: EstimateOptions,
  gpu: Gpu,
  t: TimeOptions,
  params: number,
  pagedSpilled = false,
): TimeResult & { objectivePhases: ObjectivePhases } {
  // A reward model trains under a score head, not the lm_head (ObjectiveProfile.scoreHead; model/score-head.ts).
  const arch = trainedArch(model, o);
  const p = policyTrainOptions(o, t);
  // A trainer that prepares the k-bit model itself runs an fp32 residual stream (trainerTimeOptions).
  const tk = trainerTimeOptions(o, t);
  const train = estimateTime(arch, p, gpu, tk, undefined, pagedSpilled);
  const m = modelFacts(arch);
  const phases: ObjectivePhases = {
    rollout: 0,
    referenceLogprobs: 0,
    policyTraining: 0,
    weightSync: 0,
  };
  // The policy's vision tower (--images) runs beside its training step (time/vision.ts, in train.phases); the
  // reference forward's own tower pass is not added.
  const tower = train.phases.find((x) => x.phase === 'vision-encoder')?.seconds ?? 0;
  const step =
    objectiveStep(m, objectiveWork(m, o, tk, params), tk, gpuRates(gpu, tk), phases, pagedSpilled) +
    tower;
  const scale = train.stepSeconds / step;
  return {
    ...train,
    stepSeconds: round(step),
    // The objective's own tokens, not the padding the policy trains over (policyTrainOptions).
    tokensPerSecondPerGpu: round(
      train.tokensPerSecondPerGpu * scale * (p.gpus / o.gpus) * (o.seq / p.seq),
    ),
    mfu: round(train.mfu * scale * (p.gpus / o.gpus)),
    phases: [
      ...train.phases,
      { phase: 'rollout', seconds: round(phases.rollout) },
      { phase: 'reference-logprobs', seconds: round(phases.referenceLogprobs) },
      { phase: 'policy-training', seconds: round(phases.policyTraining) },
      { phase: 'weight-sync', seconds: round(phases.weightSync) },
      ...(phases.criticScoring === undefined
        ? []
        : [{ phase: 'critic-scoring' as const, seconds: round(phases.criticScoring) }]),
    ],
    objectivePhases: {
      rollout: round(phases.rollout),
      referenceLogprobs: round(phases.referenceLogprobs),
      policyTraining: round(phases.policyTraining),
      weightSync: round(phases.weightSync),
      ...(phases.criticScoring === undefined ? {} : { criticScoring: round(phases.criticScoring) }),
    },
  };
}
