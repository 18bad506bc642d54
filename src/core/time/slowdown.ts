/**
 * What each slowing technique of a configuration costs, from the time model itself (one account of
 * time): the step time with the technique over the step time of the same configuration without it
 * (estimateTime both ways), so the factors shown beside a plan are the ones its time already contains.
 */
import type { Arch } from '../model/arch.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import type { Gpu } from '../../schema/gpu.js';
import type { TimeOptions } from '../../schema/time.js';
import { estimateTime } from './index.js';

export interface SlowdownFactor {
  factor: number;
  why: string;
  source: string;
}

/** Each slowing technique the options use, and the same options without it. */
export function slowingTechniques(o: EstimateOptions): { why: string; without: EstimateOptions }[] {
  const out: { why: string; without: EstimateOptions }[] = [];
  if (o.method === 'inference') return out;
  const why: Record<string, string> = {
    full: 'full activation recomputation',
    selective: 'selective recomputation',
    offload: 'recompute + checkpoints over PCIe',
  };
  if (o.checkpointing !== 'none')
    out.push({ why: why[o.checkpointing]!, without: { ...o, checkpointing: 'none' } });
  if (o.weights === 'nf4' || o.weights === 'fp4' || o.weights === 'int4')
    out.push({ why: '4-bit dequantization in every matmul', without: { ...o, weights: 'bf16' } });
  if (o.weights === 'int8')
    out.push({ why: 'LLM.int8 mixed-precision matmuls', without: { ...o, weights: 'bf16' } });
  if (o.offload === 'optimizer')
    out.push({ why: 'optimizer step on the CPU', without: { ...o, offload: 'none' } });
  if (o.offload === 'optimizer+params')
    out.push({ why: 'parameters streamed from the CPU', without: { ...o, offload: 'none' } });
  if (o.compute === 'fp32')
    out.push({ why: 'fp32 compute, no bf16 tensor cores', without: { ...o, compute: 'bf16' } });
  if (o.attention === 'eager')
    out.push({ why: 'eager attention', without: { ...o, attention: 'sdpa' } });
  return out;
}

/** The factor of each technique: this step time over the time model's step time without the technique. */
export function slowdownFactors(
  arch: Arch,
  o: EstimateOptions,
  gpu: Gpu,
  t: TimeOptions,
  stepSeconds: number,
): SlowdownFactor[] {
  return slowingTechniques(o).map(({ why, without }) => ({
    factor: stepSeconds / Math.max(1e-12, estimateTime(arch, without, gpu, t).stepSeconds),
    why,
    source: 'time model (src/core/time/index.ts estimateTime): step time with / without it',
  }));
}

/**
 * MoE experts run in a per-expert Python loop (the engine's moeDispatch, engines/<engine>/memory.ts): the step
 * over the same step with one grouped GEMM per layer, from the time model (time/train-work.ts expertWork), so the
 * factor is the mechanism's own figure for this configuration, not a constant.
 */
export function moeDispatchFactor(t: {
  stepSeconds: number;
  moe?: { dispatch: 'loop' | 'grouped' | 'dense'; loopSeconds: number };
}): SlowdownFactor[] {
  if (!t.moe || t.moe.dispatch !== 'loop' || t.moe.loopSeconds <= 0) return [];
  return [
    {
      factor: t.stepSeconds / Math.max(1e-9, t.stepSeconds - t.moe.loopSeconds),
      why: 'MoE experts looped one by one (moeDispatch loop), not one grouped GEMM per layer',
      source:
        'src/core/time/index.ts expertWork; transformers 4.57 modeling_qwen3_moe.py expert loop',
    },
  ];
}
