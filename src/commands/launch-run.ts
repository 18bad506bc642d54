/** The launch command's body: parse → load model and GPU → estimate → emit engine files → write the folder. */
import { buildEstimate, type EstimateResult } from '../core/estimate.js';
import { existsSync } from 'node:fs';
import { basename, dirname, isAbsolute, resolve as resolvePath } from 'node:path';
import { z } from 'zod';
import {
  buildLaunch,
  bundleBlocked,
  type LaunchBundle,
  type LaunchInput,
} from '../core/launch/index.js';
import { plannedTokens } from '../core/launch/common.js';
import { modelRepo } from '../core/model/arch.js';
import { runsQueued } from '../core/plan/tps-memo.js';
import { heldPerGpu } from '../core/plan/admitted.js';
import { modelFacts } from '../core/time/model-facts.js';
import { launchedLoraOptions } from '../core/launch/modules.js';
import { badValue, UserError } from '../io/errors.js';
import { findGpu, loadOffers } from '../io/load-catalog.js';
import type { Offer } from '../schema/offer.js';
import { parseJsonInput, readInputText } from '../io/read-input.js';
import { resolveModel } from '../io/load-model.js';
import { writeLaunchFolder, type FolderFile } from '../io/write-dir-atomic.js';
import { planScenarioFile } from '../io/plan-scenario.js';
import { loadScenario, modelSpecOf } from '../io/load-scenario.js';
import { EstimateOptionsSchema, WEIGHT_DTYPES } from '../schema/estimate.js';
import { defaultTimeOptions, parsePowerLimit } from '../schema/time.js';
import {
  FlagError,
  checkCombination,
  estimateCommand,
  flagsFromOptions,
  optionsFromFlags,
  type RawFlags,
} from '../schema/flags.js';
import type { EstimateOptions, WeightDtype } from '../schema/estimate.js';
import type { Scenario } from '../schema/scenario.js';
import type { Gpu } from '../schema/gpu.js';
import { assertStructure } from '../core/model/index.js';
import { withEngineDefaults } from '../core/engines/defaults.js';
import { engineOf } from '../core/engines/engine.js';
import { notWritten } from '../core/engines/engines-runs.js';
import type { Sharding } from '../core/engines/profile.js';
import {
  shardingFramework,
  shardingFrameworks,
  shardingKinds,
} from '../core/engines/sharding-flag.js';
import type { Arch } from '../core/model/index.js';
import type { Plan } from '../core/plan/index.js';
import { renderLaunchReadme } from '../ui/launch-readme.js';
import { assertRunsOnGpu, imagesInto } from './estimate-run.js';
import { planCountText } from '../ui/plan-count.js';
import { formatDeviceMemory } from '../ui/format.js';
import { checkReadmeSection } from '../ui/check-readme.js';
import { runPlanOf, runPlanText } from '../core/check/index.js';
import { PROBE_FILE, PROBE_PY } from '../core/launch/probe-py.js';
import { POWER_FILE } from '../core/launch/power.js';
import { RUN_PLAN_FILE } from '../schema/measured.js';

export { loadLaunchers } from '../core/engines/registry.js';
export interface LaunchFlags {
  gradAccum: unknown;
  powerLimit: unknown;
  sharding: unknown;
  out: string;
  force: boolean;
  /** Move an existing --out aside as `<name>.old-<time>` instead of refusing. */
  keepOld?: boolean;
  /** `--offer <id>`: the catalog offer the flag form's GPUs are rented from (writes sky.yaml). */
  offer?: unknown;
}

/** The catalog offer `id` names (catalogs/offers/), or the one-line error for `field`. */
export function findOffer(field: string, id: unknown): Offer {
  const offers = loadOffers();
  const hit = offers.find((o) => o.id === id);
  if (!hit)
    throw badValue(
      field,
      id,
      "an offer id from catalogs/offers/ (e.g. 'lambda-h100-sxm-on-demand-8x')",
    );
  return hit;
}

/**
 * The power limits a card takes, in W: 30% of its board power (the lowest limit a scenario's
 * power.powerLimits allows) up to the board power itself; null where no board power is published.
 */
export function powerRange(gpu: Gpu): { min: number; max: number } | null {
  const MIN_FRACTION = 0.3;
  const board = gpu.boardPowerW;
  return board === null ? null : { min: Math.ceil(board * MIN_FRACTION), max: board };
}

