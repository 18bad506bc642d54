/**
 * Optimizer profiles: one row per optimizer of the estimate contract, holding what memory, time, quality and
 * the search need to know about it (the launchers' names stay with each launcher). Rows are in the search's
 * preference order; a new optimizer is its contract value (schema/estimate.ts) plus one row here and its tests.
 */
import type { Arch } from '../model/arch.js';
import type { Optimizer } from '../../schema/estimate.js';

/** What a state-size rule reads: the trainable count, the model, whether the whole model trains. */
export interface StateShape {
  /** Trainable parameters. */
  n: number;
  arch: Arch;
  /** Full fine-tune (false: adapters only). */
  fullModel: boolean;
}

/** What a step-temporary rule reads. */
export interface StepShape {
  /** Trainable parameters of the process. */
  n: number;
  /** Largest trainable tensor, elements. */
  largest: number;
  /** Torch AdamW implementation of the stack (frameworks.ts adamImpl). */
  adamImpl: 'foreach' | 'fused';
  /** The step runs per parameter inside backward (optimizer_in_bwd). */
  inBackward: boolean;
}

export interface OptimizerQuality {
  tier: 'near' | 'lossy';
  reason: string;
  source: string;
}

export interface OptimizerProfile {
  /** State bytes for the trainable parameters; `s` is the bytes of one state value (--optimizer-states). */
  stateBytes: (s: number, x: StateShape) => number;
  /** Temporaries one step allocates, bytes (per process, before sharding). */
  stepTemporaries: (s: number, x: StepShape) => number;
  /** Bytes a step streams per trainable parameter (its kernels are bandwidth-bound); `s` as above. */
  stepTraffic: (s: number) => number;
  /** What it costs the result against fp32 AdamW, or null (the same update). */
  quality: OptimizerQuality | null;
  /** Offered by the planner when a scenario does not list optimizers. */
  searched: boolean;
  /**
   * States in CUDA unified memory (bitsandbytes get_paged: cudaMallocManaged), prefetched to the GPU per
   * parameter each step and evicted to host RAM when the card is full (memory/paged.ts, time/paged-migration.ts).
   */
  paged?: true;
  /** Its states are made like each parameter, in the parameter's dtype whatever --optimizer-states says. */
  statesLikeParams?: true;
  /** Why its step does not run on Apple GPUs (MPS), citing the library's source; absent where it does. */
  notOnApple?: string;
}

// bitsandbytes 0.50.1 registers its 8-bit blockwise optimizer step for cuda, cpu and xpu only: its MPS backend
// (backends/mps/ops.py) has quantize/4-bit kernels and no `default` fallback exists for the 8-bit step, so an
// MPS tensor reaches the torch dispatcher with no kernel (bitsandbytes-foundation/bitsandbytes@37d2a9387f7146ccb85517ff45c665d345bfda79,
// backends/{cuda,cpu,xpu}/ops.py register_kernel("bitsandbytes::optimizer_update_8bit_blockwise", ...)).
const NO_MPS_8BIT_STEP =
  'bitsandbytes registers its 8-bit optimizer step (optimizer_update_8bit_blockwise) for CUDA, CPU and XPU only, none for MPS (https://github.com/bitsandbytes-foundation/bitsandbytes/blob/37d2a9387f7146ccb85517ff45c665d345bfda79/bitsandbytes/backends/mps/ops.py, 0.50.1)';
// Paged states come from cget_managed_ptr, which bitsandbytes 0.50.1 builds only with CUDA/HIP (cudaMallocManaged)
// or XPU (csrc/pythonInterface.cpp at the commit above); its macOS library has none.
const NO_MPS_PAGED =
  'bitsandbytes pages optimizer states through cget_managed_ptr, built only for CUDA/HIP (cudaMallocManaged) and XPU (https://github.com/bitsandbytes-foundation/bitsandbytes/blob/37d2a9387f7146ccb85517ff45c665d345bfda79/csrc/pythonInterface.cpp, 0.50.1)';

/** Every 2-D parameter matrix as [rows, cols, count]: what Adafactor factors and ZeRO-3 gathers. */
export function matrices(arch: Arch): [number, number, number][] {
  const out: [number, number, number][] = [];
  for (const g of arch.groups)
    for (const l of g.linears) out.push([l.outFeatures, l.inFeatures, g.count * l.copies]);
  if (arch.embedParams > 0) out.push([arch.vocab, arch.embedParams / arch.vocab, 1]);
  if (arch.lmHeadParams > 0) out.push([arch.vocab, arch.hidden, 1]);
  return out;
}

// bitsandbytes 8-bit states: 1 byte each for m and v + one fp32 absmax per 256-element block (optim/optimizer.py).
const EIGHT_BIT_STATES = 2 * (1 + 4 / 256);
// Step traffic (torch.optim _multi_tensor_adamw): AdamW reads param, grad, m, v and writes param, m, v:
// 12 B of fp32 param/grad traffic plus 4 state passes; 8-bit states save 6 B of the 28; SGD 12 B;
// momentum two state passes more; Adafactor's factored second moment ~16 B.
const ADAM_TRAFFIC = (s: number) => 12 + 4 * s;
// torch AdamW foreach: _foreach_sqrt(exp_avg_sqs) allocates a copy of v for the whole group
// (optim/adamw.py); per parameter inside backward it is one parameter's copy; fused: none.
const adamTemporaries = (s: number, x: StepShape) =>
  x.inBackward ? s * x.largest : x.adamImpl === 'foreach' ? s * x.n : 0;
const none = () => 0;

