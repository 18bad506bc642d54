/**
 * Which phase dominates a step and what would lift it: the time model's own answer, shown by `explain`.
 * Pure: reads a TimeResult (estimateTime) only.
 */
import type { Bound, TimeResult } from './index.js';

export interface TimeVerdict {
  stepSeconds: number;
  tokensPerSecondPerGpu: number;
  /** Inference only: tokens/s of one replica. */
  decodeTokensPerSecond?: number;
  mfu: number;
  bound: Bound;
  /** The largest phase and its share of the step (prefill excluded for inference). */
  dominant: { phase: string; share: number };
  /** What would shorten the dominant phase, in the contract's vocabulary. */
  lift: string;
}

/** Remedies per phase; each follows from the phase's mechanism in time/index.ts. */
const LIFT: Record<string, (t: TimeResult) => string> = {
  forward: (t) => computeLift(t),
  backward: (t) => computeLift(t),
  recompute: () =>
    '--checkpointing selective or none where memory allows (full recompute re-runs the whole forward)',
  dequantize: () =>
    'larger micro-batches (dequantization is paid per micro-batch, not per token), or 16-bit LoRA weights',
  optimizer: (t) =>
    t.phases.some((p) => p.phase === 'optimizer') && t.bound === 'host'
      ? 'keep the optimizer on the GPU (--offload none) or more --grad-accum (one host step per more tokens)'
      : '--zero 1 or more to shard the optimizer step, or more --grad-accum to amortise it',
  'gradient-reduce': () =>
    'more --grad-accum (one reduce per more tokens) or a faster link (--interconnect nvlink, --inter-node-gbps)',
  'parameter-gather': () =>
    'larger micro-batches (--batch: gathers are per micro-batch), --zero 2 where memory allows, or NVLink',
  'tensor-parallel': () => 'a smaller --tp, or GPUs joined by NVLink (--interconnect nvlink)',
  'pipeline-bubble': () => 'more micro-batches per step (--grad-accum) or a smaller --pp',
  offload: () => 'less offload (--offload, --checkpointing) or a faster host link',
  overhead: (t) =>
    t.decodeTokensPerSecond !== undefined
      ? 'compiled decoding with CUDA graphs (--compile, or --framework vllm), or a larger --batch'
      : '--compile (fewer, fused kernels) or larger micro-batches (fixed costs per step and per kernel)',
  'decode-weights': () =>
    'fewer weight bytes per token (--weights int8/int4 with a fast kernel) or a larger --batch',
  'decode-kv': () => 'a shorter context (--seq), an fp8 KV cache or a smaller --batch',
  'expert-parallel': () =>
    'fewer ranks in the expert group (a smaller --ep or --gpus with --dp-attention), or GPUs joined by NVLink',
  'sequence-parallel': () =>
    'a smaller --cp (fewer ranks, less of each exchange on the wire), or GPUs joined by NVLink',
  'decode-host': () =>
    'more layers on the GPU (--gpu-layers higher, --n-cpu-moe lower: a GPU with more memory or fewer weight bytes); host-RAM layers are read at host memory bandwidth every token',
};

function computeLift(t: TimeResult): string {
  if (t.bound === 'memory')
    return '--compile (fuses the elementwise passes) or a GPU with more memory bandwidth';
  if (t.bound === 'host') return '--compile (fewer kernel launches) or larger micro-batches';
  if (t.tensorTflops.bf16Emulated !== undefined)
    return '--compute fp16: this GPU has no bf16 tensor cores, so bf16 matmuls run emulated on CUDA cores';
  const held = powerHeld(t);
  if (held)
    return `a GPU with more tensor FLOP/s per watt (its board power holds this one to ${held.sustained} of ${held.spec} spec TFLOPS), or larger micro-batches to fill the GEMMs`;
  return 'a GPU with more tensor FLOP/s, or larger micro-batches to fill the GEMMs';
}

/** Spec and sustained 16-bit TFLOPS (rounded) when power holds the card 5% or more below its spec, else null. */
export function powerHeld(t: TimeResult): { spec: number; sustained: number } | null {
  const { spec, sustained } = t.tensorTflops;
  return sustained < 0.95 * spec
    ? { spec: Math.round(spec), sustained: Math.round(sustained) }
    : null;
}

export function timeVerdict(t: TimeResult): TimeVerdict {
  const phases = t.phases.filter((p) => p.phase !== 'prefill' && p.seconds > 0);
  const total = phases.reduce((a, p) => a + p.seconds, 0);
  const top = phases.reduce((a, p) => (p.seconds > a.seconds ? p : a), {
    phase: 'overhead',
    seconds: 0,
  });
  return {
    stepSeconds: t.stepSeconds,
    tokensPerSecondPerGpu: t.tokensPerSecondPerGpu,
    ...(t.decodeTokensPerSecond !== undefined
      ? { decodeTokensPerSecond: t.decodeTokensPerSecond }
      : {}),
    mfu: t.mfu,
    bound: t.bound,
    dominant: { phase: top.phase, share: total > 0 ? top.seconds / total : 0 },
    lift: (LIFT[top.phase] ?? computeLift)(t),
  };
}
