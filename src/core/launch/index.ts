/** Every engine emitter over one LaunchInput, in a fixed order; pure (the command writes the files). */
import { emitAccelerate } from './accelerate.js';
import { emitAxolotl } from './axolotl.js';
import { emitDeepSpeed } from './deepspeed.js';
import { emitHfArgs } from './hf.js';
import { emitPowerLimit } from './power.js';
import { emitTorchtune } from './torchtune.js';
import type { LaunchBundle, LaunchInput } from './types.js';

export type { EngineOutput, LaunchBundle, LaunchFile, LaunchInput, Sharding } from './types.js';
export { planSummary } from './common.js';

/** All engine outputs; an engine whose file would misstate the plan reports why instead of writing it. */
export function buildLaunch(x: LaunchInput): LaunchBundle {
  const outputs = [
    emitDeepSpeed(x),
    emitAccelerate(x),
    emitHfArgs(x),
    emitTorchtune(x),
    emitAxolotl(x),
    emitPowerLimit(x),
  ];
  // A launch script that runs train.py needs the args file it reads.
  const hfOk = outputs[2]?.ok === true;
  const fixed = outputs.map((out) =>
    out.engine === 'Hugging Face Accelerate' && out.ok && !hfOk
      ? { ...out, files: out.files.filter((f) => f.path !== 'launch.sh') }
      : out,
  );
  const files = fixed.flatMap((out) => (out.ok ? out.files : []));
  return { outputs: fixed, files };
}
