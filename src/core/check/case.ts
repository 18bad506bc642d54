/**
 * A checked run as calibration rows in the shipped format (calibration/cases.json, schema/calibration.ts): one
 * row per memory figure measured (allocated, reserved, device), the plan's settings as contract flags, the
 * versions and the GPU in the notes. `vramplan validate --cases <file>` scores them. Pure.
 */
import type { CalibrationCase } from '../../schema/calibration.js';
import type { RunPlan } from '../../schema/measured.js';
import type { Observed } from './compare.js';

/** The config file name a case names for a model: its Hugging Face id with / as __ (calibration/configs/). */
export const caseConfigFile = (plan: RunPlan): string =>
  `${(plan.model.hfId ?? plan.model.id).replace(/\//g, '__')}.json`;

export function caseRows(
  plan: RunPlan,
  seen: Observed,
  meta: { date: string; probe: string },
): CalibrationCase[] {
  const metrics = [
    ['allocated', seen.allocatedBytes],
    ['reserved', seen.reservedBytes],
    ['device', seen.deviceBytes],
  ] as const;
  const versions = Object.entries(seen.versions)
    .filter(([, v]) => v !== null)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  const slug = plan.model.id.replace(/[^\w.-]+/g, '-').toLowerCase();
  return metrics
    .filter(([, bytes]) => bytes !== null && bytes > 0)
    .map(([metric, bytes]) => ({
      id: `user-${slug}-${metric}`,
      source: `measured by the user with vramplan check (${meta.probe}), ${meta.date}`,
      trust: 'user',
      model_hf_id: plan.model.hfId,
      config_file: caseConfigFile(plan),
      flags: plan.flags,
      metric,
      measured_bytes: bytes!,
      scorable: true,
      notes: [
        `engine ${plan.engine}`,
        seen.gpuName ? `GPU ${seen.gpuName}` : null,
        versions ? `versions: ${versions}` : null,
        plan.gradAccum > 1 ? `gradient accumulation ${plan.gradAccum}` : null,
        metric === 'device'
          ? "device = the largest rise in nvidia-smi used memory over the run's GPUs (peak minus before the run)"
          : `torch.cuda.max_memory_${metric}, largest rank`,
      ]
        .filter((x) => x !== null)
        .join('; '),
    }));
}
