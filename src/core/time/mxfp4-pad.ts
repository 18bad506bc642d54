/**
 * The routed-expert bytes an MXFP4 MoE decode step reads over the checkpoint's shape, where the engine pads each
 * expert for its kernel (FrameworkProfile.mxfp4ExpertPad): the hidden size and one GPU's expert width round up to the
 * kernel path's multiples, the hidden states are padded to match, and the expert GEMMs run over the padded shape,
 * its zeros read with the rest.
 */
import { isSm100 } from '../compute-capability.js';
import { FRAMEWORKS } from '../memory/frameworks.js';
import type { FrameworkProfile } from '../memory/framework-profile.js';
import type { Mxfp4ExpertProfile } from '../memory/mxfp4-expert-profile.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import type { QuantFormat } from '../../schema/time.js';
import type { ModelFacts } from './model-facts.js';

/**
 * MXFP4 weights, and the engine's default MXFP4 MoE backend is Marlin on this card of compute capability 10.0 or more, not an FP4
 * tensor-core kernel (FrameworkProfile.mxfp4MarlinMajors): time/decode.ts kernelOn times Marlin there.
 */
export const mxfp4MarlinFrom10 = (
  o: Pick<EstimateOptions, 'framework' | 'weights'>,
  cc: number,
): boolean =>
  o.weights === 'mxfp4' &&
  cc >= 10 &&
  (FRAMEWORKS[o.framework].mxfp4MarlinMajors ?? []).includes(Math.floor(cc));

type Mxfp4Path = keyof NonNullable<Mxfp4ExpertProfile['mxfp4ExpertPad']>;

/**
 * The kernel path an MXFP4 MoE step takes on this card: AMD GPUs their own; compute capability 10.x the native FP4
 * MoE where the time model prices one (decode.ts kernelOn: `cutlass`); 8.x and 9.x Marlin, which the time model
 * prices there (kernelOn) and vLLM's launch selects on 9.x over its triton_kernels default
 * (engines/vllm/launch.ts mxfp4MoeBackendArgs: `--moe-backend marlin`); from 10.0 Marlin where the engine's default
 * takes it on the card (mxfp4MarlinFrom10).
 */
function mxfp4Path(r: { cc: number; rocm: boolean }, q: QuantFormat | null): Mxfp4Path | null {
  if (r.rocm) return 'rocm';
  if (isSm100(r.cc)) return q === 'cutlass' ? 'trtllmGen' : null;
  if (r.cc >= 8 && r.cc < 10) return 'marlin';
  // From 10.0 where the step takes Marlin (time/decode.ts kernelOn: FrameworkProfile.mxfp4MarlinMajors).
  if (q === 'marlin') return 'marlin';
  return null;
}

const roundUp = (x: number, k: number): number => Math.ceil(x / k) * k;

/**
 * The padded over stored hidden size and one GPU's expert width (each expert's w13 and w2 are hidden x width
 * matrices); null where the weights are not MXFP4, the model has no routed experts or the engine pads none on this
 * path. Under expert parallelism a rank holds whole experts, so the width is not split.
 */
export function mxfp4ExpertPadDims(
  m: Pick<ModelFacts, 'experts' | 'expertFfn' | 'hidden'>,
  fw: Pick<FrameworkProfile, 'mxfp4ExpertPad'>,
  o: Pick<EstimateOptions, 'weights' | 'tp' | 'ep'>,
  r: { cc: number; rocm: boolean },
  q: QuantFormat | null,
): { hidden: number; width: number } | null {
  const pads = fw.mxfp4ExpertPad;
  if (pads === undefined || o.weights !== 'mxfp4' || m.experts <= 1 || m.expertFfn <= 0)
    return null;
  const path = mxfp4Path(r, q);
  const pad = path === null ? undefined : pads[path];
  if (pad === undefined) return null;
  const width = (o.ep ?? 1) > 1 ? m.expertFfn : m.expertFfn / o.tp;
  return {
    hidden: roundUp(m.hidden, pad.hidden) / m.hidden,
    width: roundUp(width, pad.width) / width,
  };
}

/**
 * Padded over stored routed-expert elements of one GPU's share (mxfp4ExpertPadDims: one factor covers w13 and w2);
 * 1 where the engine pads none. The memory model holds the same padded elements (memory/mxfp4-pad-bytes.ts).
 */
export function mxfp4ExpertPadFactor(
  m: Pick<ModelFacts, 'experts' | 'expertFfn' | 'hidden'>,
  fw: Pick<FrameworkProfile, 'mxfp4ExpertPad'>,
  o: Pick<EstimateOptions, 'weights' | 'tp' | 'ep'>,
  r: { cc: number; rocm: boolean },
  q: QuantFormat | null,
): number {
  const d = mxfp4ExpertPadDims(m, fw, o, r, q);
  return d === null ? 1 : d.hidden * d.width;
}
