/**
 * What a GRPO step's rollout and weight sync wait on besides their own work, on TRL's trainers: the parameters of a
 * policy sharded over its ranks (ZeRO-3, FSDP FULL_SHARD) or offloaded to the host, which the trainer's own generate
 * and the sync to vLLM must bring back to the GPU (FrameworkProfile.shardedGenerate), and the server-mode sync's
 * requests, one per named parameter tensor (FrameworkProfile.vllmSyncTensorSeconds). Sources: huggingface/trl
 * v1.9.0 trl/models/utils.py, trl/trainer/grpo_trainer.py, trl/generation/vllm_generation.py.
 */
import type { Arch } from '../model/arch.js';
import type { FrameworkProfile } from '../memory/framework-profile.js';
import type { TimeOptions } from '../../schema/time.js';
import type { GpuRates } from './hardware.js';
import type { ModelFacts } from './model-facts.js';
import { passFetchParts } from './train-step.js';
import type { TrainWork } from './train-work.js';

/** What an objective's step fetches beside its rollout and sync work (objective.ts ObjectiveWork.fetch). */
export interface TrainerFetch {
  /** How the trainer's own generate reaches the sharded or offloaded policy (FrameworkProfile.shardedGenerate). */
  generate: FrameworkProfile['shardedGenerate'] | null;
  /** The weight sync to vLLM gathers the whole sharded or offloaded policy once. */
  syncGathers: boolean;
  /** Host seconds of the server-mode sync's requests (one per named parameter tensor), per sync. */
  syncRequests: number;
  /**
   * 'per-forward': the share of the parameters in the root unit, which TRL summons once around the generate call
   * (embeddings and an untied head where the engine's FSDP keeps them there: FrameworkProfile.fsdpRootUnit); 0 otherwise.
   */
  rootShare: number;
}

export const NO_FETCH: TrainerFetch = {
  generate: null,
  syncGathers: false,
  syncRequests: 0,
  rootShare: 0,
};

/**
 * The fetches of a GRPO step on engine profile `fw`: `generates`, the trainer's own generate decodes; `sync`, the
 * weights go to vLLM after each step (1 colocated, 2 server).
 */
export function trainerFetch(
  fw: FrameworkProfile,
  m: ModelFacts,
  t: TimeOptions,
  generates: boolean,
  sync: 0 | 1 | 2,
): TrainerFetch {
  const mode = fw.shardedGenerate ?? null;
  // A TRL build before v0.16 loads the whole state dict into its own process's vLLM in one call (vllmSyncOneCall).
  const perTensor = sync === 2 && t.vllmSyncOneCall !== true ? (fw.vllmSyncTensorSeconds ?? 0) : 0;
  const root =
    mode === 'per-forward' && fw.fsdpRootUnit ? m.arch.embedParams + m.arch.lmHeadParams : 0;
  return {
    generate: generates ? mode : null,
    syncGathers: sync > 0 && mode !== null,
    syncRequests: perTensor > 0 ? namedTensors(m.arch) * perTensor : 0,
    rootShare: root > 0 ? root / m.total : 0,
  };
}

/**
 * Named parameter tensors of the model as `named_parameters()` lists them, what TRL's sync sends one by one: per
 * layer its norms (Arch normsPerLayer, and a q and a k norm where the attention normalizes per head), each linear's
 * weight and bias (routed experts: one stacked tensor per projection, as transformers 5 stores them), then the token
 * embeddings, the final norm and an untied head. Qwen2-0.5B: 24 x 12 + 2 = 290.
 */
export function namedTensors(arch: Arch): number {
  let n = 2 + (arch.tiedEmbeddings ? 0 : 1);
  for (const g of arch.groups) {
    let perLayer = g.normsPerLayer + (g.qkNorm === 'head' ? 2 : 0);
    for (const l of g.linears) perLayer += l.bias ? 2 : 1;
    n += g.count * perLayer;
  }
  return n;
}

/**
 * Seconds one pass over the policy's parameters takes to reach the GPU: the all-gather of every ZeRO-3 / FSDP shard
 * over the data-parallel link and the host-to-device copy of the offloaded ones, the bytes and rates a further
 * forward of the trained model waits on (train-step.ts forwardFetchSeconds); 0 on an unsharded, resident policy.
 */
export function passFetchSeconds(w: TrainWork, r: GpuRates): number {
  if (w.gatherPassBytes === 0 && w.offloadParamPassBytes === 0) return 0;
  const { gather, copy } = passFetchParts(w, r);
  return (w.gatherPassBytes > 0 ? gather : 0) + copy;
}

/**
 * Seconds a generation batch of the trainer's generate waits on fetching the policy (`fetch`: passFetchSeconds) over
 * its prefill (`prefill` seconds) and `steps` decode steps of `step` seconds each. 'gather-once': one fetch before
 * the first forward, nothing beside it. 'per-forward': the root unit once (TRL's `summon_full_params(...,
 * recurse=False)`), then every forward fetches each of the `layers` units again; the first unit's fetch comes before
 * any of its compute and the rest runs under the forward's own time, on the collectives' stream, as
 * forwardFetchSeconds prices a no-grad pass.
 */
export function generateFetchSeconds(
  f: TrainerFetch,
  fetch: number,
  layers: number,
  prefill: number,
  step: number,
  steps: number,
): number {
  if (f.generate === null || fetch === 0) return 0;
  if (f.generate === 'gather-once') return fetch;
  const units = fetch * (1 - f.rootShare);
  const wait = (t: number) => units / layers + Math.max(0, units - t);
  return fetch * f.rootShare + wait(prefill) + steps * wait(step);
}

/**
 * Seconds the weight sync adds to its bytes: the whole sharded or offloaded policy gathered once (TRL v1.9.0
 * VLLMGeneration.sync_weights: `gather_params(list(model.parameters()))` under PEFT, a gather per parameter
 * otherwise; FSDP: summon_full_params over every unit) and the server's per-tensor requests.
 */
export const syncFetchSeconds = (f: TrainerFetch, fetch: number): number =>
  (f.syncGathers ? fetch : 0) + f.syncRequests;
