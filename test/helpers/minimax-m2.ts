/** MiniMax-M2 served under attention TP, and what its full-width q/k norm's all-reduces add to a decode step's TP time. */
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { decodeTpSeconds } from '../../src/core/time/decode-tp.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { modelFacts, type ModelFacts } from '../../src/core/time/model-facts.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import type { EstimateOptions } from '../../src/schema/estimate.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

export const minimaxM2 = (): ModelFacts => modelFacts(resolveModel('minimax-m2'));

/** Four sequences of 2,000 tokens on `framework` over TP `tp`, with the engine's defaults. */
export const minimaxServedAt = (framework: 'vllm' | 'sglang', tp: number): EstimateOptions =>
  withEngineDefaults(
    optionsFromFlags({ method: 'inference', framework, batch: 4, seq: 2000, gpus: tp, tp }),
    { framework, gpus: tp, tp },
  );

/**
 * On `gpu` at TP 4: the TP seconds MiniMax-M2's norm adds over the same facts read as Mixtral (no such norm), and one
 * hidden-state all-reduce call of that plain step (its TP seconds over two calls a layer).
 */
export function qkNormAdded(
  m: ModelFacts,
  framework: 'vllm' | 'sglang',
  gpu: string,
): { added: number; layerCall: number } {
  const r = gpuRates(findGpu(gpu), defaultTimeOptions(4));
  const o = minimaxServedAt(framework, 4);
  const plain = { ...m, modelType: 'mixtral' };
  const base = decodeTpSeconds(plain, o, 4, r);
  return { added: decodeTpSeconds(m, o, 4, r) - base, layerCall: base / (2 * m.layers) };
}
