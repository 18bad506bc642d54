/** The launch command's body: parse → load model and GPU → estimate → emit engine files → write the folder. */
import { buildEstimate } from '../core/estimate.js';
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, resolve as resolvePath } from 'node:path';
import { z } from 'zod';
import { buildLaunch, type LaunchBundle, type LaunchInput } from '../core/launch/index.js';
import { badValue, UserError } from '../io/errors.js';
import { findGpu } from '../io/load-catalog.js';
import { parseJsonInput, readInputText } from '../io/read-input.js';
import { resolveModel } from '../io/load-model.js';
import { writeLaunchFolder, type FolderFile } from '../io/write-dir-atomic.js';
import { planScenarioFile } from '../io/plan-scenario.js';
import { loadScenario, modelSpecOf } from '../io/load-scenario.js';
import { EstimateOptionsSchema } from '../schema/estimate.js';
import { defaultTimeOptions } from '../schema/time.js';
import { optionsFromFlags, type RawFlags } from '../schema/flags.js';
import { withEngineDefaults } from '../core/engines/defaults.js';
import type { Arch } from '../core/model/index.js';
import type { Plan } from '../core/plan/index.js';
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

/**
 * LaunchInput from command-line flags (a ranked plan gives its own: launchInputOfPlan). `--sharding`
 * names the engine of a ZeRO plan (deepspeed: Trainer + DeepSpeed; fsdp: Accelerate FSDP), so the
 * estimate in the README is that engine's (`--framework deepspeed` is the same as `--sharding deepspeed`).
 */
export function launchInputFromFlags(model: string, flags: RawFlags, lf: LaunchFlags): LaunchInput {
  const parsed = withEngineDefaults(optionsFromFlags(flags), flags);
  if (typeof flags.gpu !== 'string')
    throw new UserError('--gpu: required for launch', "See 'vramplan catalog gpus' for ids.");
  const sharding = lf.sharding;
  if (sharding !== undefined && sharding !== 'deepspeed' && sharding !== 'fsdp')
    throw badValue('--sharding', sharding, 'deepspeed or fsdp');
  if (sharding !== undefined && parsed.framework !== 'hf' && parsed.framework !== 'deepspeed')
    throw badValue(
      '--sharding',
      sharding,
      `no value with --framework ${parsed.framework} (it chooses between the hf and deepspeed engines)`,
    );
  const options =
    sharding === undefined
      ? parsed
      : {
          ...parsed,
          framework: sharding === 'deepspeed' ? ('deepspeed' as const) : ('hf' as const),
        };
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
    // Eight GPUs per machine, as the time model assumes without --gpus-per-node.
    gpusPerNode: Math.min(options.gpus, 8),
  };
}

/** LaunchInput of a ranked plan: its own options (engine included), accumulation and power cap. */
export function launchInputOfPlan(plan: Plan, arch: Arch, modelRef: string): LaunchInput {
  const gpu = findGpu(plan.hardware.gpuId);
  return {
    arch,
    options: plan.options,
    gpu,
    gradAccum: plan.choices.gradAccum,
    powerLimitW: plan.hardware.powerLimitFraction < 1 ? plan.hardware.powerLimitW : null,
    // Timed as planned: its accumulation, power cap and machine size.
    estimate: buildEstimate(arch, plan.options, gpu, {
      ...defaultTimeOptions(plan.options.gpus),
      gradAccum: plan.choices.gradAccum,
      powerLimit: plan.hardware.powerLimitFraction,
      gpusPerNode: plan.hardware.gpusPerNode,
    }),
    modelRef,
    gpusPerNode: plan.hardware.gpusPerNode,
  };
}

/** The 1-based plan number `--plan` names among `count` ranked plans. */
export function planNumber(v: unknown, count: number): number {
  const n = typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : NaN;
  if (count === 0) throw new UserError('--plan: no plan fits this scenario', undefined, 2);
  if (!Number.isSafeInteger(n) || n < 1 || n > count)
    throw badValue(
      '--plan',
      v,
      count === Infinity
        ? "a plan number from 1 (as ranked by 'vramplan plan')"
        : `a plan number from 1 to ${count} (as ranked by 'vramplan plan')`,
    );
  return n;
}

