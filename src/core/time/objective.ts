/**
 * Step time of a preference / RL step by phase (DESIGN.md "Engines, serving and RL"): rollout (GRPO: the
 * generation batch decoded by the rollout engine), reference log-probs (a forward pass of the reference),
 * policy training (the SFT step over the sequences it trains on) and weight sync (GRPO: the policy's weights
 * to vLLM). Reuses the planner's trainWork/trainStep and decodeStep. Sources: TRL v1.9.0 grpo_trainer.py,
 * dpo_trainer.py.
 */
import type { Arch } from '../model/arch.js';
import type { Gpu } from '../../schema/gpu.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import type { TimeOptions } from '../../schema/time.js';
import {
  decodeStep,
  estimateTime,
  gpuRates,
  modelFacts,
  weightBytes,
  type TimeResult,
} from './index.js';
import { policyOptions, stepsPerGeneration } from '../memory/objective.js';

const round = (x: number) => Number(x.toPrecision(4));

/** The objective's phases in seconds per optimizer step. */
export interface ObjectivePhases {
  rollout: number;
  referenceLogprobs: number;
  policyTraining: number;
  weightSync: number;
}

/** Seconds to generate one optimizer step's completions on each trainer process (or the server). */
function rolloutSeconds(
  arch: Arch,
  o: EstimateOptions,
  gpu: Gpu,
  t: TimeOptions,
  dp: number,
): number {
  if (o.objective !== 'grpo') return 0;
  const m = modelFacts(arch);
  const server = o.rollout === 'vllm-server';
  const servers = server ? (o.rolloutGpus ?? 1) : 0;
  // Completions per optimizer step: per_device_train_batch_size x processes x grad-accum (grpo_config.py).
  const total = o.batch * dp * t.gradAccum;
  // Colocated / hf: each process generates its share; server: `trl vllm-serve --data-parallel-size` shards it.
  const perEngine = server ? Math.ceil(total / servers) : o.batch * t.gradAccum;
  const chunk = server ? perEngine : Math.min(perEngine, o.batch * stepsPerGeneration(o, dp));
  const rounds = Math.ceil(perEngine / chunk);
  const completion = o.completionTokens ?? 0;
  const prompt = o.promptTokens ?? 0;
  // vLLM runs fused kernels / CUDA graphs (its memory profile); transformers generate is eager.
  const framework = o.rollout === 'hf' ? o.framework : 'vllm';
  const d = decodeStep(
    m,
    {
      ...policyOptions(o),
      method: 'inference',
      optimizer: 'none',
      weights: o.rollout === 'hf' ? o.weights : o.compute,
      framework,
      batch: chunk,
      // The KV read grows with the completion: its mean context.
      seq: prompt + Math.ceil(completion / 2),
      tp: 1,
      pp: 1,
      cp: 1,
      gpus: 1,
    },
    t,
    gpuRates(gpu, t),
  );
  return (
    rounds * (d.prefillSeconds * (prompt / (prompt + completion / 2)) + completion * d.stepSeconds)
  );
}

/** The policy's weights to the rollout engine after each step (GRPO with vLLM). */
function syncSeconds(
  arch: Arch,
  o: EstimateOptions,
  gpu: Gpu,
  t: TimeOptions,
  params: number,
): number {
  if (o.objective !== 'grpo' || o.rollout === 'hf') return 0;
  const r = gpuRates(gpu, t);
  // LoRA: TRL merges the adapters and sends the merged weights (grpo_trainer.py _move_model_to_vllm).
  const bytes = params * weightBytes(o.compute);
  // Colocated: load_weights copies in device memory (read + write); server: an NCCL broadcast from rank 0
  // (vllm_client.py update_named_param) over the node's link.
  return o.rollout === 'vllm-colocate' ? (2 * bytes) / r.mem : bytes / r.intraPair;
}

/** The objective's time result: the SFT step's, with the objective's phases added and the step re-summed. */
export function estimateObjectiveTime(
  arch: Arch,
  o: EstimateOptions,
  gpu: Gpu,
  t: TimeOptions,
  params: number,
): TimeResult & { objectivePhases: ObjectivePhases } {
  const p = policyOptions(o);
  const train = estimateTime(arch, p, gpu, t);
  const dp = Math.max(1, Math.floor(p.gpus / (p.tp * p.pp * p.cp)));
  const forward = train.phases.find((x) => x.phase === 'forward')?.seconds ?? 0;
  // The reference forward (no grad) over the same sequences, every micro-batch (dpo_trainer.py _compute_loss;
  // grpo_trainer.py _generate_and_score_completions when beta > 0).
  const referenceLogprobs = o.reference === 'model' ? forward : 0;
  const phases: ObjectivePhases = {
    rollout: rolloutSeconds(arch, o, gpu, t, dp),
    referenceLogprobs,
    policyTraining: train.stepSeconds,
    weightSync: syncSeconds(arch, o, gpu, t, params),
  };
  const step =
    phases.rollout + phases.referenceLogprobs + phases.policyTraining + phases.weightSync;
  const scale = train.stepSeconds / step;
  return {
    ...train,
    stepSeconds: round(step),
    tokensPerSecondPerGpu: round(train.tokensPerSecondPerGpu * scale * (p.gpus / o.gpus)),
    mfu: round(train.mfu * scale * (p.gpus / o.gpus)),
    phases: [
      ...train.phases,
      { phase: 'rollout', seconds: round(phases.rollout) },
      { phase: 'reference-logprobs', seconds: round(phases.referenceLogprobs) },
      { phase: 'policy-training', seconds: round(phases.policyTraining) },
      { phase: 'weight-sync', seconds: round(phases.weightSync) },
    ],
    objectivePhases: {
      rollout: round(phases.rollout),
      referenceLogprobs: round(phases.referenceLogprobs),
      policyTraining: round(phases.policyTraining),
      weightSync: round(phases.weightSync),
    },
  };
}
