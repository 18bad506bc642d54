/**
 * torchtune DPO: the recipes lora_dpo_single_device / lora_dpo_distributed / full_dpo_distributed
 * of v0.6.1 and the keys their configs differ from the SFT ones in. Read at the v0.6.1 tag (commit a6290a5b):
 * recipes/configs/llama3_1/8B_lora_dpo_single_device.yaml and 8B_lora_dpo.yaml (loss
 * torchtune.rlhf.loss.DPOLoss, beta 0.1; dataset torchtune.datasets.stack_exchange_paired_dataset;
 * save_adapter_weights_only), recipes/lora_dpo_single_device.py (the cfg keys it reads: no
 * enable_activation_offloading, clip_grad_norm or optimizer_in_bwd; the reference is the base with the
 * adapters disabled, disable_adapter L549) and recipes/lora_dpo_distributed.py (fsdp_cpu_offload L271,
 * fsdp_reshard_after_forward L272; no compile), torchtune/rlhf/loss/dpo.py#L38-L41 (DPOLoss beta=0.1);
 * recipes/full_dpo_distributed.py and recipes/configs/llama3_1/8B_full_dpo.yaml (a ref_checkpointer
 * beside the checkpointer, L269 _load_ref_checkpoint; it reads optimizer_in_bwd L142, clip_grad_norm L143,
 * enable_activation_checkpointing/offloading L159-L163 and compile L271; the reference is FSDP-sharded as
 * the policy, _setup_reference_model L506-L545; no single-device full DPO recipe: full_dpo_distributed runs
 * one GPU too, "1 to 8 GPUs", L33-L34).
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

/** Why the DPO recipes cannot run the plan as modelled, or null. */
export function tuneDpoBlocker(x: LaunchPlan): string | null {
  const o = x.options;
  if (o.objective === undefined || o.objective === 'sft') return null;
  if (o.objective !== 'dpo')
    return `torchtune 0.6.1 has no ${o.objective.toUpperCase()} recipe vramplan writes (DPO only)`;
  if (o.reference !== 'model')
    return o.method === 'full'
      ? 'torchtune full DPO runs a reference copy (ref_checkpointer) each step (--reference model)'
      : 'torchtune LoRA DPO computes the reference log-probs each step with the adapters disabled (--reference model)';
  if (o.checkpointing === 'offload' && o.method !== 'full')
    return 'the LoRA DPO recipes read no enable_activation_offloading (0.6.1): use activation checkpointing';
  if (o.chunkedLoss)
    return 'the DPO recipes compute the policy and reference log-probs from full logits (no chunked loss)';
  return null;
}

/** The recipe a torchtune DPO plan runs (full DPO: full_dpo_distributed, on one GPU too). */
export const tuneDpoRecipe = (distributed: boolean, full = false): string =>
  full ? 'full_dpo_distributed' : `lora_dpo_${distributed ? 'distributed' : 'single_device'}`;

/**
 * Rewrites an SFT recipe config (emitTorchtune's, in its key order) into the DPO recipe's: the LoRA recipes
 * drop the keys they do not read; full DPO keeps them and loads the reference from ref_checkpointer, the
 * original weights (8B_full_dpo.yaml: "The ref_checkpointer should always point to the original weights").
 */
export function tuneDpoConfig(
  config: Record<string, unknown>,
  distributed: boolean,
  full = false,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(config)) {
    if (!full && (k === 'enable_activation_offloading' || k === 'clip_grad_norm')) continue;
    if (!full && k === 'compile' && distributed) continue;
    if (k === 'dataset') out.dataset = { _component_: TUNE_DPO.dataset };
    else if (k === 'loss') out.loss = { _component_: TUNE_DPO.loss, beta: DPO_BETA };
    else out[k] = v;
    if (k !== 'resume_from_checkpoint') continue;
    // A deep copy: a shared object would be written as a YAML anchor and alias.
    if (full) out.ref_checkpointer = structuredClone(config.checkpointer);
    // The LoRA configs save the merged model as well as the adapter (save_adapter_weights_only False).
    else out.save_adapter_weights_only = false;
  }
  return out;
}
