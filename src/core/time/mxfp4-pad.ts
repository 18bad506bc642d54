/**
 * The routed-expert bytes an MXFP4 MoE decode step reads over the checkpoint's shape, where the engine pads each
 * expert for its kernel (FrameworkProfile.mxfp4ExpertPad): the hidden size and one GPU's expert width round up to the
 * kernel path's multiples, the hidden states are padded to match, and the expert GEMMs run over the padded shape,
 * its zeros read with the rest.
 */
import { isSm100 } from '../compute-capability.js';
import type { FrameworkProfile } from '../memory/framework-profile.js';
import type { Mxfp4ExpertProfile } from '../memory/mxfp4-expert-profile.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import type { QuantFormat } from '../../schema/time.js';
import type { ModelFacts } from './model-facts.js';

type Mxfp4Path = keyof NonNullable<Mxfp4ExpertProfile['mxfp4ExpertPad']>;

/**
 * The kernel path an MXFP4 MoE step takes on this card: AMD GPUs their own; compute capability 10.x the native FP4
 * MoE where the time model prices one (decode.ts kernelOn: `cutlass`); 9.x Marlin where the run names it
 * (TimeOptions.quantFormat, `named`), else the 9.x default; 8.x Marlin.
 */
function mxfp4Path(
  r: { cc: number; rocm: boolean },
  q: QuantFormat | null,
  named: QuantFormat | null,
): Mxfp4Path | null {
  if (r.rocm) return 'rocm';
  if (isSm100(r.cc)) return q === 'cutlass' ? 'trtllmGen' : null;
  if (r.cc >= 9 && r.cc < 10) return named === 'marlin' ? 'marlin' : 'tritonKernels';
  if (r.cc >= 8 && r.cc < 9) return 'marlin';
  return null;
}

const roundUp = (x: number, k: number): number => Math.ceil(x / k) * k;

/**
 * Padded over stored routed-expert elements of one GPU's share (each expert's w13 and w2 are hidden x width matrices,
 * so one factor covers them); 1 where the weights are not MXFP4, the model has no routed experts or the engine pads
 * none on this path. Under expert parallelism a rank holds whole experts, so the width is not split.
 */
export function mxfp4ExpertPadFactor(
  m: ModelFacts,
  fw: FrameworkProfile,
  o: Pick<EstimateOptions, 'weights' | 'tp' | 'ep'>,
  r: { cc: number; rocm: boolean },
  q: QuantFormat | null,
  named: QuantFormat | null,
): number {
  const pads = fw.mxfp4ExpertPad;
  if (pads === undefined || o.weights !== 'mxfp4' || m.experts <= 1 || m.expertFfn <= 0) return 1;
  const path = mxfp4Path(r, q, named);
  const pad = path === null ? undefined : pads[path];
  if (pad === undefined) return 1;
  const width = (o.ep ?? 1) > 1 ? m.expertFfn : m.expertFfn / o.tp;
  return (roundUp(m.hidden, pad.hidden) * roundUp(width, pad.width)) / (m.hidden * width);
}
