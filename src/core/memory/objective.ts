/**
 * Preference and RL fine-tuning by mechanism (DESIGN.md "Engines, serving and RL"): what DPO, ORPO, KTO,
 * SimPO and GRPO hold on a training GPU beyond the policy's own training step. The policy step is the SFT
 * estimate of the sequences it trains on (memory.ts); this module adds the reference model and its logits,
 * the rollout engine (vLLM weights and KV pool, or transformers generate's KV cache) and the phases they
 * live in. Sources: TRL v1.9.0 (trl/trainer/dpo_trainer.py, kto_trainer.py, grpo_trainer.py, grpo_config.py)
 * and Unsloth 015bdef (unsloth/models/llama.py).
 */
import { OBJECTIVE_PROFILES } from '../../schema/objectives.js';
import { generatesInTrainer, hasCritic, rollsOut } from '../../schema/objectives.js';
import type { Arch } from '../model/arch.js';
import { trainedArch } from '../model/score-head.js';
import { trainingGpus, type EstimateOptions } from '../../schema/estimate.js';
import type { EstimateContext, MemoryEstimate, StageSummary } from './types.js';
import type { FrameworkProfile } from './framework-profile.js';
import { FRAMEWORKS } from './frameworks.js';
import { FLOAT_BYTES } from '../model/dtypes.js';
import { ZERO_PARTS } from './parts.js';
import { floatCompute } from '../../schema/estimate.js';

export type PolicyMemory = (arch: Arch, o: EstimateOptions, ctx: EstimateContext) => MemoryEstimate;

/** What the objective adds per GPU (bytes), by breakdown key, and the rollout phase's own peak. */
export interface ObjectiveExtras {
  referenceModel: number;
  /** Reference logits alive with the policy's graph (DPO/KTO: the reference forward follows the policy's). */
  referenceLogits: number;
  rolloutWeights: number;
  rolloutKvCache: number;
  /** Logits GRPO never computes: logits_to_keep keeps the completion's (subtracted from the policy's). */
  promptLogits: number;
  /** hf rollout: what transformers generate allocates on top of the policy's holdings (KV cache + prefill). */
  rolloutPhase: number;
  /** Sequences one process generates at once (GRPO). */
  generationBatch: number;
  /**
   * vllm-colocate: the least vLLM's share holds (the generation batch's KV cache plus the weights it counts);
   * on a GPU of capacity C the share adds max(0, rolloutMemory x C - rolloutFloor) bytes beyond the estimate
   * without a GPU (the planner's surface: memory/surface.ts).
   */
  rolloutFloor: number;
  /** vllm-colocate: weights vLLM shares with the trainer (Unsloth's fast_inference) yet counts in its share. */
  rolloutSharedWeights: number;
  /**
   * vllm-colocate: what vLLM's share (rolloutMemory x the GPU) must hold for it to start: the weights it loads
   * or shares and one request of the prompt and completion in its KV pool; 0 for other rollouts.
   */
  rolloutStart: number;
  /** PPO: the value model's weights, master copy and optimizer states (every phase) and its step-only bytes. */
  valueModel: number;
  valueStep: number;
  /** PPO: the frozen reward model. */
  rewardModel: number;
}

/** Sequences a step trains per micro-batch: a pair trains chosen and rejected together (schema/objectives.ts). */
const trainedRows = (o: EstimateOptions): number =>
  o.objective && OBJECTIVE_PROFILES[o.objective].example === 'pair' ? 2 * o.batch : o.batch;

/** GPUs beside the trainers: a GRPO vLLM server's (0 otherwise). */
export const serverGpus = (o: EstimateOptions): number =>
  o.rollout === 'vllm-server' ? (o.rolloutGpus ?? 1) : 0;

/** The objective's option keys (policyOptions drops them; samePolicyOptions does not compare them). */
export const RL_KEYS: ReadonlySet<string> = new Set([
  'objective',
  'reference',
  'generations',
  'promptTokens',
  'completionTokens',
  'maxCompletionTokens',
  'rollout',
  'rolloutMemory',
  'rolloutSleep',
  'rolloutGpus',
  'stepsPerGeneration',
  'ppoEpochs',
  'rolloutChunk',
]);

