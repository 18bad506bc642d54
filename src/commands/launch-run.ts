/** The launch command's body: parse → load model and GPU → estimate → emit engine files → write the folder. */
import { buildEstimate } from '../core/estimate.js';
import { buildLaunch, type LaunchInput, type Sharding } from '../core/launch/index.js';
import { badValue, UserError } from '../io/errors.js';
import { findGpu } from '../io/load-catalog.js';
import { resolveModel } from '../io/load-model.js';
import { writeLaunchFolder, type FolderFile } from '../io/write-dir-atomic.js';
import { optionsFromFlags, type RawFlags } from '../schema/flags.js';
import { renderLaunchReadme } from '../ui/launch-readme.js';

export interface LaunchFlags {
  gradAccum: unknown;
  powerLimit: unknown;
  sharding: unknown;
  out: string;
  force: boolean;
}

function positiveInt(
  flag: string,
  v: unknown,
  fallback: number | null,
  max: number,
): number | null {
  if (v === undefined) return fallback;
  const n = typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n) || n < 1 || n > max)
    throw badValue(`--${flag}`, v, `an integer from 1 to ${max}`);
  return n;
}

const MAX_WATTS = 2000;

/** LaunchInput from command-line flags (the planner builds it from a ranked plan instead). */
export function launchInputFromFlags(model: string, flags: RawFlags, lf: LaunchFlags): LaunchInput {
  const options = optionsFromFlags(flags);
  if (typeof flags.gpu !== 'string')
    throw new UserError('--gpu: required for launch', "See 'vramplan catalog gpus' for ids.");
  const sharding = lf.sharding ?? 'deepspeed';
  if (sharding !== 'deepspeed' && sharding !== 'fsdp')
    throw badValue('--sharding', sharding, 'deepspeed or fsdp');
  const gpu = findGpu(flags.gpu);
  const arch = resolveModel(model);
  return {
    arch,
    options,
    gpu,
    gradAccum: positiveInt('grad-accum', lf.gradAccum, 1, 1_000_000) ?? 1,
    powerLimitW: positiveInt('power-limit', lf.powerLimit, null, MAX_WATTS),
    estimate: buildEstimate(arch, options, gpu),
    modelRef: arch.hfId ?? model,
    sharding: sharding as Sharding,
  };
}

export function runLaunch(model: string, flags: RawFlags, lf: LaunchFlags): number {
  const input = launchInputFromFlags(model, flags, lf);
  const bundle = buildLaunch(input);
  const files: FolderFile[] = [
    { path: 'README.md', content: renderLaunchReadme(input, bundle) },
    ...bundle.files.map((f) => ({ ...f, mode: f.path.endsWith('.sh') ? 0o755 : 0o644 })),
  ];
  const dir = writeLaunchFolder(files, lf.out, lf.force);
  const skipped = bundle.outputs.filter((o) => !o.ok).length;
  process.stdout.write(
    `wrote ${files.length} files to ${dir}${skipped > 0 ? ` (${skipped} engine${skipped > 1 ? 's' : ''} skipped: see README.md)` : ''}\n`,
  );
  if (input.estimate.fits === false)
    process.stdout.write(
      `warning: the plan does not fit on ${input.gpu.name}; run 'vramplan explain' with the same flags\n`,
    );
  return 0;
}
