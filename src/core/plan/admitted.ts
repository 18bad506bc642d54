/**
 * A serving plan's memory and KV pool as its engine holds them on the plan's GPU: the pool the engine leaves
 * (planServing), and where every sequence resident would not fit, the sequences its pool runs with the rest queued
 * (queuedAt, admittedOr; tps-memo.ts runningOn and admitsFromPool).
 */
import type { Arch } from '../model/arch.js';
import { estimateMemory, type MemoryEstimate } from '../memory/memory.js';
import { servingGpuContext } from '../time/gpu-memory-context.js';
import { MiB } from '../units.js';
import type { Gpu } from '../../schema/gpu.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import type { Plan } from './types.js';
import { servingOf, type EstimateResult } from '../estimate.js';
import { runningOn, tpsTableOf } from './tps-memo.js';
import { poolRunning } from '../time/pool-queue.js';
import { PLAN_DECODE_TIME } from './context.js';
import type { Ctx } from './context.js';

/** Serving plans: a paged-KV engine fills the GPU up to its utilization; the pool it leaves is the answer. */
export function planServing(arch: Arch, o: EstimateOptions, gpu: Gpu): Plan['serving'] {
  if (o.method !== 'inference') return undefined;
  return servingOf(estimateMemory(arch, o, servingGpuContext(gpu, o)), o);
}

/**
 * The sequences a serving plan's KV pool runs where it holds fewer than the batch (undefined: all run), from the
 * search's memo of the row on that GPU (tps-memo.ts runningOn), as its ranking timed it.
 */
export function queuedAt(ctx: Ctx, o: EstimateOptions, gpu: Gpu): number | undefined {
  const memo = tpsTableOf(ctx.facts, o, PLAN_DECODE_TIME);
  const run = runningOn(memo, ctx.arch, ctx.facts, gpu, PLAN_DECODE_TIME);
  return run === memo ? undefined : run.options.batch;
}

/**
 * A serving plan whose every sequence resident would not fit the GPU but whose engine admits from its KV pool and
 * queues the rest (tps-memo.ts admitsFromPool): its memory as the engine holds it, the pool filling its budget at
 * the sequences it runs (runningOn); `m` otherwise.
 */
export function admittedOr(
  ctx: Ctx,
  o: EstimateOptions,
  gpu: Gpu,
  m: MemoryEstimate,
): MemoryEstimate {
  if (
    o.method !== 'inference' ||
    m.perGpu.deviceBytes <= gpu.memoryMiB * MiB * (1 - ctx.s.limits.memoryMargin)
  )
    return m;
  const c = queuedAt(ctx, o, gpu);
  return c === undefined ? m : memoryRunning(ctx.arch, o, gpu, c);
}

/** The memory the engine holds running `c` of the plan's sequences on `gpu`, its pool filling its budget. */
const memoryRunning = (arch: Arch, o: EstimateOptions, gpu: Gpu, c: number): MemoryEstimate =>
  estimateMemory(arch, { ...o, batch: c }, servingGpuContext(gpu, o));

/**
 * The per-GPU memory a launched serving plan's engine holds where its KV pool runs fewer sequences than the batch
 * and queues the rest (`e.serving`: estimate.ts servingOf on the GPU; time/pool-queue.ts poolRunning): the memory at
 * the sequences the pool runs, the pool filling its budget, as the planner shows the plan (admittedOr); `e`'s own
 * where every sequence runs at once. What `check` compares a finished run with (check/run-plan.ts).
 */
export function heldPerGpu(
  arch: Arch,
  o: EstimateOptions,
  gpu: Gpu,
  e: Pick<EstimateResult, 'perGpu' | 'fits' | 'serving'>,
): EstimateResult['perGpu'] {
  if (o.method !== 'inference' || e.fits !== false) return e.perGpu;
  const c = poolRunning(o, e.serving?.sequencesAtMeanContext);
  return c === undefined ? e.perGpu : memoryRunning(arch, o, gpu, c).perGpu;
}