/** The SFT step the objective trains: paired batches doubled, GRPO on prompt + completion, trainer GPUs only. */
export function policyOptions(o: EstimateOptions): EstimateOptions {
  // Copied key by key, in order, without the objective's keys (neither `delete`, which makes a slow
  // dictionary object, nor a rest pattern, slower still: the planner makes tens of thousands).
  const p: Record<string, unknown> = {};
  for (const k in o) if (!RL_KEYS.has(k)) p[k] = o[k as keyof EstimateOptions];
  return trainerShape(p as unknown as EstimateOptions, o);
}

/** Two option values alike: the same primitive, or arrays of the same elements (LoRA targets). */
const sameValue = (a: unknown, b: unknown): boolean =>
  a === b ||
  (Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => x === b[i]));

/**
 * Whether policyOptions(a) and policyOptions(b) are equal but for `gpus` (trainingGpus of each, which the caller
 * compares): the same objective and batch, and the same keys with like values outside the objective's keys.
 * `anyBatch`: the micro-batch may differ too.
 */
export function samePolicyOptions(
  a: EstimateOptions,
  b: EstimateOptions,
  anyBatch = false,
): boolean {
  if (a.objective !== b.objective || (!anyBatch && a.batch !== b.batch)) return false;
  const ra = a as unknown as Record<string, unknown>;
  const rb = b as unknown as Record<string, unknown>;
  let keys = 0;
  for (const k in ra) {
    if (RL_KEYS.has(k) || k === 'gpus') continue;
    if (!(k in rb) || (!(anyBatch && k === 'batch') && !sameValue(ra[k], rb[k]))) return false;
    keys++;
  }
  for (const k in rb) if (!RL_KEYS.has(k) && k !== 'gpus') keys--;
  return keys === 0;
}

/** `p` (policyOptions' copy) with the batch and GPUs the policy trains on. */
function trainerShape(p: EstimateOptions, o: EstimateOptions): EstimateOptions {
  // A pair trains chosen and rejected together: the batch doubles (schema/objectives.ts `example`).
  p.batch =
    o.objective && OBJECTIVE_PROFILES[o.objective].example === 'pair' ? 2 * o.batch : o.batch;
  // A trainer that takes its loss from the whole logits (ObjectiveProfile.readsLogits) runs no chunked loss.
  if (readsLogits(o)) p.chunkedLoss = false;
  p.gpus = trainingGpus(o);
  return p;
}

/**
 * policyOptions(o) written into `p`, a copy of policyOptions of options that differ from `o` at most in
 * micro-batch and GPU count (a memory surface's points: memory/surface.ts), with no copy of the rest.
 */
export function policyOptionsInto(p: EstimateOptions, o: EstimateOptions): EstimateOptions {
  return trainerShape(p, o);
}

/**
 * Micro-batches one GRPO generation batch feeds: TRL's steps_per_generation, which defaults to the gradient
 * accumulation (grpo_config.py __post_init__); each process generates batch x this many completions at once
 * (grpo_trainer.py _prepare_inputs: one generation every steps_per_generation micro-steps).
 */
export const stepsPerGeneration = (o: EstimateOptions): number => o.stepsPerGeneration ?? 1;

/** The policy's context: PPO's completion share of each sequence, whose log-probs its loss takes. */
const policyContext = (o: EstimateOptions, ctx: EstimateContext): EstimateContext =>
  hasCritic(o) ? { ...ctx, logprobShare: (o.completionTokens ?? o.seq) / o.seq } : ctx;

/** The reference copy a full fine-tune loads (TRL create_model_from_path in the model dtype; ZeRO-3/FSDP shard it). */
function referenceBytes(o: EstimateOptions, params: number, dp: number): number {
  if (o.reference !== 'model' || o.method !== 'full') return 0;
  // dpo_trainer.py / grpo_trainer.py: prepare_deepspeed / prepare_fsdp wrap the reference as the policy is.
  const shard = o.zero >= 3 ? dp : 1;
  return (params * FLOAT_BYTES[floatCompute(o.compute)]) / shard / o.tp;
}

