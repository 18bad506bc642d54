/**
 * torchtune LoRA DPO (issue 26): the recipes lora_dpo_single_device / lora_dpo_distributed of v0.6.1 and the
 * keys their configs differ from the LoRA SFT ones in. Read at the v0.6.1 tag (commit a6290a5b):
 * recipes/configs/llama3_1/8B_lora_dpo_single_device.yaml and 8B_lora_dpo.yaml (loss
 * torchtune.rlhf.loss.DPOLoss, beta 0.1; dataset torchtune.datasets.stack_exchange_paired_dataset;
 * save_adapter_weights_only), recipes/lora_dpo_single_device.py (the cfg keys it reads: no
 * enable_activation_offloading, clip_grad_norm or optimizer_in_bwd; the reference is the base with the
 * adapters disabled, disable_adapter L549) and recipes/lora_dpo_distributed.py (fsdp_cpu_offload L271,
 * fsdp_reshard_after_forward L272; no compile), torchtune/rlhf/loss/dpo.py#L38-L41 (DPOLoss beta=0.1).
 */
import type { EstimateOptions } from '../../../schema/estimate.js';
import type { LaunchPlan } from '../../launch/types.js';

export const TUNE_DPO = {
  loss: 'torchtune.rlhf.loss.DPOLoss', // torchtune/rlhf/loss/dpo.py:14
  dataset: 'torchtune.datasets.stack_exchange_paired_dataset', // torchtune/datasets/__init__.py:20
} as const;

// DPOLoss beta default (dpo.py#L40), as the shipped configs write it.
const DPO_BETA = 0.1;

/** The plan runs torchtune's DPO recipes. */
export const isTuneDpo = (o: EstimateOptions): boolean => o.objective === 'dpo';

/** Why the LoRA DPO recipes cannot run the plan as modelled, or null (rule torchtune-full-dpo-single-device first). */
export function tuneDpoBlocker(x: LaunchPlan): string | null {
  const o = x.options;
  if (o.objective === undefined || o.objective === 'sft') return null;
  if (o.objective !== 'dpo')
    return `torchtune 0.6.1 has no ${o.objective.toUpperCase()} recipe vramplan writes (DPO only)`;
  if (o.method === 'full')
    return "vramplan writes torchtune's LoRA DPO recipes; full DPO (full_dpo_distributed) is not written yet";
  if (o.reference !== 'model')
    return 'torchtune LoRA DPO computes the reference log-probs each step with the adapters disabled (--reference model)';
  if (o.checkpointing === 'offload')
    return 'the LoRA DPO recipes read no enable_activation_offloading (0.6.1): use activation checkpointing';
  if (o.chunkedLoss)
    return 'the LoRA DPO recipes compute the policy and reference log-probs from full logits (no chunked loss)';
  return null;
}

/** The recipe a torchtune DPO plan runs. */
export const tuneDpoRecipe = (distributed: boolean): string =>
  `lora_dpo_${distributed ? 'distributed' : 'single_device'}`;

/** Rewrites an SFT recipe config (emitTorchtune's, in its key order) into the LoRA DPO recipe's. */
export function tuneDpoConfig(
  config: Record<string, unknown>,
  distributed: boolean,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(config)) {
    if (k === 'enable_activation_offloading' || k === 'clip_grad_norm') continue;
    if (k === 'compile' && distributed) continue;
    if (k === 'dataset') out.dataset = { _component_: TUNE_DPO.dataset };
    else if (k === 'loss') out.loss = { _component_: TUNE_DPO.loss, beta: DPO_BETA };
    else out[k] = v;
    // The configs save the merged model as well as the adapter (save_adapter_weights_only False).
    if (k === 'resume_from_checkpoint') out.save_adapter_weights_only = false;
  }
  return out;
}
