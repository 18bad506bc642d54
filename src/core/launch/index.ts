/**
 * Every engine's launcher over one LaunchInput (engines/store.ts); pure (the command writes the files). The
 * launchers are imported on demand: callers await `loadLaunchers()` (engines/registry.ts) first.
 */
import { POWER_ENGINE, emitPowerLimit } from './power.js';
import { SKY_ENGINE, emitSkyPilot } from './skypilot.js';
import type { Engine } from '../../schema/engine.js';
import { trainingGpus } from '../../schema/estimate.js';
import { engineOf } from '../engines/engine.js';
import { engineDef, launcherOf } from '../engines/store.js';
import { gpuRefusal } from '../engines/gpu-refusal.js';
import {
  changesFor,
  forbiddenBy,
  ruleReason,
  type Rule,
  type RuleInput,
} from '../engines/rules.js';
import type { EngineOutput, LaunchBundle, LaunchInput, LaunchPlan } from './types.js';

export type {
  EngineOutput,
  LaunchBundle,
  LaunchFile,
  LaunchInput,
  LaunchPlan,
  Sharding,
} from './types.js';
export { planSummary } from './common.js';

/**
 * The files of the plan's engine (engineOf(options): the engine its memory and time were modelled for),
 * and nothing for any other engine; an emitter whose file would misstate the plan reports why instead.
 */
export function buildLaunch(x: LaunchInput): LaunchBundle {
  const engine = engineOf(x.options);
  const launcher = launcherOf(engine);
  // No launcher, or a behaviour rule the plan breaks: one reason instead of files (the emitters report
  // their own checks, per file).
  const rule = ruleBroken({ ...x, accum: x.gradAccum });
  const why = !launcher
    ? noLauncher(engine)
    : rule
      ? ruleReason(rule, ruleInput({ ...x, accum: x.gradAccum }))
      : (gpuBlocker(engine, x.gpu, x.options) ?? objectiveBlocker(x, engine));
  const outputs: EngineOutput[] =
    why !== null || !launcher ? [{ engine, ok: false, reason: why ?? '' }] : launcher.emit(x);
  outputs.push(emitPowerLimit(x));
  const sky = rentedTask(x, outputs);
  if (sky) outputs.push(sky);
  const files = outputs.flatMap((out) => (out.ok ? out.files : []));
  return { engine, outputs, files };
}

/**
 * What a rented plan's task runs and installs, once the engine wrote its files: serve.sh (serving) or launch.sh
 * (training) with requirements.txt, else the first engine command with the requirements file it names; null when
 * the engine wrote nothing a machine can run unattended.
 */
export function rentedRun(
  outputs: readonly EngineOutput[],
): { command: string; requirements: string | null } | null {
  const written = outputs.filter(
    (o) => o.ok && o.engine !== POWER_ENGINE && o.engine !== SKY_ENGINE,
  );
  const files = written.flatMap((o) => (o.ok ? o.files : []));
  const has = (path: string): boolean => files.some((f) => f.path === path);
  const plain = has('requirements.txt') ? 'requirements.txt' : null;
  const script = ['serve.sh', 'launch.sh'].find(has);
  if (script) return { command: `bash ${script}`, requirements: plain };
  const out = written.find((o) => o.ok && o.command !== undefined);
  if (!out?.ok || out.command === undefined) return null;
  return { command: out.command, requirements: out.setup ?? plain };
}

/**
 * A rented plan's SkyPilot task (skypilot.ts): rentedRun's command and requirements, the serving ports;
 * null for owned GPUs or when the engine wrote nothing a machine can run unattended.
 */
function rentedTask(x: LaunchInput, outputs: readonly EngineOutput[]): EngineOutput | null {
  if (!x.offer) return null;
  const run = rentedRun(outputs);
  if (!run) return null;
  const written = outputs.filter((o) => o.ok && o.engine !== POWER_ENGINE);
  const ports = written.flatMap((o) => (o.ok ? (o.ports ?? []) : []));
  const resumes = written.some((o) => o.ok && o.resumes === true);
  return emitSkyPilot(x, { offer: x.offer, ports, resumes, ...run });
}