/**
 * PPO's critic per training GPU (TRL v1.9.0 experimental/ppo/ppo_trainer.py): the value model trains fully beside
 * the policy (PolicyAndValueWrapper: one optimizer over both; PEFT adapts the policy only) and the reward model
 * scores frozen, loaded and sharded as the reference is. Both take the policy's architecture (objectives.ts
 * `critic`); the value head returns one number per token, so the critic keeps no vocabulary logits.
 */
function criticBytes(
  arch: Arch,
  o: EstimateOptions,
  ctx: EstimateContext,
  po: EstimateOptions,
  policy: PolicyMemory,
  params: number,
  dp: number,
): Readonly<{ value: number; step: number; reward: number }> {
  if (!hasCritic(o)) return NO_CRITIC;
  const weights = o.method === 'full' ? o.weights : floatCompute(o.compute);
  const v = policy(
    arch,
    { ...po, method: 'full', weights, modulesToSave: undefined },
    { ...ctx, lean: true },
  );
  const b = v.perGpu.breakdown;
  const shard = o.zero >= 3 ? dp : 1;
  return {
    value: b.weights + b.masterWeights + b.optimizer,
    step: b.gradients + b.activations,
    reward: (params * FLOAT_BYTES[floatCompute(o.compute)]) / shard / o.tp,
  };
}

/** criticBytes without a critic (one object, read only: every preference / RL point but PPO's asks for it). */
const NO_CRITIC: Readonly<{ value: number; step: number; reward: number }> = {
  value: 0,
  step: 0,
  reward: 0,
};

/** rolloutBytes without a rollout on the training GPUs (one object, read only). */
const NO_ROLLOUT: Readonly<ReturnType<typeof rolloutBytes>> = {
  weights: 0,
  kv: 0,
  generate: 0,
  floor: 0,
  shared: 0,
  start: 0,
};

/** Rollout engine weights and KV pool per training GPU. */
function rolloutBytes(
  arch: Arch,
  o: EstimateOptions,
  ctx: EstimateContext,
  po: EstimateOptions,
  fw: FrameworkProfile,
  policy: PolicyMemory,
  seqs: number,
  gen?: EstimateOptions,
): Readonly<{
  weights: number;
  kv: number;
  generate: number;
  floor: number;
  shared: number;
  start: number;
}> {
  if (!rollsOut(o) || o.rollout === 'vllm-server') return NO_ROLLOUT;
  // vLLM loads the checkpoint in the model dtype (grpo_trainer.py LLM(model=model.name_or_path)); Unsloth's
  // shares the trained (possibly 4-bit) weights; transformers generate runs the policy itself.
  const vllmOwn = o.rollout === 'vllm-colocate' && !fw.rolloutSharesWeights;
  // The planner's memo (memory.ts policyMemo) tells these options from the policy's by the seven fields set
  // here: a field set beyond them must join its key. `gen`: options alike `po` but for these seven, to write
  // them into (the planner's scratch: memory/surface.ts), else a new copy.
  const weights = vllmOwn ? floatCompute(o.compute) : o.weights;
  // vLLM's own copy is whole on each of its tensor-parallel GPUs (LLM(model=..., tensor_parallel_size=...)),
  // whatever the trainer shards or offloads (ZeRO-3 / FSDP parameters are gathered to sync it: TRL v1.9.0
  // vllm_generation.py sync_weights); the trainer's own generate runs under its sharding.
  const zero = vllmOwn ? 0 : po.zero;
  const offload = vllmOwn ? 'none' : po.offload;
  let g: EstimateOptions;
  if (gen) {
    g = gen;
    g.method = 'inference';
    g.optimizer = 'none';
    g.weights = weights;
    g.batch = seqs;
    g.gpus = o.tp;
    g.zero = zero;
    g.offload = offload;
  } else
    g = {
      ...po,
      method: 'inference',
      optimizer: 'none',
      weights,
      batch: seqs,
      gpus: o.tp,
      zero,
      offload,
    };
  const est = policy(arch, g, { lean: true });
  const st = est.stages[0]!;
  const kv = st.kv;
  if (generatesInTrainer(o.rollout))
    return {
      weights: 0,
      kv,
      generate: est.perGpu.allocatedBytes - st.weights,
      floor: 0,
      shared: 0,
      start: 0,
    };
  // vLLM colocated (grpo_trainer.py: LLM(..., gpu_memory_utilization=vllm_gpu_memory_utilization), sleep
  // mode off by default): its weights and a KV pool filling its share of the card (vLLM sizes the pool as
  // the share less its weights; with shared weights the one copy counts against the share).
  const share = o.rolloutMemory ?? fw.rolloutMemory ?? 0.3;
  const cap = ctx.gpuCapacityBytes;
  // Without a GPU the pool is the least vLLM runs the generation batch with.
  const pool = cap === undefined ? kv : Math.max(kv, share * cap - st.weights);
  return {
    weights: vllmOwn ? st.weights : 0,
    kv: pool,
    generate: 0,
    floor: kv + st.weights,
    shared: vllmOwn ? 0 : st.weights,
    // vLLM sizes its KV pool as the share less what it loaded (shared weights count: Unsloth's vLLM loads them)
    // and refuses to start on a pool short of one max_model_len request (check_enough_kv_cache_memory,
    // vllm/v1/core/kv_cache_utils.py; as engines/vllm/memory.ts poolHoldsMaxLen); Unsloth finds no KV room
    // (unsloth_zoo vllm_utils.py approximate_vllm_memory_usage floors memory_left_for_kv_cache at 0).
    start: st.weights + (seqs > 0 ? kv / seqs : 0),
  };
}

