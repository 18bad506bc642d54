/**
 * Multi-LoRA serving's memory: the adapter slots a serving engine preallocates. vLLM wraps every linear layer
 * and allocates, per layer, lora_a_stacked (max_loras x max_lora_rank x input) and lora_b_stacked (max_loras x
 * output x max_lora_rank) in the model dtype, sharded as the layer is: a column-parallel layer keeps A whole and
 * B's output split over TP, a row-parallel one A's input split and B whole (vllm/lora/layers/base_linear.py
 * create_lora_weights, column_parallel_linear.py and row_parallel_linear.py).
 */
import type { Arch, LinearRole } from '../model/arch.js';
import { moeGroupOf, type EstimateOptions } from '../../schema/estimate.js';
import { isFloatDtype } from '../model/dtypes.js';

/** Row-parallel projections (their input is split over TP): attention output and MLP down. */
const ROW_PARALLEL: ReadonlySet<LinearRole> = new Set(['o', 'down', 'cross_o']);

/**
 * Bytes of one adapter (rank r) per GPU over every linear of the language model, in `c`-byte elements; the routed
 * experts' adapters split over `expertGpus` (the GPUs the MoE layers span: the TP group, or every DP-attention
 * rank's GPUs, as the experts they adapt).
 */
export function adapterBytesPerGpu(
  arch: Arch,
  rank: number,
  tp: number,
  c: number,
  expertGpus = tp,
): number {
  let elements = 0;
  for (const g of arch.groups) {
    if (g.name === 'vision') continue;
    for (const l of g.linears) {
      if (l.role === 'router') continue; // gates stay plain ReplicatedLinear
      // Routed experts over more GPUs than TP (DP attention): each GPU holds its share of whole experts' adapters.
      if (l.copies > 1 && expertGpus !== tp) {
        elements += (g.count * l.copies * rank * (l.inFeatures + l.outFeatures)) / expertGpus;
        continue;
      }
      const row = ROW_PARALLEL.has(l.role);
      const a = rank * (row ? l.inFeatures / tp : l.inFeatures);
      const b = rank * (row ? l.outFeatures : l.outFeatures / tp);
      elements += g.count * l.copies * (a + b);
    }
  }
  return elements * c;
}

/** The adapter slots per GPU (0 without --max-loras). */
export function loraSlotBytes(arch: Arch, o: EstimateOptions, c: number): number {
  if (o.maxLoras === undefined) return 0;
  return o.maxLoras * adapterBytesPerGpu(arch, o.loraRank, o.tp, c, loraExpertGpus(o));
}

/** The GPUs a routed expert's adapter is split over: the MoE layers' group under DP attention, else the TP group. */
export const loraExpertGpus = (o: EstimateOptions): number =>
  o.dpAttention ? moeGroupOf(o) : o.tp;

/**
 * One adapter run unmerged by PEFT on an engine without slots (FrameworkProfile.unmergedLora): r x (in + out) on each
 * linear of the language model whose role the adapter targets (every linear but the router with --lora-all-linear),
 * whole on each GPU. PEFT casts each adapter to its base layer's weight dtype where that is a float
 * (peft v0.20.0 tuners/tuners_utils.py _move_adapter_to_device_of_base_layer: `weight.dtype.is_floating_point`);
 * a quantized base layer's adapters keep nn.Linear's fp32.
 */
export function unmergedAdapterBytes(arch: Arch, o: EstimateOptions, c: number): number {
  const targets = new Set<string>(o.loraTargets);
  let elements = 0;
  for (const g of arch.groups) {
    if (g.name === 'vision') continue;
    for (const l of g.linears) {
      if (l.role === 'router' || !(o.loraAllLinear || targets.has(l.role))) continue;
      elements += g.count * l.copies * o.loraRank * (l.inFeatures + l.outFeatures);
    }
  }
  return elements * (isFloatDtype(o.weights) ? c : 4);
}
