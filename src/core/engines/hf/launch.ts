/** The launcher of the Hugging Face engines: Trainer/TRL args, Accelerate (DDP/FSDP), DeepSpeed, axolotl. */
import { emitAccelerate } from './accelerate.js';
import { emitAxolotl } from './axolotl.js';
import { emitDeepSpeed } from './deepspeed.js';
import { distributionBlocker } from './distribution.js';
import { emitHfArgs, expertZero3Blocker, HF_ENGINE, trainerOptim } from './trainer.js';
import { shardingOf } from '../../launch/common.js';
import type { EngineLauncher } from '../def.js';
import {
  serverLaunchScript,
  serverModeBlocker,
  trainerInput,
  trlObjectiveBlocker,
} from './trl-objective.js';
import type { EngineOutput, LaunchInput, LaunchPlan } from '../../launch/types.js';

/**
 * Why the HF stack cannot write the plan: its distribution (DDP/FSDP/ZeRO), the Trainer's optimizer names, or
 * LoRA on fused experts under ZeRO-3 (the args file refuses it: trainer.ts expertZero3Blocker).
 */
function hfBlocker(x: LaunchPlan): string | null {
  const t = trainerInput(x);
  const blocker = distributionBlocker(t);
  if (blocker) return blocker;
  const opt = trainerOptim(x.options);
  if ('reason' in opt) return opt.reason;
  const zero3 = x.options.zero === 3 && shardingOf(t) === 'deepspeed';
  return (zero3 ? expertZero3Blocker(t, { kind: 'deepspeed' }) : null) ?? trlObjectiveBlocker(x);
}

/**
 * The emitters over the trainers' GPUs (GRPO server mode: the vLLM server's are not Accelerate's), with
 * launch.sh starting `trl vllm-serve` first in server mode; axolotl.yaml beside them (its `rl:` keys for a
 * preference / RL objective: axolotl-rl.ts).
 */
function emitTrl(x: LaunchInput, emitters: ((x: LaunchInput) => EngineOutput)[]): EngineOutput[] {
  const t = trainerInput(x);
  const outputs = withArgs([...emitters.map((e) => e(t)), emitAxolotl(t)]);
  const server = serverModeBlocker(x);
  if (server) return [{ engine: HF_ENGINE, ok: false, reason: server }];
  if (x.options.rollout !== 'vllm-server') return outputs;
  return outputs.map((out) =>
    out.ok
      ? {
          ...out,
          files: out.files.map((f) =>
            f.path === 'launch.sh' ? serverLaunchScript(x, trainCommandOf(f.content)) : f,
          ),
        }
      : out,
  );
}

/** The trainers' command of a one-machine launch.sh (its `accelerate launch` line). */
const trainCommandOf = (script: string): string =>
  script.split('\n').find((l) => l.startsWith('accelerate launch')) ?? '';

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
  emit: (x: LaunchInput) => emitTrl(x, [emitAccelerate, emitHfArgs]),
  blocker: hfBlocker,
};

/** DeepSpeed ZeRO: its JSON first, then the same Trainer stack. */
export const HF_DEEPSPEED_LAUNCHER: EngineLauncher = {
  emit: (x: LaunchInput) => emitTrl(x, [emitDeepSpeed, emitAccelerate, emitHfArgs]),
  blocker: hfBlocker,
};