/** Everything the objective adds on a training GPU. */
export function objectiveExtras(
  arch: Arch,
  o: EstimateOptions,
  ctx: EstimateContext,
  fw: FrameworkProfile,
  policy: PolicyMemory,
  m: MemoryEstimate,
  po: EstimateOptions = policyOptions(o),
  gen?: EstimateOptions,
): ObjectiveExtras {
  const dp = m.parallel.dp;
  const c = FLOAT_BYTES[floatCompute(o.compute)];
  const vocab = arch.kind === 'causal-lm' ? arch.vocab : 0;
  const refForward = o.reference === 'model';
  // The reference forward (no grad) runs after the policy's, while its graph is alive; its 16-bit logits
  // (rows x seq x vocab) are alive until selective_log_softmax reduces them (dpo_trainer.py _compute_loss).
  const rows = trainedRows(o);
  const grpo = rollsOut(o);
  const referenceLogits = refForward && !grpo ? (rows * o.seq * vocab * c) / o.cp : 0;
  // GRPO: model(..., logits_to_keep=completion + 1) (grpo_trainer.py _get_per_token_logps_and_entropies).
  const keep = o.objective ? OBJECTIVE_PROFILES[o.objective].sampling?.completionLogitsOnly : false;
  const completionShare = keep ? (o.completionTokens ?? o.seq) / o.seq : 1;
  const promptLogits = m.perGpu.breakdown.logits * (1 - completionShare);
  const seqs = grpo ? o.batch * stepsPerGeneration(o) : 0;
  const r = rolloutBytes(arch, o, ctx, po, fw, policy, seqs, gen);
  const critic = criticBytes(arch, o, ctx, po, policy, m.params.total, dp);
  // PPO's generate keeps every generated token's logits for the whole local batch, in fp32 (ppo_trainer.py
  // generate: output_scores=True, torch.stack(output.scores); transformers generate casts each step's logits to
  // float32), until the rollout's log-probs are taken.
  const scores = hasCritic(o) ? seqs * (o.completionTokens ?? 0) * vocab * 4 : 0;
  return {
    referenceModel: referenceBytes(o, m.params.total, dp),
    referenceLogits,
    rolloutWeights: r.weights,
    rolloutKvCache: r.kv,
    promptLogits,
    rolloutPhase: generatesInTrainer(o.rollout) ? r.generate + scores : 0,
    generationBatch: seqs,
    rolloutFloor: r.floor,
    rolloutSharedWeights: r.shared,
    rolloutStart: r.start,
    valueModel: critic.value,
    valueStep: critic.step,
    rewardModel: critic.reward,
  };
}