/** `launch <scenario> --plan N`: plan the scenario as `plan` does and write plan N's folder. */
export async function runLaunchScenario(
  file: string,
  planArg: unknown,
  lf: LaunchFlags,
): Promise<number> {
  const wanted = planNumber(planArg ?? '1', Infinity);
  const result = await planScenarioFile(file, { top: Math.max(10, wanted) });
  const n = planNumber(planArg ?? '1', result.plans.length);
  const scenario = loadScenario(file);
  const spec = modelSpecOf(file, scenario);
  const arch = resolveModel(spec, { flag: 'model' });
  return writeFolder(launchInputOfPlan(result.plans[n - 1]!, arch, arch.hfId ?? spec), lf);
}

const exportedPlanSchema = z.object({
  scenario: z.object({ model: z.string() }),
  plans: z.array(
    z.object({
      id: z.string(),
      options: EstimateOptionsSchema,
      choices: z.object({ gradAccum: z.number().int().min(1) }),
      hardware: z.object({
        gpuId: z.string(),
        gpusPerNode: z.number().int().min(1),
        powerLimitFraction: z.number(),
        powerLimitW: z.number(),
      }),
    }),
  ),
});

/** `launch --from-plan plans.json --plan N`: a plan from an exported `plan --json` / `--out x.json` file. */
export function runLaunchFromPlan(file: string, planArg: unknown, lf: LaunchFlags): number {
  let raw: unknown;
  try {
    raw = parseJsonInput(file, readInputText(file));
  } catch (e) {
    if (e instanceof UserError) throw new UserError(`--from-plan: ${e.message}`);
    throw e;
  }
  const parsed = exportedPlanSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UserError(
      `--from-plan: ${file}: ${issue.path.join('.') || '(root)'}: ${issue.message}; expected the JSON that 'vramplan plan --json' writes`,
    );
  }
  const { scenario, plans } = parsed.data;
  const n = planNumber(planArg ?? '1', plans.length);
  const beside = resolvePath(dirname(file), scenario.model);
  const spec = isAbsolute(scenario.model) || !existsSync(beside) ? scenario.model : beside;
  const arch = resolveModel(spec, { flag: 'model' });
  return writeFolder(
    launchInputOfPlan(plans[n - 1] as unknown as Plan, arch, arch.hfId ?? spec),
    lf,
  );
}

export function runLaunch(model: string, flags: RawFlags, lf: LaunchFlags): number {
  return writeFolder(launchInputFromFlags(model, flags, lf), lf);
}

/** The launch folder of one input: its README and the engine's files (scripts executable). */
export function launchFolder(input: LaunchInput): { bundle: LaunchBundle; files: FolderFile[] } {
  const bundle = buildLaunch(input);
  const files: FolderFile[] = [
    { path: 'README.md', content: renderLaunchReadme(input, bundle) },
    ...bundle.files.map((f) => ({ ...f, mode: f.path.endsWith('.sh') ? 0o755 : 0o644 })),
  ];
  return { bundle, files };
}

function writeFolder(input: LaunchInput, lf: LaunchFlags): number {
  const { bundle, files } = launchFolder(input);
  const dir = writeLaunchFolder(files, lf.out, lf.force);
  const skipped = bundle.outputs.filter((o) => !o.ok).length;
  process.stdout.write(
    `wrote ${files.length} files for ${bundle.engine} to ${dir}${skipped > 0 ? ` (${skipped} output${skipped > 1 ? 's' : ''} skipped: see README.md)` : ''}\n`,
  );
  for (const f of files) process.stdout.write(`  ${f.path}\n`);
  if (input.estimate.fits === false)
    process.stdout.write(
      `warning: the plan does not fit on ${input.gpu.name}; run 'vramplan explain' with the same flags\n`,
    );
  return 0;
}
