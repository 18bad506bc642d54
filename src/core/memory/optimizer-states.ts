/** Optimizer state and optimizer-step temporaries per optimizer, per trainable parameter. */
import type { Arch } from '../model/arch.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import type { FrameworkProfile } from './frameworks.js';
import { FLOAT_BYTES } from '../model/dtypes.js';
import { stochasticallyRounded } from '../engines/engines.js';

/** Every 2-D parameter matrix as [rows, cols, count]: what Adafactor factors and ZeRO-3 gathers. */
function matrices(arch: Arch): [number, number, number][] {
  const out: [number, number, number][] = [];
  for (const g of arch.groups)
    for (const l of g.linears) out.push([l.outFeatures, l.inFeatures, g.count * l.copies]);
  if (arch.embedParams > 0) out.push([arch.vocab, arch.embedParams / arch.vocab, 1]);
  if (arch.lmHeadParams > 0) out.push([arch.vocab, arch.hidden, 1]);
  return out;
}

/** Optimizer state bytes for `n` trainable params (and the arch for shape-aware optimizers). */
export function optimizerStateBytes(
  o: EstimateOptions,
  n: number,
  arch: Arch,
  fullModel: boolean,
): number {
  const s = FLOAT_BYTES[o.optimizerStates];
  // bitsandbytes 8-bit states: 1 byte each for m and v + one fp32 absmax per 256-element block (optim/optimizer.py).
  const eightBit = 2 * (1 + 4 / 256);
  switch (o.optimizer) {
    case 'adamw':
    case 'paged-adamw':
      return 2 * s * n; // m and v (ZeRO §3.1)
    case 'adamw-8bit':
    case 'paged-adamw-8bit':
      return eightBit * n;
    case 'adam-mini': {
      // Adam-mini keeps m in full and one v per block, but full AdamW v for embedding and output layers (README).
      const fullV = fullModel ? arch.embedParams + arch.lmHeadParams : 0;
      return s * n + s * fullV;
    }
    case 'sgd':
    case 'none':
      return 0;
    case 'sgd-momentum':
    case 'lion':
      return s * n; // one momentum buffer (Lion: arXiv:2302.06675)
    case 'adafactor': {
      // Factored second moment: rows + cols per matrix, full for vectors; no first moment (beta1=None, HF default).
      if (!fullModel) return 4 * n; // adapters are thin matrices: factoring saves little; count them as vectors
      let b = 0;
      let matrixParams = 0;
      for (const [r, c, k] of matrices(arch)) {
        b += 4 * (r + c) * k;
        matrixParams += r * c * k;
      }
      return b + 4 * Math.max(0, n - matrixParams);
    }
  }
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
): number {
  const s = FLOAT_BYTES[o.optimizerStates];
  // torchao's AdamW8bit (launched for pure-bf16 full fine-tunes with stochastic rounding) keeps both
  // states of the parameter being stepped in fp32 for its update (torchao/optim/adam.py single_param_adam,
  // "keep high precision copy for param update", v0.10.0): 8 B per element of the largest parameter.
  if (stochasticallyRounded(o)) return 2 * 4 * largest;
  switch (o.optimizer) {
    case 'adamw':
      // torch AdamW foreach: _foreach_sqrt(exp_avg_sqs) allocates a copy of v for the whole group (optim/adamw.py).
      return o.optimizerInBackward ? s * largest : fw.adamImpl === 'foreach' ? s * n : 0;
    case 'adafactor':
      // HF Adafactor: update = grad**2 + eps and the approximated update, two fp32 tensors per parameter.
      return 2 * 4 * largest;
    case 'adam-mini':
    case 'lion':
      return s * largest; // per-parameter loop, one update tensor at a time
    default:
      return 0; // 8-bit and paged: fused kernels; SGD: in-place foreach
  }
}