/** withObjective's figures from the policy's estimate and the extras (objectiveFigures reads them too). */
interface ObjectiveTotals {
  pool: number;
  sleeps: boolean;
  held: number;
  stepAdded: number;
  rolloutAllocated: number;
  allocated: number;
  slacked: number;
  rolloutPeak: boolean;
  device: number;
  floor: number;
}

function objectiveTotals(
  o: EstimateOptions,
  fw: FrameworkProfile,
  m: MemoryEstimate,
  x: ObjectiveExtras,
): ObjectiveTotals {
  const b = m.perGpu.breakdown;
  // vLLM's share is one allocation sized by gpu_memory_utilization: no allocator slack on it.
  const pool = o.rollout === 'vllm-colocate' ? x.rolloutWeights + x.rolloutKvCache : 0;
  // Sleep mode: vLLM frees its share after generating (TRL v1.9.0 vllm_generation.py llm.sleep(level=2):
  // weights and KV cache; Unsloth standby, unsloth_zoo ce232d6 vllm_utils.py sleep(): the KV cache, the
  // weights being the trainer's) and takes it back for the next rollout (wake_up).
  const sleeps = o.rolloutSleep === true && pool > 0;
  const held = x.referenceModel + x.valueModel + x.rewardModel + (sleeps ? 0 : pool);
  const stepAdded = held + x.valueStep + x.referenceLogits - x.promptLogits;
  // The rollout phase (no_grad; HF Trainer's zero_grad(set_to_none) freed the gradients): the holdings and
  // the reference copy beside transformers generate's KV cache and prefill (hf), or beside vLLM's share
  // (colocated; asleep, woken up after TRL and Unsloth empty torch's cache before wake_up).
  const statics = b.weights + b.quantConstants + b.adapters + b.masterWeights + b.optimizer;
  const phase = o.rollout === 'vllm-colocate' ? pool : x.rolloutPhase;
  const frozen = x.referenceModel + x.valueModel + x.rewardModel;
  const rolloutAllocated = phase > 0 ? statics + frozen + phase : 0;
  const stepAllocated = m.perGpu.allocatedBytes + stepAdded;
  const slack = (a: number, p: number) =>
    (a - m.perGpu.allocatedBytes - p) * (1 + fw.allocatorSlack) + p;
  // Bytes beyond the policy's device figure at each phase. Waking vLLM follows torch.cuda.empty_cache()
  // (TRL vllm_generation.py sync_weights; unsloth_zoo wake_up -> delete_memory), which hands back the
  // step's largest one-off block (memory.ts: reserved = allocated x (1 + slack) + transient).
  const released = sleeps
    ? Math.max(0, m.perGpu.reservedBytes - m.perGpu.allocatedBytes * (1 + fw.allocatorSlack))
    : 0;
  const stepSlacked = slack(stepAllocated, sleeps ? 0 : pool);
  const rollSlacked = slack(rolloutAllocated, pool) - released;
  const rolloutPeak = rolloutAllocated > 0 && rollSlacked > stepSlacked;
  const slacked = rolloutPeak ? rollSlacked : stepSlacked;
  // The planner adds max(0, share x C - floor) to the device bytes on a GPU of C bytes (surface.ts
  // onCapacity); asleep, the share fills the rollout phase only, so the floor rises to where the rollout
  // tops the step: the step's bytes less the rollout's without the share, plus the weights the share counts
  // but the rollout phase already holds (context and the policy's figure cancel).
  const floor = sleeps
    ? Math.max(x.rolloutFloor, stepSlacked - rollSlacked + pool + x.rolloutSharedWeights)
    : x.rolloutFloor;
  return {
    pool,
    sleeps,
    held,
    stepAdded,
    rolloutAllocated,
    allocated: Math.max(stepAllocated, rolloutAllocated),
    slacked,
    rolloutPeak,
    device: Math.round(m.perGpu.deviceBytes + slacked),
    floor,
  };
}

