/** The estimate command's body: parse flags → load model and GPU → estimate → print. */
import { buildEstimate } from '../core/estimate.js';
import { findGpu } from '../io/load-catalog.js';
import { resolveModel } from '../io/load-model.js';
import { optionsFromFlags, type RawFlags } from '../schema/flags.js';
import { renderEstimateText } from '../ui/estimate-text.js';

export function runEstimate(model: string, flags: RawFlags, json: boolean): number {
  const options = optionsFromFlags(flags);
  const gpu = typeof flags.gpu === 'string' ? findGpu(flags.gpu) : undefined;
  const arch = resolveModel(model);
  const result = buildEstimate(arch, options, gpu);
  process.stdout.write(
    json ? `${JSON.stringify(result, null, 2)}\n` : `${renderEstimateText(result)}\n`,
  );
  return 0;
}
