/** Every engine emitter over one LaunchInput, in a fixed order; pure (the command writes the files). */
import { emitAccelerate } from '../engines/hf/accelerate.js';
import { emitAxolotl } from '../engines/hf/axolotl.js';
import { emitDeepSpeed } from '../engines/hf/deepspeed.js';
import { emitHfArgs, HF_ENGINE, trainerOptim } from '../engines/hf/trainer.js';
import { emitPowerLimit } from './power.js';
import { emitTorchtune, torchtuneBlocker } from '../engines/torchtune/launch.js';
import type { Engine } from '../../schema/engine.js';
import { engineOf } from '../engines/engine.js';
import { distributionBlocker } from '../engines/hf/distribution.js';
import { ENGINE_PROFILES } from '../engines/engines.js';
import { forbiddenBy, ruleReason } from '../engines/rules.js';
import { ruleInputOf } from '../engines/hf/rules.js';
import { emitGenerate, emitVllm, generateBlocker, vllmBlocker } from '../engines/vllm/launch.js';
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
  const outputs = [...emittersOf(engine).map((emit) => emit(x)), emitPowerLimit(x)];
  // A launch script that runs train.py needs the args file it reads.
  const hfOk = outputs.some((o) => o.engine === HF_ENGINE && o.ok);
  const fixed = outputs.map((out) =>
    out.engine === 'Hugging Face Accelerate' && out.ok && !hfOk
      ? { ...out, files: out.files.filter((f) => f.path !== 'launch.sh') }
      : out,
  );
  const files = fixed.flatMap((out) => (out.ok ? out.files : []));
  return { engine, outputs: fixed, files };
}

type Emitter = (x: LaunchInput) => EngineOutput;

/**
 * Why vramplan's launcher for the plan's engine cannot write `x` as planned (the same checks its emitters
 * make), or null. The planner prunes such plans, so every ranked plan launches. Engines vramplan writes no
 * files for (torchtitan, LitGPT, Unsloth) are not judged here.
 */
export function launchBlocker(x: LaunchPlan): string | null {
  const o = x.options;
  switch (engineOf(o)) {
    case 'hf-trainer':
    case 'hf-fsdp':
    case 'hf-deepspeed': {
      const blocker = distributionBlocker(x);
      if (blocker) return blocker;
      // The engine's forbid rules (engines/hf/rules.ts); the plan's accumulation is not known here (1).
      const rule = forbiddenBy(ENGINE_PROFILES[engineOf(o)].rules, ruleInputOf(x));
      if (rule) return ruleReason(rule);
      const opt = trainerOptim(o);
      return 'reason' in opt ? opt.reason : null;
    }
    case 'torchtune':
      return torchtuneBlocker(x);
    case 'vllm':
      return vllmBlocker(o);
    case 'hf-generate':
      return generateBlocker(o);
    default:
      return null;
  }
}

/** Which emitters write an engine's run: axolotl drives the same Trainer/Accelerate/DeepSpeed stack. */
function emittersOf(engine: Engine): Emitter[] {
  switch (engine) {
    case 'hf-trainer':
    case 'hf-fsdp':
      return [emitAccelerate, emitHfArgs, emitAxolotl];
    case 'hf-deepspeed':
      return [emitDeepSpeed, emitAccelerate, emitHfArgs, emitAxolotl];
    case 'torchtune':
      return [emitTorchtune];
    case 'vllm':
      return [emitVllm];
    case 'hf-generate':
      return [emitGenerate];
    case 'torchtitan':
    case 'litgpt':
    case 'unsloth':
      return [
        () => ({
          engine,
          ok: false,
          reason: `vramplan writes no ${engine} config yet: run the plan's settings by hand (README)`,
        }),
      ];
  }
}
