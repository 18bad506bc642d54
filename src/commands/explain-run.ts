/** The explain command's body: parse → load model and GPU → explainFit → print. */
import { explainFit } from '../core/plan/index.js';
import { withEngineDefaults } from '../core/engines/defaults.js';
import { assertEngineStructure, estimatedAs } from '../core/engines/context.js';
import { engineOf } from '../core/engines/engine.js';
import { UserError } from '../io/errors.js';
import { findGpu } from '../io/load-catalog.js';
import { resolveModel } from '../io/load-model.js';
import { optionsFromFlags, type RawFlags } from '../schema/flags.js';
import { timeOptionsFromFlags } from '../schema/time.js';
import { renderExplainText } from '../ui/explain-text.js';

export function runExplain(model: string, flags: RawFlags, json: boolean): number {
  const options = withEngineDefaults(optionsFromFlags(flags), flags);
  if (typeof flags.gpu !== 'string')
    throw new UserError('--gpu: required for explain', "See 'vramplan catalog gpus' for ids.");
  const gpu = findGpu(flags.gpu);
  const arch = resolveModel(model);
  // The engine bounds the context: past the model's positions where it scales RoPE itself (context.ts).
  estimatedAs(arch, options, engineOf(options));
  assertEngineStructure(arch, options, engineOf(options));
  const e = explainFit(arch, options, gpu, timeOptionsFromFlags(flags, options, gpu.boardPowerW));
  process.stdout.write(json ? `${JSON.stringify(e, null, 2)}\n` : `${renderExplainText(e)}\n`);
  return 0;
}
