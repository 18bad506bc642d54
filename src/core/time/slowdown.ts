/**
 * Step-time multipliers of each memory-saving technique relative to plain bf16 training of the same
 * model on the same GPUs (1.0 = no cost). Sources: docs/reference/formulas-and-factors.md §2.
 * The planner's time model and `explain` both read these; keep them the single source.
 */
import type { EstimateOptions } from '../../schema/estimate.js';

export interface SlowdownFactor {
  factor: number;
  why: string;
  source: string;
}

// Full recompute adds one forward: 8N vs 6N FLOPs per token = 4/3 (Narayanan et al. SC'21); HF docs say ~20% slower.
const FULL_RECOMPUTE = 4 / 3;
// Selective recompute: +2.7% FLOPs on GPT-3 175B, measured +4-7% time (Korthikanti et al. Table 4).
const SELECTIVE_RECOMPUTE = 1.05;
// Checkpoint offload to host: recompute plus PCIe traffic hidden behind compute only in part (torchtune docs).
const OFFLOAD_RECOMPUTE = 1.45;
// LoRA skips the frozen weight gradients: ~4N/6N of full FT compute (LoRA §4.2: 1.33x faster on GPT-3).
const LORA_VS_FULL = 0.75;
// QLoRA with bitsandbytes: 1.3-1.5x bf16 LoRA (Raschka: 1.51x; Bossan 4090 log: 1,410 vs ~1,900 tok/s).
const QLORA_VS_LORA = 1.4;
// LLM.int8 matmuls: BLOOM-176B 15-23% slower than fp16 inference (HF bitsandbytes blog).
const INT8_VS_BF16 = 1.2;
// Paged optimizer: zero overhead while it fits; PCIe paging only under pressure (bitsandbytes docs).
const PAGED = 1.0;
// ZeRO-Offload: optimizer step on the CPU, 4Ψ bytes over PCIe per step; DeepSpeedCPUAdam 5-7x torch CPU Adam.
const OFFLOAD_OPTIMIZER = 1.5;
// ZeRO-3 parameter offload (ZeRO-Infinity class): every layer streamed over PCIe twice per step.
const OFFLOAD_PARAMS = 2.5;
// fp32 compute runs on CUDA cores / TF32 instead of bf16 tensor cores: roughly 2x slower for training.
const FP32_COMPUTE = 2.0;
// Eager attention materialises s x s scores; FlashAttention is 2-4x faster on the attention part.
const EAGER_ATTENTION = 1.15;

/** Each technique the options use, with its multiplier. */
export function slowdownFactors(o: EstimateOptions): SlowdownFactor[] {
  const out: SlowdownFactor[] = [];
  const ref = 'docs/reference/formulas-and-factors.md §2';
  if (o.method === 'inference') return out;
  if (o.checkpointing === 'full')
    out.push({
      factor: FULL_RECOMPUTE,
      why: 'full activation recomputation',
      source: `${ref}.1-2.2`,
    });
  if (o.checkpointing === 'selective')
    out.push({ factor: SELECTIVE_RECOMPUTE, why: 'selective recomputation', source: `${ref}.2` });
  if (o.checkpointing === 'offload')
    out.push({
      factor: OFFLOAD_RECOMPUTE,
      why: 'recompute + checkpoints over PCIe',
      source: `${ref}.2`,
    });
  if (o.method === 'lora' || o.method === 'qlora')
    out.push({
      factor: LORA_VS_FULL,
      why: 'LoRA skips frozen weight gradients',
      source: `${ref}.3`,
    });
  if (o.weights === 'nf4' || o.weights === 'fp4' || o.weights === 'int4')
    out.push({
      factor: QLORA_VS_LORA,
      why: '4-bit dequantization in every matmul',
      source: `${ref}.4`,
    });
  if (o.weights === 'int8')
    out.push({ factor: INT8_VS_BF16, why: 'LLM.int8 mixed-precision matmuls', source: `${ref}.4` });
  if (o.optimizer.startsWith('paged'))
    out.push({ factor: PAGED, why: 'paged optimizer (free unless paging)', source: `${ref}.5` });
  if (o.offload === 'optimizer')
    out.push({
      factor: OFFLOAD_OPTIMIZER,
      why: 'optimizer step on the CPU',
      source: 'docs/reference/formulas-and-factors.md §1.2',
    });
  if (o.offload === 'optimizer+params')
    out.push({
      factor: OFFLOAD_PARAMS,
      why: 'parameters streamed from the CPU',
      source: 'docs/reference/formulas-and-factors.md §1.2',
    });
  if (o.compute === 'fp32')
    out.push({
      factor: FP32_COMPUTE,
      why: 'fp32 compute, no bf16 tensor cores',
      source: `${ref}.7`,
    });
  if (o.attention === 'eager')
    out.push({ factor: EAGER_ATTENTION, why: 'eager attention', source: 'flash-attention README' });
  return out;
}

/**
 * MoE experts run in a per-expert Python loop (the engine's moeDispatch, engines/<engine>/memory.ts): the step
 * over the same step with one grouped GEMM per layer, from the time model (time/index.ts expertWork), so the
 * factor is the mechanism's own figure for this configuration, not a constant.
 */
export function moeDispatchFactor(t: {
  stepSeconds: number;
  moe?: { dispatch: 'loop' | 'grouped'; loopSeconds: number };
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

/** Product of the factors: expected step time relative to plain bf16 full fine-tuning. */
export const slowdownOf = (o: EstimateOptions): number =>
  slowdownFactors(o).reduce((a, f) => a * f.factor, 1);
