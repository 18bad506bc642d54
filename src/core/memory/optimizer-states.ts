/** Optimizer state and optimizer-step temporaries per optimizer, per trainable parameter. */
import type { Arch } from '../model/arch.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import type { FrameworkProfile } from './frameworks.js';
import { FLOAT_BYTES } from '../model/dtypes.js';
import { stepsFp32Master, trainableElementBytes, type WidthContext } from './trainable-width.js';
import { stochasticallyRounded } from '../engines/engines.js';
import { matrices, OPTIMIZER_PROFILES } from '../engines/optimizers.js';

/**
 * Bytes of one optimizer state value: --optimizer-states, except for adapters stepped with no fp32 master by an
 * optimizer that makes its states like the parameter (statesLikeParams): those states take the adapters' width
 * (trainable-width.ts trainableElementBytes), 16-bit where the engine keeps them so (kbitTrainableBf16:
 * test/fixtures/trl-kbit-dtypes.json after_one_step; adapters built in the bf16 model dtype, fp32Adapters false).
 * `ctx`: what the build ran that sets that width (memory's EstimateContext, time's TimeOptions).
 */
export function stateValueBytes(
  o: EstimateOptions,
  fw: FrameworkProfile,
  fullModel: boolean,
  ctx: WidthContext = {},
): number {
  const s = FLOAT_BYTES[o.optimizerStates];
  if (
    fullModel ||
    stepsFp32Master(o, fw) ||
    OPTIMIZER_PROFILES[o.optimizer].statesLikeParams !== true
  )
    return s;
  return Math.min(s, trainableElementBytes(o, fw, ctx));
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
