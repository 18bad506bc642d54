/**
 * Multi-LoRA serving's time per decode step: the adapters in use are read beside the base weights, and every
 * LoRA-wrapped linear runs a shrink (x A) and an expand (x B) kernel over the batch, each a graph kernel's gap
 * at decode (vLLM's punica kernels: add_shrink / add_expand per layer, vllm/lora/punica_wrapper/punica_gpu.py).
 * An engine that never batches different adapters together (its profile's loraBatchesApart) runs one engine
 * iteration per adapter in use, each over that adapter's sequences with that adapter's two matmuls per linear.
 */
import type { EstimateOptions } from '../../schema/estimate.js';
import type { TimeOptions } from '../../schema/time.js';
import { FLOAT_BYTES } from '../model/dtypes.js';
import { FRAMEWORKS } from '../memory/frameworks.js';
import { adapterBytesPerGpu, loraExpertGpus, unmergedAdapterBytes } from '../memory/multi-lora.js';
import type { FrameworkProfile } from '../memory/framework-profile.js';
import { LORA_OPS_PER_LINEAR, OPS_PER_LAYER_EAGER } from './train-work.js';
import { decodeStep } from './decode.js';
import type { GpuRates } from './hardware.js';
import type { ModelFacts } from './model-facts.js';
import { graphKernelSecondsOf } from './decode-host.js';
import { floatCompute } from '../../schema/estimate.js';

export interface LoraTime {
  /** Distinct adapters a step reads: one per sequence at most, and at most the slots. */
  adaptersPerStep: number;
  /** Seconds per decode step: reading those adapters, and the shrink and expand kernels. */
  seconds: number;
}

/**
 * The LoRA cost of one decode step of `batch` sequences (null without --max-loras): seconds beyond the plain
 * step. Adapters batched apart (`t` given): the A adapters in use split the batch into A engine iterations of
 * B / A sequences (B mod A of them one larger), each its own step plus one adapter's read and kernels.
 */
export function loraStepTime(
  m: ModelFacts,
  o: EstimateOptions,
  r: GpuRates,
  batch = o.batch,
  t?: TimeOptions,
): LoraTime | null {
  if (o.maxLoras === undefined) return null;
  const c = FLOAT_BYTES[floatCompute(o.compute)];
  // One adapter run unmerged (unmergedServingOptions): its read here, its ops in the decode step's host and kernels.
  if (runsUnmerged(o))
    return { adaptersPerStep: 1, seconds: unmergedAdapterBytes(m.arch, o, c) / r.mem };
  const adapters = Math.min(batch, o.maxLoras);
  const one = adapterBytesPerGpu(m.arch, o.loraRank, o.tp, c, loraExpertGpus(o));
  const kernels = 2 * m.layers * m.linearsPerLayer;
  const gap = graphKernelSecondsOf(FRAMEWORKS[o.framework], r.smClock);
  const perAdapter = one / r.mem + kernels * gap;
  if (!t || !FRAMEWORKS[o.framework].loraBatchesApart || adapters <= 1)
    return {
      adaptersPerStep: adapters,
      seconds: adapters * (one / r.mem) + kernels * gap,
    };
  const plain = { ...o, maxLoras: undefined };
  const small = Math.floor(batch / adapters);
  const larger = batch - small * adapters; // iterations of small + 1 sequences
  const step = (b: number) => decodeStep(m, { ...plain, batch: b }, t, r, false).stepSeconds;
  const iterations =
    (adapters - larger) * step(small) + (larger > 0 ? larger * step(small + 1) : 0);
  return {
    adaptersPerStep: adapters,
    seconds: iterations + adapters * perAdapter - step(batch),
  };
}

/** The engine runs `o`'s one adapter unmerged through PEFT (FrameworkProfile.unmergedLora, --max-loras 1). */
const runsUnmerged = (o: EstimateOptions): boolean =>
  o.maxLoras === 1 && FRAMEWORKS[o.framework].unmergedLora === true;

/**
 * Ops an adapted linear's unmerged LoRA forward issues beside its base matmul at a decode step: the engine's count
 * (FrameworkProfile.loraForwardOps) or PEFT's lora.Linear.forward's (LORA_OPS_PER_LINEAR), and the Python around
 * them beyond those ops in eager ops, from the forward's measured host time (FrameworkProfile.loraForwardHost: PEFT's,
 * scripts/peft-decode-host.py); a count of none runs no adapter.
 */
export function loraForwardOpsOf(fw: FrameworkProfile, t: TimeOptions): number {
  const ops = t.loraForwardOps ?? fw.loraForwardOps ?? LORA_OPS_PER_LINEAR;
  const host = fw.loraForwardHost;
  const python =
    ops > 0 && host !== undefined
      ? Math.max(0, host.layers * OPS_PER_LAYER_EAGER - host.kernels)
      : 0;
  return ops + python;
}

/**
 * The time options of a serving step whose engine runs one adapter unmerged (transformers generate over PEFT's
 * lora.Linear, FrameworkProfile.unmergedLora): every adapted linear's forward ops at each decode step
 * (TimeOptions.unmergedAdapterOps, time/decode-host.ts), as the trainer's own generate of a LoRA policy runs them.
 */
export function unmergedServingOptions(o: EstimateOptions, t: TimeOptions): TimeOptions {
  if (!runsUnmerged(o) || t.unmergedAdapterOps !== undefined) return t;
  return { ...t, unmergedAdapterOps: loraForwardOpsOf(FRAMEWORKS[o.framework], t) };
}