/** Why a bundle holds no engine's files (every engine output refused the plan), or null. */
export function bundleBlocked(b: LaunchBundle): string | null {
  const engines = b.outputs.filter((o) => o.engine !== POWER_ENGINE && o.engine !== SKY_ENGINE);
  if (engines.some((o) => o.ok)) return null;
  return engines.map((o) => `${o.engine}: ${o.ok ? '' : o.reason}`).join('; ');
}

const noLauncher = (engine: Engine): string => `vramplan writes no ${engine} launch files`;

/**
 * Preference and RL trainers are written where the engine's launcher says so (`objectives`: the Hugging Face
 * engines' TRL trainers, engines/hf/trl-objective.ts; Unsloth's DPO/GRPO; torchtune's LoRA DPO); the other
 * launchers write SFT (and serving) runs.
 */
const objectiveBlocker = (x: LaunchPlan, engine: Engine): string | null => {
  const objective = x.options.objective ?? 'sft';
  if (objective === 'sft') return null;
  const written = engineDef(engine).launcher?.objectives ?? [];
  if (written.includes(objective)) return null;
  const runs = ['SFT', ...written.map((w) => w.toUpperCase())].join('/');
  return `vramplan writes no ${objective.toUpperCase()} launch files for ${engine} yet (its memory and time are estimated; its launcher writes ${runs} runs)`;
};

/** Whether vramplan writes files for `engine` (only such engines are searched and ranked). */
export const launchable = (engine: Engine): boolean => engineDef(engine).launcher !== null;

const ruleInput = (x: LaunchPlan): RuleInput => {
  const o = x.options;
  // GRPO server mode: the trainers' data parallel (the vLLM server's GPUs do not train).
  return {
    arch: x.arch,
    options: o,
    dp: trainingGpus(o) / (o.tp * o.pp * o.cp),
    accum: x.accum ?? 1,
  };
};

/** The `forbid` rule of the plan's engine that the plan breaks, or null. */
export const ruleBroken = (x: LaunchPlan): Rule | null =>
  forbiddenBy(engineDef(engineOf(x.options)).profile.rules, ruleInput(x));

/** The `change` rules of the plan's engine that its launcher works around for this plan. */
export const rulesChanging = (x: LaunchPlan): Rule[] =>
  changesFor(engineDef(engineOf(x.options)).profile.rules, ruleInput(x));

/**
 * Why vramplan's launcher for the plan's engine cannot write `x` as planned: no launcher, a behaviour rule
 * of the engine's libraries, or the emitters' own checks; null when it can. The planner prunes such plans,
 * so every ranked plan launches. `engine`: engineOf(x.options), when the caller knows it.
 */
export function launchBlocker(x: LaunchPlan, engine: Engine = engineOf(x.options)): string | null {
  const launcher = launcherOf(engine);
  if (!launcher) return noLauncher(engine);
  const input = ruleInput(x);
  const rule = forbiddenBy(engineDef(engine).profile.rules, input);
  if (rule) return ruleReason(rule, input);
  const gpu = 'gpu' in x ? (x as Partial<LaunchInput>).gpu : undefined;
  return gpuBlocker(engine, gpu, x.options) ?? objectiveBlocker(x, engine) ?? launcher.blocker(x);
}

/**
 * Why `engine` cannot run on `gpu`, or null (engines/gpu-refusal.ts: the pinned torch's ROCm targets, the Apple GPU
 * path of the engine, of its quantization on the run's weights or of the training run's optimizer). The planner's hardware gate asks the same where a plan has no
 * GPU yet; `estimate --gpu` refuses with the same reasons.
 */
export function gpuBlocker(
  engine: Engine,
  gpu: LaunchInput['gpu'] | undefined,
  o: Pick<LaunchInput['options'], 'method' | 'optimizer' | 'weights' | 'liger' | 'chunkedLoss'>,
): string | null {
  return gpu ? (gpuRefusal(engine, gpu, o)?.why ?? null) : null;
}
