/** Every engine emitter over one LaunchInput, in a fixed order; pure (the command writes the files). */
import { emitAccelerate } from './accelerate.js';
import { emitAxolotl } from './axolotl.js';
import { emitDeepSpeed } from './deepspeed.js';
import { emitHfArgs, HF_ENGINE } from './hf.js';
import { emitPowerLimit } from './power.js';
import { emitTorchtune } from './torchtune.js';
import type { Engine } from '../../schema/engine.js';
import { engineOf } from '../engine.js';
import { emitGenerate, emitVllm } from './serve.js';
import type { EngineOutput, LaunchBundle, LaunchInput } from './types.js';

export type { EngineOutput, LaunchBundle, LaunchFile, LaunchInput, Sharding } from './types.js';
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
