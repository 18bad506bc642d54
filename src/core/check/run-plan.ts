/**
 * vramplan-plan.json, written into every launch folder beside the probe: the plan's settings as contract flags
 * and the figures it promised, which `vramplan check` compares a finished run with. Pure.
 */
import { flagsFromOptions } from '../../schema/flags.js';
import { RUN_PLAN_SCHEMA, type RunPlan } from '../../schema/measured.js';
import type { LaunchFile, LaunchInput } from '../launch/types.js';
import type { EstimateResult } from '../estimate.js';

/** `name==version` lines of a requirements file (extras dropped): name -> version. */
export function pinsOf(requirements: string): Record<string, string> {
  const pins: Record<string, string> = {};
  for (const line of requirements.split(/\r?\n/)) {
    const m = /^\s*([A-Za-z0-9_.-]+)(\[[^\]]*\])?\s*==\s*([^\s;#]+)/.exec(line);
    if (m) pins[m[1]!] = m[3]!;
  }
  return pins;
}

export function runPlanOf(
  x: LaunchInput<EstimateResult>,
  engine: string,
  files: readonly LaunchFile[],
): RunPlan {
  const o = x.options;
  const e = x.estimate;
  const serving = o.method === 'inference';
  const requirements = files.find((f) => f.path === 'requirements.txt')?.content ?? '';
  const positive = (v: number | undefined) => (v !== undefined && v > 0 ? v : null);
  return {
    schema: RUN_PLAN_SCHEMA,
    model: { id: x.arch.id, hfId: x.arch.hfId ?? null, ref: x.modelRef },
    engine,
    flags: { ...flagsFromOptions(o), gpu: x.gpu.id },
    gradAccum: x.gradAccum,
    gpusPerNode: x.gpusPerNode ?? o.gpus,
    powerLimitW: x.powerLimitW,
    pins: pinsOf(requirements),
    estimate: {
      allocatedBytes: e.perGpu.allocatedBytes,
      reservedBytes: e.perGpu.reservedBytes,
      deviceBytes: e.perGpu.deviceBytes,
      // One optimizer step's tokens on one data-parallel rank: micro-batch x sequence x accumulation.
      tokensPerStep: o.batch * o.seq * (serving ? 1 : x.gradAccum),
      stepSeconds: serving ? null : positive(e.time?.stepSeconds),
      tokensPerSecondPerGpu: serving ? null : positive(e.time?.tokensPerSecondPerGpu),
      ttftSeconds: serving ? positive(e.time?.ttftSeconds) : null,
      tpotSeconds: serving ? positive(e.time?.tpotSeconds) : null,
      // Serving: the sequences one replica decodes at once (--batch is max-num-seqs / slots).
      concurrency: serving ? o.batch : null,
    },
  };
}

export const runPlanText = (plan: RunPlan): string => `${JSON.stringify(plan, null, 2)}\n`;
