/** The launcher of the Hugging Face engines: Trainer/TRL args, Accelerate (DDP/FSDP), DeepSpeed, axolotl. */
import { emitAccelerate } from './accelerate.js';
import { emitAxolotl } from './axolotl.js';
import { emitDeepSpeed } from './deepspeed.js';
import { distributionBlocker } from './distribution.js';
import { emitHfArgs, HF_ENGINE, trainerOptim } from './trainer.js';
import type { EngineLauncher } from '../def.js';
import type { EngineOutput, LaunchInput, LaunchPlan } from '../../launch/types.js';

/** Why the HF stack cannot write the plan: its distribution (DDP/FSDP/ZeRO) or the Trainer's optimizer names. */
function hfBlocker(x: LaunchPlan): string | null {
  const blocker = distributionBlocker(x);
  if (blocker) return blocker;
  const opt = trainerOptim(x.options);
  return 'reason' in opt ? opt.reason : null;
}

/** The outputs, less Accelerate's launch.sh when the args file that train.py reads could not be written. */
function withArgs(outputs: EngineOutput[]): EngineOutput[] {
  const hfOk = outputs.some((o) => o.engine === HF_ENGINE && o.ok);
  return outputs.map((out) =>
    out.engine === 'Hugging Face Accelerate' && out.ok && !hfOk
      ? { ...out, files: out.files.filter((f) => f.path !== 'launch.sh') }
      : out,
  );
}

/** Trainer (one process / DDP) and FSDP: Accelerate, the Trainer's args and axolotl (same Trainer stack). */
export const HF_LAUNCHER: EngineLauncher = {
  emit: (x: LaunchInput) => withArgs([emitAccelerate(x), emitHfArgs(x), emitAxolotl(x)]),
  blocker: hfBlocker,
};

/** DeepSpeed ZeRO: its JSON first, then the same Trainer stack. */
export const HF_DEEPSPEED_LAUNCHER: EngineLauncher = {
  emit: (x: LaunchInput) =>
    withArgs([emitDeepSpeed(x), emitAccelerate(x), emitHfArgs(x), emitAxolotl(x)]),
  blocker: hfBlocker,
};