/**
 * A power limit within the card's range, in W: `--power-limit` takes watts (`300W`, `300`) or a fraction
 * (`0.8`); a plan file's `powerLimitW` only watts. Else the one-line error for `field`.
 */
export function checkPowerLimit(
  field: string,
  limit: unknown,
  gpu: Gpu,
  wattsOnly = false,
): number {
  const range = powerRange(gpu);
  if (range === null)
    throw badValue(field, limit, `no power limit: the ${gpu.name} has no published board power`);
  const p = wattsOnly
    ? typeof limit === 'number'
      ? { watts: limit }
      : null
    : parsePowerLimit(limit);
  const n = p === null ? NaN : (p.watts ?? Math.round(p.fraction * range.max));
  if (!Number.isSafeInteger(n) || n < range.min || n > range.max)
    throw badValue(
      field,
      limit,
      wattsOnly
        ? `an integer from ${range.min} to ${range.max} (W: 30% to 100% of the ${gpu.name}'s board power)`
        : `watts from ${range.min} to ${range.max} (${range.min}W) or a fraction of the ${gpu.name}'s ${range.max} W board power from 0.3 to 1 (0.8)`,
    );
  return n;
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

/** `a`, `a and b`, `a, b and c`. */
const andList = (xs: readonly string[]): string =>
  xs.length < 2 ? xs.join('') : `${xs.slice(0, -1).join(', ')} and ${xs[xs.length - 1]!}`;

/**
 * LaunchInput from command-line flags (a ranked plan gives its own: launchInputOfPlan). `--sharding`
 * names the engine of a ZeRO plan (deepspeed: Trainer + DeepSpeed; fsdp: Accelerate FSDP: the engines whose
 * profile sets shardingFlag, engines/sharding-flag.ts), so the estimate in the README is that engine's
 * (`--framework deepspeed` is the same as `--sharding deepspeed`).
 */
export function launchInputFromFlags(
  model: string,
  flags: RawFlags,
  lf: LaunchFlags,
): LaunchInput<EstimateResult> {
  const parsed = withEngineDefaults(optionsFromFlags(flags), flags);
  if (typeof flags.gpu !== 'string')
    throw new UserError('--gpu: required for launch', "See 'vramplan catalog gpus' for ids.");
  const sharding = lf.sharding;
  const kinds: readonly unknown[] = shardingKinds();
  if (sharding !== undefined && !kinds.includes(sharding))
    throw badValue('--sharding', sharding, kinds.join(' or '));
  const frameworks = shardingFrameworks();
  if (sharding !== undefined && !frameworks.includes(parsed.framework))
    throw badValue(
      '--sharding',
      sharding,
      `no value with --framework ${parsed.framework} (it chooses between the ${andList(frameworks)} engines)`,
    );
  const gpu = findGpu(flags.gpu);
  const arch = resolveModel(model);
  // The LoRA targets the files adapt are the ones the README's estimate counts (launchedLoraOptions); --images
  // as estimate takes it: the tokens join the context, the tower is counted and llama.cpp loads its mmproj.
  const options = launchedLoraOptions(
    arch,
    sharding === undefined
      ? parsed
      : { ...parsed, framework: shardingFramework(sharding as Sharding, parsed.framework)! },
  );
  imagesInto(arch, options, flags);
  const gradAccum = positiveInt('grad-accum', lf.gradAccum, 1, 1_000_000) ?? 1;
  // What the engine runs but vramplan writes no files for (estimate models it): one line, no folder.
  const dp = options.gpus / (options.tp * options.pp * options.cp);
  const unwritten = notWritten(engineOf(options), options, dp, gradAccum);
  if (unwritten) throw new UserError(`--framework ${engineOf(options)}: ${unwritten}`);
  // The GPU the engine cannot run on, refused as estimate refuses it (nothing written).
  assertRunsOnGpu(engineOf(options), gpu, options);
  const powerLimitW =
    lf.powerLimit === undefined ? null : checkPowerLimit('--power-limit', lf.powerLimit, gpu);
  const offer = lf.offer === undefined ? undefined : findOffer('--offer', lf.offer);
  if (offer && offer.gpuId !== gpu.id)
    throw badValue(
      '--offer',
      lf.offer,
      `an offer of ${gpu.id} GPUs (--gpu); ${offer.id} rents ${offer.gpuId}`,
    );
  // Eight GPUs per machine, as the time model assumes without --gpus-per-node; a rented offer's node size.
  const gpusPerNode = Math.min(options.gpus, offer?.gpusPerNode ?? 8);
  // Timed as it will run: its accumulation, power cap and machine size (as launchInputOfPlan does).
  const time = {
    ...defaultTimeOptions(options.gpus),
    gradAccum,
    gpusPerNode,
    ...(powerLimitW !== null && gpu.boardPowerW
      ? { powerLimit: powerLimitW / gpu.boardPowerW }
      : {}),
  };
  return {
    arch,
    options,
    gpu,
    gradAccum,
    powerLimitW,
    estimate: buildEstimate(arch, options, gpu, time),
    modelRef: modelRepo(arch) ?? modelRefOf(model),
    gpusPerNode,
    ...(offer ? { offer } : {}),
  };
}

/**
 * What the launch files load (`model_name_or_path`, `base_model`): a path to a `config.json` names its
 * folder, which from_pretrained reads; anything else as given.
 */
export function modelRefOf(spec: string): string {
  return basename(spec) === 'config.json' && existsSync(spec) ? dirname(spec) : spec;
}

/** LaunchInput of a ranked plan: its own options (engine included), accumulation and power cap. */
export function launchInputOfPlan(
  plan: Plan,
  arch: Arch,
  modelRef: string,
  gpu: Gpu = findGpu(plan.hardware.gpuId),
  trainTokens?: number,
  haveCheckpoints?: readonly WeightDtype[],
): LaunchInput<EstimateResult> {
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
    ...(trainTokens === undefined ? {} : { trainTokens }),
    ...(haveCheckpoints === undefined ? {} : { haveCheckpoints }),
    ...offerOfPlan(plan),
  };
}

