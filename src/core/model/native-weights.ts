/** The format a checkpoint ships in, as the contract names weights. */
import type { WeightDtype } from '../../schema/estimate.js';
import type { Arch } from './arch.js';

/** The contract weight type a checkpoint ships in (config.json quantization_config), or null (float). */
export function nativeWeights(arch: Arch): WeightDtype | null {
  const q = arch.quant;
  if (!q) return null;
  if (q.method === 'mxfp4') return 'mxfp4';
  if (q.method === 'fp8') return 'fp8';
  if ((q.method === 'awq' || q.method === 'gptq') && q.bits === 4) return 'int4';
  if (q.method === 'bitsandbytes-4bit') return 'nf4';
  return null;
}