/** The extras folded into one estimate: every phase and stage holds the reference and vLLM's share. */
export function withObjective(
  model: Arch,
  o: EstimateOptions,
  ctx: EstimateContext,
  fw: FrameworkProfile,
  policy: PolicyMemory,
): MemoryEstimate & { objective: ObjectiveExtras } {
  // A reward model trains under a score head, not the lm_head (ObjectiveProfile.scoreHead).
  const arch = trainedArch(model, o);
  const po = policyOptions(o);
  const m = policy(arch, po, policyContext(o, ctx));
  const x = objectiveExtras(arch, o, ctx, fw, policy, m, po);
  const t = objectiveTotals(o, fw, m, x);
  const { rolloutPeak } = t;
  // A share short of vLLM's start: the GPU memory it would start on, its KV pool counted (allocated too).
  const device = Math.max(t.device, colocateStartShort(o, ctx, fw, x));
  const b = m.perGpu.breakdown;
  const vllmHeld = !t.sleeps || rolloutPeak;
  const named = {
    referenceModel: x.referenceModel,
    rolloutWeights: vllmHeld ? x.rolloutWeights : 0,
    rolloutKvCache:
      (generatesInTrainer(o.rollout) && !rolloutPeak) || !vllmHeld
        ? 0
        : x.rolloutKvCache + device - t.device,
    ...criticParts(x, !rolloutPeak),
  };
  const breakdown = rolloutPeak
    ? {
        ...b,
        gradients: 0,
        activations: generatesInTrainer(o.rollout) ? x.rolloutPhase - x.rolloutKvCache : 0,
        logits: 0,
        kvCache: 0,
        buffers: 0,
        ...named,
      }
    : { ...b, logits: b.logits + x.referenceLogits - x.promptLogits, ...named };
  return {
    ...m,
    perGpu: {
      // The pool vLLM would allocate on the card it starts on, as the breakdown counts it.
      allocatedBytes: Math.round(t.allocated + device - t.device),
      reservedBytes: Math.round(m.perGpu.reservedBytes + t.slacked + device - t.device),
      deviceBytes: device,
      // Lean (the planner's surface, max-context): unrounded, as memory.ts leaves a lean breakdown.
      breakdown: ctx.lean ? breakdown : roundTo(breakdown, device),
    },
    peakPhase: rolloutPeak ? 'rollout' : m.peakPhase,
    phases: ctx.lean ? [] : objectivePhases(m, x, t.held, t.rolloutAllocated, t.sleeps),
    stages: m.stages.map((st) => shiftStage(st, t.stepAdded, t.rolloutAllocated)),
    objective: { ...x, rolloutFloor: t.floor },
  };
}

/**
 * What the planner's surface reads of withObjective's estimate (memory/surface.ts): its device bytes and
 * rollout floor, by the same arithmetic, and the policy's estimate (whose host bytes, worst stage, weights
 * and KV withObjective keeps), without building the estimate. `gen` (optional): options alike `po` but for
 * the fields rolloutBytes writes into them (the generation's method, optimizer, weights, batch and GPUs).
 */
export function objectiveFigures(
  model: Arch,
  o: EstimateOptions,
  ctx: EstimateContext,
  fw: FrameworkProfile,
  policy: PolicyMemory,
  po: EstimateOptions = policyOptions(o),
  gen?: EstimateOptions,
): { policy: MemoryEstimate; deviceBytes: number; rolloutFloor: number; rolloutStart: number } {
  const arch = trainedArch(model, o); // withObjective's
  const m = policy(arch, po, policyContext(o, ctx));
  const x = objectiveExtras(arch, o, ctx, fw, policy, m, po, gen);
  const t = objectiveTotals(o, fw, m, x);
  const deviceBytes = Math.max(t.device, colocateStartShort(o, ctx, fw, x));
  return { policy: m, deviceBytes, rolloutFloor: t.floor, rolloutStart: x.rolloutStart };
}

/**
 * The GPU memory a colocated vLLM would start on where its share of a GPU of ctx.gpuCapacityBytes is short of
 * what it must hold to start (ObjectiveExtras.rolloutStart): that over the share; 0 where it starts or
 * without a GPU (the planner checks each GPU option: plan/loop.ts startShort).
 */
function colocateStartShort(
  o: EstimateOptions,
  ctx: EstimateContext,
  fw: FrameworkProfile,
  x: ObjectiveExtras,
): number {
  const cap = ctx.gpuCapacityBytes;
  if (cap === undefined || o.rollout !== 'vllm-colocate') return 0;
  const share = o.rolloutMemory ?? fw.rolloutMemory ?? 0.3;
  return share * cap >= x.rolloutStart ? 0 : x.rolloutStart / share;
}