const OPT8 = 'https://arxiv.org/abs/2110.02861'; // Dettmers et al., 8-bit Optimizers via Block-wise Quantization
const EIGHT_BIT: OptimizerQuality = {
  tier: 'near',
  reason: 'block-wise 8-bit states match 32-bit Adam',
  source: OPT8,
};
const SGD: OptimizerQuality = {
  tier: 'lossy',
  reason: 'SGD trails adaptive optimizers on transformers',
  // Zhang et al., Why are Adaptive Methods Good for Attention Models?
  source: 'https://arxiv.org/abs/1912.03194',
};

export const OPTIMIZER_PROFILES: Record<Optimizer, OptimizerProfile> = {
  adamw: {
    stateBytes: (s, x) => 2 * s * x.n, // m and v (ZeRO §3.1)
    // torch AdamW: exp_avg / exp_avg_sq = torch.zeros_like(param) (init_state_per_param,
    // pytorch/pytorch@002d2f0bb40cf08beb74bce80f52ce4f2eda46a0 torch/optim/adamw.py).
    statesLikeParams: true,
    stepTemporaries: adamTemporaries,
    stepTraffic: ADAM_TRAFFIC,
    quality: null,
    searched: true,
  },
  'adamw-8bit': {
    stateBytes: (_, x) => EIGHT_BIT_STATES * x.n,
    stepTemporaries: none, // fused 8-bit kernel
    stepTraffic: () => 16,
    quality: EIGHT_BIT,
    searched: true,
    notOnApple: NO_MPS_8BIT_STEP,
  },
  'paged-adamw': {
    stateBytes: (s, x) => 2 * s * x.n,
    stepTemporaries: none, // bitsandbytes fused kernel on paged states
    stepTraffic: ADAM_TRAFFIC,
    quality: null,
    searched: true,
    paged: true,
    notOnApple: NO_MPS_PAGED,
  },
  'paged-adamw-8bit': {
    stateBytes: (_, x) => EIGHT_BIT_STATES * x.n,
    stepTemporaries: none,
    stepTraffic: () => 16,
    quality: EIGHT_BIT,
    searched: true,
    paged: true,
    notOnApple: `${NO_MPS_8BIT_STEP}; ${NO_MPS_PAGED}`,
  },
  'adam-mini': {
    // Adam-mini keeps m in full and one v per block, but full AdamW v for embedding and output layers (README).
    stateBytes: (s, x) =>
      s * x.n + s * (x.fullModel ? x.arch.embedParams + x.arch.lmHeadParams : 0),
    stepTemporaries: (s, x) => s * x.largest, // per-parameter loop, one update tensor at a time
    stepTraffic: ADAM_TRAFFIC,
    quality: {
      tier: 'near',
      reason: 'one second moment per block; on par with AdamW as published',
      source: 'https://arxiv.org/abs/2406.16793', // Zhang et al., Adam-mini
    },
    searched: true,
  },
  lion: {
    stateBytes: (s, x) => s * x.n, // one momentum buffer (Lion: arXiv:2302.06675)
    stepTemporaries: (s, x) => s * x.largest,
    stepTraffic: ADAM_TRAFFIC,
    quality: {
      tier: 'lossy',
      reason: 'needs a 3-10x smaller learning rate and retuned decay',
      source: 'https://arxiv.org/abs/2302.06675', // Chen et al., Symbolic Discovery of Optimization Algorithms
    },
    searched: true,
  },
  adafactor: {
    // Factored second moment: rows + cols per matrix, full for vectors; no first moment (beta1=None, HF
    // default). Adapters are thin matrices: factoring saves little, so they count as vectors.
    stateBytes: (_, x) => {
      if (!x.fullModel) return 4 * x.n;
      let b = 0;
      let matrixParams = 0;
      for (const [r, c, k] of matrices(x.arch)) {
        b += 4 * (r + c) * k;
        matrixParams += r * c * k;
      }
      return b + 4 * Math.max(0, x.n - matrixParams);
    },
    // HF Adafactor: update = grad**2 + eps and the approximated update, two fp32 tensors per parameter.
    stepTemporaries: (_, x) => 2 * 4 * x.largest,
    stepTraffic: () => 16,
    quality: {
      tier: 'lossy',
      reason: 'no momentum and factored second moments (HF default beta1=None)',
      source: 'https://arxiv.org/abs/1804.04235', // Shazeer & Stern, Adafactor
    },
    searched: true,
  },
  'sgd-momentum': {
    stateBytes: (s, x) => s * x.n, // one momentum buffer
    // torch SGD: momentum_buffer = torch.clone(grad).detach() (_single_tensor_sgd, _multi_tensor_sgd) or
    // torch.empty_like(grad) (_fused_sgd); the gradient takes its parameter's dtype
    // (pytorch/pytorch@2236df1770800ffea5697b11b0bb0d910b2e59e1 torch/optim/sgd.py, v2.6.0; the same at v2.8.0).
    statesLikeParams: true,
    stepTemporaries: none, // in-place foreach
    stepTraffic: (s) => 12 + 2 * s,
    quality: SGD,
    searched: true,
  },
  sgd: {
    stateBytes: none,
    stepTemporaries: none,
    stepTraffic: () => 12,
    quality: SGD,
    searched: true,
  },
  none: {
    stateBytes: none,
    stepTemporaries: none,
    stepTraffic: none,
    quality: null,
    searched: false,
  },
};

/** Optimizers the planner offers by default, in preference order. */
export const SEARCHED_OPTIMIZERS = (Object.keys(OPTIMIZER_PROFILES) as Optimizer[]).filter(
  (k) => OPTIMIZER_PROFILES[k].searched,
);
