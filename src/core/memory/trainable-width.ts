/**
 * The width of one trainable element, one meaning for memory and time: the adapters (or a full fine-tune's weights)
 * as the engine keeps them and as the measured or read build ran them, their gradients in the same width, and the
 * fp32 master the optimizer steps where the engine keeps one. Memory reads it for its adapter, gradient, master and
 * state bytes (memory/setup.ts, memory/optimizer-states.ts); time for the optimizer step's traffic, the offloaded
 * gradients and the adapters' input casts (time/optimizer-step.ts, time/train-work.ts, time/adapter-path.ts).
 */
import { floatCompute, isGguf, type EstimateOptions } from '../../schema/estimate.js';
import { FLOAT_BYTES, isFloatDtype, valueBytes } from '../model/dtypes.js';
import { adapterBytes, type FrameworkProfile, type GradReduceWidth } from './framework-profile.js';
import type { EstimateContext } from './types.js';

/**
 * What a build ran that sets a trainable element's width: memory's EstimateContext and time's TimeOptions carry the
 * same fields (estimate.ts passes a measured or read build's BuildContext to both).
 */
export type WidthContext = Pick<
  EstimateContext,
  'kbitFp32Stream' | 'kbitFp32Adapters' | 'adaptersInWeightDtype'
>;

/**
 * The engine profile with the adapters the build kept fp32: TRL before v0.22's k-bit path kept PEFT's fp32 adapters
 * (get_peft_model's autocast_adapter_dtype default; peft_module_casting_to_bf16 casts only norms, embeddings and head:
 * huggingface/trl@v0.13.0 trl/trainer/sft_trainer.py:219-233); axolotl's SFT (transformers' Trainer) and TRL's
 * experimental ORPO / CPO leave them fp32 too (EstimateContext.kbitFp32Stream, kbitFp32Adapters).
 */
export function adapterProfile(fw: FrameworkProfile, ctx: WidthContext): FrameworkProfile {
  const fp32Adapters = ctx.kbitFp32Stream === true || ctx.kbitFp32Adapters === true;
  return fp32Adapters && fw.kbitTrainableBf16 === true ? { ...fw, kbitTrainableBf16: false } : fw;
}

/**
 * Bytes of the non-linear parameters (embeddings, lm_head, norms): the float dtype of float weights; GGUF stores them
 * quantized too (GGUF_BPW averages the whole file);
 * under a k-bit base the compute dtype, fp32 for training where the engine runs PEFT's prepare_model_for_kbit_training
 * (kbitUpcastsToFp32) or the build did (EstimateContext.kbitFp32Stream).
 */
export function floatParamBytes(
  o: EstimateOptions,
  fw: FrameworkProfile,
  ctx: Pick<WidthContext, 'kbitFp32Stream'>,
): number {
  if (isFloatDtype(o.weights) || isGguf(o.weights)) return valueBytes(o.weights);
  const training = o.method !== 'inference';
  return training && (fw.kbitUpcastsToFp32 || ctx.kbitFp32Stream === true)
    ? 4
    : FLOAT_BYTES[floatCompute(o.compute)];
}

/**
 * Bytes of one adapter element as the engine keeps it and the build ran it (adapterBytes over adapterProfile), or
 * null: the weights' own float dtype (also where the build kept the adapters in it: adaptersInWeightDtype).
 */
export function builtAdapterBytes(
  o: EstimateOptions,
  fw: FrameworkProfile,
  ctx: WidthContext,
): 2 | 4 | null {
  if (ctx.adaptersInWeightDtype === true) return null;
  const quantized = !isFloatDtype(o.weights) && o.method !== 'inference';
  return adapterBytes(adapterProfile(fw, ctx), quantized, o.zero);
}

/**
 * Bytes of one trainable element and of its gradient: a full fine-tune's weight dtype; an adapter's builtAdapterBytes,
 * else (the weights' own float dtype) fp32 where the non-linear parameters are fp32 (floatParamBytes), else the
 * compute dtype the engine builds the model in.
 */
export function trainableElementBytes(
  o: EstimateOptions,
  fw: FrameworkProfile,
  ctx: WidthContext,
): number {
  if (o.method === 'full') return valueBytes(o.weights);
  return (
    builtAdapterBytes(o, fw, ctx) ??
    (floatParamBytes(o, fw, ctx) === 4 ? 4 : FLOAT_BYTES[floatCompute(o.compute)])
  );
}

/** Whether the optimizer steps an fp32 master of the trainable parameters: --master-weights, or DeepSpeed's optimizer. */
export function stepsFp32Master(o: EstimateOptions, fw: FrameworkProfile): boolean {
  return o.masterWeights || fw.deepspeedOptimizer;
}

/**
 * Bytes of one parameter as the optimizer steps it: the fp32 master where one is kept under a narrower trainable
 * element (memory's master copy), else the trainable element itself.
 */
export function steppedElementBytes(
  o: EstimateOptions,
  fw: FrameworkProfile,
  ctx: WidthContext,
): number {
  const w = trainableElementBytes(o, fw, ctx);
  return w < 4 && stepsFp32Master(o, fw) ? 4 : w;
}

/**
 * Bytes per element of the gradients a data-parallel reduce moves (FrameworkProfile.gradReduce): the trainable
 * element's own width ('grad'), the compute dtype's ('compute') or the engine's fixed reduce dtype.
 */
export function gradReduceElementBytes(
  o: EstimateOptions,
  fw: FrameworkProfile,
  ctx: WidthContext,
): number {
  const spec = fw.gradReduce;
  const width: GradReduceWidth = spec ? (o.zero >= 2 ? spec.sharded : spec.unsharded) : 'grad';
  if (width === 'grad') return trainableElementBytes(o, fw, ctx);
  return width === 'compute' ? FLOAT_BYTES[floatCompute(o.compute)] : width;
}