/** The weight formats a serving scenario says the user already holds checkpoints in (`job.haveCheckpoints`). */
export const haveCheckpointsOf = (s: Scenario): readonly WeightDtype[] | undefined =>
  s.job.kind === 'inference' ? s.job.haveCheckpoints : undefined;

/** The offer a plan rents (its hardware.offerId in catalogs/offers/), as a LaunchInput field. */
function offerOfPlan(plan: Plan): { offer?: Offer } {
  const id = plan.hardware.offerId ?? null;
  if (id === null || (plan.hardware.kind !== undefined && plan.hardware.kind !== 'rent')) return {};
  return { offer: findOffer('offerId', id) };
}

/**
 * The 1-based plan number `--plan` names among `count` ranked plans; `counted` says where the count comes
 * from (the plan count `plan` reports, ui/plan-count.ts).
 */
export function planNumber(v: unknown, count: number, counted = ''): number {
  const n = typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : NaN;
  if (count === 0) throw new UserError('--plan: no plan fits this scenario', undefined, 2);
  if (!Number.isSafeInteger(n) || n < 1 || n > count)
    throw badValue(
      '--plan',
      v,
      count === Infinity
        ? "a plan number from 1 (as ranked by 'vramplan plan')"
        : `a plan number from 1 to ${count} (${counted}as ranked by 'vramplan plan')`,
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
  const n = planNumber(planArg ?? '1', result.plans.length, `${planCountText(result)}, `);
  const scenario = loadScenario(file);
  const spec = modelSpecOf(file, scenario);
  const arch = resolveModel(spec, { flag: 'model' });
  const plan = result.plans[n - 1]!;
  const tokens = plannedTokens(scenario.job);
  return writeFolder(
    launchInputOfPlan(
      plan,
      arch,
      modelRepo(arch) ?? modelRefOf(spec),
      undefined,
      tokens,
      haveCheckpointsOf(scenario),
    ),
    lf,
  );
}

const exportedPlanSchema = z.object({
  scenario: z.object({
    model: z.string(),
    haveCheckpoints: z.array(z.enum(WEIGHT_DTYPES)).optional(),
    trainTokens: z.number().positive().optional(),
  }),
  plans: z.array(
    z.object({
      id: z.string(),
      options: EstimateOptionsSchema,
      choices: z.object({ gradAccum: z.number().int().min(1) }),
      hardware: z.object({
        kind: z.enum(['owned', 'rent', 'buy']).optional(),
        offerId: z.string().nullable().optional(),
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
  // The version `plan --json` writes; a file of another version may mean its fields differently.
  const version = (raw as { schemaVersion?: unknown } | null)?.schemaVersion;
  if (version !== undefined && version !== 1)
    throw badValue(
      `--from-plan: ${file}: schemaVersion`,
      version,
      "1 (the version 'vramplan plan --json' writes)",
    );
  const parsed = exportedPlanSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new UserError(
      `--from-plan: ${file}: ${fieldPath(issue.path) || '(root)'}: ${issue.message}; expected the JSON that 'vramplan plan --json' writes`,
    );
  }
  const { scenario, plans } = parsed.data;
  const n = planNumber(planArg ?? '1', plans.length);
  const beside = resolvePath(dirname(file), scenario.model);
  const spec = isAbsolute(scenario.model) || !existsSync(beside) ? scenario.model : beside;
  const arch = resolveModel(spec, { flag: `--from-plan: ${file}: scenario.model` });
  // A hand-edited file gets the checks flags get, naming the file's own fields.
  const gpus = plans.map((p, i) => checkedPlan(file, i, p, arch));
  const input = launchInputOfPlan(
    plans[n - 1] as unknown as Plan,
    arch,
    modelRepo(arch) ?? modelRefOf(spec),
    gpus[n - 1],
    // The tokens the scenario planned (plan --json's scenario.trainTokens): torchtitan's training.steps reads them.
    scenario.trainTokens,
    scenario.haveCheckpoints,
  );
  if (overGpu(input))
    throw new UserError(
      `--from-plan: ${file}: plans[${n - 1}] does not fit on ${input.gpu.name} when estimated again (${formatDeviceMemory(input.estimate.perGpu.deviceBytes)} of ${formatDeviceMemory(input.estimate.gpu?.capacityBytes ?? 0)} usable per GPU); nothing written`,
      `See why: ${estimateCommand(modelRepo(arch) ?? spec, input.options).replace(/^vramplan estimate/, 'vramplan explain --model')} --gpu ${input.gpu.id}`,
      2,
    );
  return writeFolder(input, lf);
}

/** A zod path as the file's field: `plans[0].options.tp`. */
const fieldPath = (path: readonly PropertyKey[]): string =>
  path
    .map((k, i) => (typeof k === 'number' ? `[${k}]` : `${i > 0 ? '.' : ''}${String(k)}`))
    .join('');

type ExportedPlan = z.infer<typeof exportedPlanSchema>['plans'][number];

/** camelCase option key of a flag (`lora-rank` → `loraRank`), as plans.json spells it. */
const optionKey = (flag: string): string =>
  flag.replace(/-(\w)/g, (_: string, c: string) => c.toUpperCase());

/** Plan `i` of a plans file through the checks its options get as flags; its GPU. */
function checkedPlan(file: string, i: number, p: ExportedPlan, arch: Arch): Gpu {
  const at = (field: string) => `--from-plan: ${file}: plans[${i}].${field}`;
  const o = p.options as EstimateOptions;
  try {
    // The flag form's checks: each value, every combination, then the model's own shape.
    assertStructure(arch, o);
    optionsFromFlags(flagsFromOptions(o));
    checkCombination(o);
  } catch (e) {
    if (e instanceof FlagError)
      throw badValue(at(`options.${optionKey(e.flag)}`), e.value, e.allowed);
    throw e;
  }
  let gpu: Gpu;
  try {
    gpu = findGpu(p.hardware.gpuId);
  } catch (e) {
    if (e instanceof UserError) throw new UserError(`${at('hardware.gpuId')}: ${e.message}`);
    throw e;
  }
  const offerId = p.hardware.offerId ?? null;
  if (offerId !== null) {
    const offer = loadOffers().find((x) => x.id === offerId);
    if (!offer)
      throw badValue(at('hardware.offerId'), offerId, 'an offer id from catalogs/offers/');
    if (offer.gpuId !== gpu.id)
      throw badValue(
        at('hardware.offerId'),
        offerId,
        `an offer of ${gpu.id} GPUs (hardware.gpuId)`,
      );
  }
  const MAX_ACCUM = 1_000_000;
  if (p.choices.gradAccum > MAX_ACCUM)
    throw badValue(
      at('choices.gradAccum'),
      p.choices.gradAccum,
      `an integer from 1 to ${MAX_ACCUM}`,
    );
  if (p.hardware.gpusPerNode > o.gpus)
    throw badValue(
      at('hardware.gpusPerNode'),
      p.hardware.gpusPerNode,
      `at most options.gpus (${o.gpus})`,
    );
  const f = p.hardware.powerLimitFraction;
  if (!(f >= 0.3 && f <= 1))
    throw badValue(at('hardware.powerLimitFraction'), f, 'a number from 0.3 to 1');
  if (f < 1) {
    const w = checkPowerLimit(at('hardware.powerLimitW'), p.hardware.powerLimitW, gpu, true);
    const expected = Math.round(f * (gpu.boardPowerW ?? 0));
    const TOLERANCE_W = 1;
    if (Math.abs(w - expected) > TOLERANCE_W)
      throw badValue(
        at('hardware.powerLimitW'),
        w,
        `${expected} (hardware.powerLimitFraction ${f} of the ${gpu.name}'s ${gpu.boardPowerW} W)`,
      );
  }
  return gpu;
}

export function runLaunch(model: string, flags: RawFlags, lf: LaunchFlags): number {
  return writeFolder(launchInputFromFlags(model, flags, lf), lf);
}

/**
 * The launch folder of one input: its README and the engine's files (scripts executable), and where the engine
 * wrote files, the run probe and the plan it is checked against (`vramplan check`, docs/check.md).
 */
export function launchFolder(input: LaunchInput<EstimateResult>): {
  bundle: LaunchBundle;
  files: FolderFile[];
} {
  const bundle = buildLaunch(input);
  const blocked = bundleBlocked(bundle);
  if (blocked !== null)
    throw new UserError(
      `launch: this plan cannot be launched (${blocked}); nothing written`,
      "Change the setting named, or launch another plan ('vramplan plan' ranks only launchable ones).",
    );
  const engineWrote = bundle.files.some((f) => f.path !== POWER_FILE);
  const probe: FolderFile[] = engineWrote
    ? [
        { path: PROBE_FILE, content: PROBE_PY, mode: 0o644 },
        {
          path: RUN_PLAN_FILE,
          content: runPlanText(runPlanOf(heldInput(input), bundle.engine, bundle.files)),
          mode: 0o644,
        },
      ]
    : [];
  const readme = renderLaunchReadme(input, bundle);
  const files: FolderFile[] = [
    { path: 'README.md', content: engineWrote ? readme + checkReadmeSection(bundle) : readme },
    ...bundle.files.map((f) => ({ ...f, mode: f.path.endsWith('.sh') ? 0o755 : 0o644 })),
    ...probe,
  ];
  return { bundle, files };
}

/**
 * Whether the estimate finds the plan over its GPU: its fit verdict, save a serving plan whose engine admits what
 * its KV pool holds and queues the rest, as the planner ranks it (plan/tps-memo.ts runsQueued).
 */
const overGpu = (input: LaunchInput<EstimateResult>): boolean =>
  input.estimate.fits === false &&
  !runsQueued(input.options, input.estimate.serving, modelFacts(input.arch));

/**
 * The run plan's input: a queued serving plan's memory as its engine holds it, the pool at the sequences it runs
 * (plan/admitted.ts heldPerGpu), which `check` compares the run's memory with; the input itself otherwise.
 */
const heldInput = (input: LaunchInput<EstimateResult>): LaunchInput<EstimateResult> =>
  input.estimate.fits === false && !overGpu(input)
    ? {
        ...input,
        estimate: {
          ...input.estimate,
          perGpu: heldPerGpu(input.arch, input.options, input.gpu, input.estimate),
        },
      }
    : input;

function writeFolder(input: LaunchInput<EstimateResult>, lf: LaunchFlags): number {
  const { bundle, files } = launchFolder(input);
  const { dir, keptAs } = writeLaunchFolder(files, lf.out, {
    force: lf.force,
    keepOld: lf.keepOld === true,
  });
  const skipped = bundle.outputs.filter((o) => !o.ok).length;
  process.stdout.write(
    `wrote ${files.length} files for ${bundle.engine} to ${dir}${skipped > 0 ? ` (${skipped} output${skipped > 1 ? 's' : ''} skipped: see README.md)` : ''}\n`,
  );
  for (const f of files) process.stdout.write(`  ${f.path}\n`);
  if (keptAs !== null) process.stdout.write(`kept the old folder as ${keptAs}\n`);
  if (overGpu(input))
    process.stdout.write(
      `warning: the plan does not fit on ${input.gpu.name}; run 'vramplan explain' with the same flags\n`,
    );
  return 0;
}
