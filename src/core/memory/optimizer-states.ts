/** Optimizer state and optimizer-step temporaries per optimizer, per trainable parameter. */
import type { Arch } from '../model/arch.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import type { FrameworkProfile } from './frameworks.js';
import { FLOAT_BYTES } from '../model/dtypes.js';
import { adapterBytes } from './framework-profile.js';
import { stochasticallyRounded } from '../engines/engines.js';
import { matrices, OPTIMIZER_PROFILES } from '../engines/optimizers.js';

/**
 * Bytes of one optimizer state value: --optimizer-states, except for adapters the engine keeps 16-bit (adapterBytes
 * 2: kbitTrainableBf16) stepped with no fp32 master by an optimizer that makes its states like the parameter
 * (statesLikeParams): those states take the adapters' width (test/fixtures/trl-kbit-dtypes.json after_one_step).
 */
export function stateValueBytes(
  o: EstimateOptions,
  fw: FrameworkProfile,
  quantized: boolean,
  fullModel: boolean,
): number {
  const s = FLOAT_BYTES[o.optimizerStates];
  const stepsMaster = o.masterWeights || fw.deepspeedOptimizer;
  if (fullModel || stepsMaster || OPTIMIZER_PROFILES[o.optimizer].statesLikeParams !== true)
    return s;
  return Math.min(s, adapterBytes(fw, quantized, o.zero) ?? s);
}

/** Optimizer state bytes for `n` trainable params (and the arch for shape-aware optimizers); `s`: one value's bytes. */
export function optimizerStateBytes(
  o: EstimateOptions,
  n: number,
  arch: Arch,
  fullModel: boolean,
  s: number = FLOAT_BYTES[o.optimizerStates],
): number {
  return OPTIMIZER_PROFILES[o.optimizer].stateBytes(s, {
    n,
    arch,
    fullModel,
  });
}

/** Largest single parameter tensor (elements). */
export function largestTensor(arch: Arch): number {
  let m = 0;
  for (const [r, c] of matrices(arch)) m = Math.max(m, r * c);
  return m;
}

/** Temporaries of one optimizer step, bytes (per process, before sharding). */
export function stepTemporaryBytes(
  o: EstimateOptions,
  fw: FrameworkProfile,
  n: number,
  largest: number,
  s: number = FLOAT_BYTES[o.optimizerStates],
): number {
  // torchao's AdamW8bit (launched for pure-bf16 full fine-tunes with stochastic rounding) keeps both
  // states of the parameter being stepped in fp32 for its update (torchao/optim/adam.py single_param_adam,
  // "keep high precision copy for param update", v0.10.0): 8 B per element of the largest parameter.
  if (stochasticallyRounded(o)) return 2 * 4 * largest;
  return OPTIMIZER_PROFILES[o.optimizer].stepTemporaries(s, {
    n,
    largest,
    adamImpl: fw.adamImpl,
    inBackward: o.optimizerInBackward,
  });
}
