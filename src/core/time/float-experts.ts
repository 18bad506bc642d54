/**
 * Routed experts a quantizer leaves in floating point (the engine profile's unquantizedExperts, as the memory model
 * stores them in memory/setup.ts): transformers 5's bitsandbytes integration swaps nn.Linear modules only, so fused
 * 3-D expert parameters keep the load dtype (bitsandbytes-foundation/bitsandbytes#1849), upcast to fp32 for k-bit
 * training only where the engine runs PEFT's prepare_model_for_kbit_training (kbitUpcastsToFp32; TRL 1.9.0's
 * trainers do not). Time reads them at that width, with no dequantization; the
 * experts' grouped matmuls run in that dtype: transformers' _grouped_mm casts the input to the weight's dtype
 * (`input.to(weight.dtype)`, huggingface/transformers@8b584a67 src/transformers/integrations/moe.py), and PyTorch
 * accepts fp32 operands there (`_grouped_mm_validate_inputs`: Float32, BFloat16 or Float16, pytorch/pytorch@00d4eaf
 * aten/src/ATen/native/GroupedMMUtils.h), running them through its per-group fallback (time/grouped-mm.ts).
 */
import { FRAMEWORKS } from '../memory/frameworks.js';
import { FLOAT_BYTES } from '../model/dtypes.js';
import { floatCompute, type EstimateOptions } from '../../schema/estimate.js';
import type { ModelFacts } from './model-facts.js';
import { type TimeOptions } from '../../schema/time.js';
import { defaultQuantFormat } from './hardware.js';

/** Routed-expert weight elements stored unquantized (all, and the topK a token passes through) and their width. */
export interface FloatExperts {
  elements: number;
  active: number;
  /** Linear modules per layer they account for, averaged over all layers (bitsandbytes' per-linear ops). */
  linearsPerLayer: number;
  bytes: number;
}

/** The routed experts this engine leaves unquantized for these weights, or null (all quantized, or dense). */
export function floatExperts(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
): FloatExperts | null {
  const fw = FRAMEWORKS[t.expertsOf ?? o.framework];
  if (m.experts <= 1 || m.moeLayers === 0 || fw.unquantizedExperts?.includes(o.weights) !== true)
    return null;
  // Only bitsandbytes' module swap leaves them (a torchao or GPTQ run quantizes its experts), and not where the
  // experts are per-expert nn.Linear modules, which it quantizes: a run that replaced the fused experts so
  // (TimeOptions.denseMoeLoop), or a transformers 4.x build whose sparse MoE blocks loop over such modules
  // (TimeOptions.moeLoop: MixtralBlockSparseTop2MLP's w1, w2, w3 are nn.Linear, huggingface/transformers@v4.48.1
  // src/transformers/models/mixtral/modeling_mixtral.py; replace_with_bnb_linear swaps every nn.Linear but
  // llm_int8_skip_modules, src/transformers/integrations/bitsandbytes.py).
  // Nor where the run quantized the fused stacks at load (TimeOptions.quantizedExperts).
  if (
    (t.quantFormat ?? defaultQuantFormat(o)) !== 'bnb' ||
    t.denseMoeLoop === true ||
    t.moeLoop === true ||
    t.quantizedExperts === true
  )
    return null;
  // The float width memory/setup.ts gives the non-linear parameters of a bitsandbytes model: fp32 where the model
  // trains (or a rollout generates with the trained model: TimeOptions.expertsOf) after PEFT's k-bit upcast.
  const trained = o.method !== 'inference' || t.expertsOf !== undefined;
  const bytes = trained && fw.kbitUpcastsToFp32 ? 4 : FLOAT_BYTES[floatCompute(o.compute)];
  return {
    elements: m.expertWeightsPerLayer * m.experts * m.moeLayers,
    active: m.expertWeightsPerLayer * m.topK * m.moeLayers,
    linearsPerLayer: (m.expertLinears * m.moeLayers) / m.layers,
    bytes,
  };
}

/**
 * A decode step's routed-expert elements read from unquantized experts and their bytes ([0, 0] where the quantizer
 * took them): `expertRead` elements at the experts' float width, never dequantized nor unpacked.
 */
export function floatExpertRead(
  m: ModelFacts,
  o: EstimateOptions,
  t: TimeOptions,
  expertRead: number,
): [number, number] {
  const fe = floatExperts(m, o, t);
  return fe ? [expertRead, expertRead * fe.bytes] : [0, 0];
}