/** PPO's breakdown keys (absent for the other objectives): the value model (with its step bytes) and the reward model. */
const criticParts = (
  x: ObjectiveExtras,
  step: boolean,
): { valueModel?: number; rewardModel?: number } =>
  x.valueModel > 0
    ? { valueModel: x.valueModel + (step ? x.valueStep : 0), rewardModel: x.rewardModel }
    : {};

/** A stage summary with the objective's always-held bytes in every phase (the planner's surface fits them). */
function shiftStage(st: StageSummary, add: number, rollout: number): StageSummary {
  const phaseAllocated = st.phaseAllocated.map((a) => a + add);
  if (rollout > 0) phaseAllocated.push(rollout);
  return { ...st, phaseAllocated };
}

/** Phases of one preference / RL step with what each holds (DESIGN.md: rollout, reference, training). */
function objectivePhases(
  m: MemoryEstimate,
  x: ObjectiveExtras,
  held: number,
  rolloutAllocated: number,
  sleeps: boolean,
): MemoryEstimate['phases'] {
  const critic = x.valueModel + x.rewardModel;
  const named = {
    referenceModel: Math.round(x.referenceModel),
    rolloutWeights: sleeps ? 0 : Math.round(x.rolloutWeights),
    rolloutKvCache: sleeps ? 0 : Math.round(held - critic - x.referenceModel - x.rolloutWeights),
    ...roundParts(criticParts(x, false)),
  };
  // PPO's value model trains in the same forward and backward as the policy: its gradients and activations
  // join every step phase.
  const step = { ...named, ...roundParts(criticParts(x, true)) };
  const phases: MemoryEstimate['phases'] = m.phases.map((p) => ({
    ...p,
    allocatedBytes: Math.round(p.allocatedBytes + held + x.valueStep),
    parts: { ...p.parts, ...step },
  }));
  if (rolloutAllocated > 0)
    phases.unshift({
      phase: 'rollout',
      allocatedBytes: Math.round(rolloutAllocated),
      parts: {
        ...ZERO_PARTS,
        ...named,
        rolloutWeights: Math.round(x.rolloutWeights),
        rolloutKvCache: Math.round(x.rolloutKvCache),
      },
    });
  return phases;
}

const roundParts = (p: { valueModel?: number; rewardModel?: number }) =>
  Object.fromEntries(Object.entries(p).map(([k, v]) => [k, Math.round(v)]));

/** Integer bytes per key summing to `total` (the remainder to overhead), as memory.ts rounds. */
function roundTo<T extends Record<string, number>>(b: T, total: number): T {
  const out = {} as Record<string, number>;
  let sum = 0;
  for (const [k, v] of Object.entries(b)) {
    if (k === 'overhead') continue;
    out[k] = Math.round(v);
    sum += out[k];
  }
  out.overhead = total - sum;
  return out as T;
}

/**
 * The objective's trainer prepares a k-bit model itself (FrameworkProfile.kbitPreparingObjectives): fp32 norms, so
 * an fp32 residual stream, and fp32 experts and adapters (EstimateContext.kbitFp32Stream), unless the loader already
 * prepared and wrapped the model (EstimateContext.kbitNormsCastBack).
 */
export function preparedContext(o: EstimateOptions, ctx: EstimateContext): EstimateContext {
  const prepares =
    o.objective && FRAMEWORKS[o.framework].kbitPreparingObjectives?.includes(o.objective);
  const out = prepares && !ctx.kbitNormsCastBack ? { ...ctx, kbitFp32Stream: true } : ctx;
  // Liger's fused loss does not run under a trainer that reads the whole logits (EstimateContext.trainerReadsLogits).
  return readsLogits(o) ? { ...out, trainerReadsLogits: true } : out;
}

/** The objective's trainer takes its loss from the model's whole logits (ObjectiveProfile.readsLogits). */
export const readsLogits = (o: EstimateOptions): boolean =>
  o.objective !== undefined && OBJECTIVE_PROFILES[o.objective].readsLogits === true;
