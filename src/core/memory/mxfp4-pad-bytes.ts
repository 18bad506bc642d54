/**
 * What an engine that pads MXFP4 routed experts for its kernel (FrameworkProfile.mxfp4ExpertPad) holds beyond the
 * checkpoint's shape. vLLM's `Mxfp4MoEMethod.create_weights` allocates, at the padded hidden size Hp and one GPU's
 * padded expert width Wp, w13 as [E, 2 x Wp, Hp / 2] uint8 values with [E, 2 x Wp, Hp / 32] uint8 scales and an
 * [E, 2 x Wp] bf16 bias, and w2 as [E, Hp, Wp / 2] values with [E, Hp, Wp / 32] scales and an [E, Hp] bias
 * (vllm/model_executor/layers/quantization/mxfp4.py @007d5005; the same shapes in the 0.10.1 and v0.11.0 wheels), and
 * the checkpoint loads into their top-left corner: the values and scales grow by the pad's element factor, w13's bias
 * by Wp / W, w2's by Hp / H. The time model reads the experts at the same shape (time/mxfp4-pad.ts).
 */
import type { Arch, Linear } from '../model/arch.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import { mxfp4ExpertPadDims } from '../time/mxfp4-pad.js';
import { modelFacts } from '../time/model-facts.js';
import type { FrameworkProfile } from './framework-profile.js';
import type { EstimateContext } from './types.js';

type Bytes = { values: number; constants: number; bias: number };

/**
 * Bytes the padding adds to one GPU's routed experts over every layer (before the pipeline stage's share): `share`
 * of every expert's (1 / TP, or the expert-parallel share); weights (values and biases) and quantization constants;
 * null where the engine pads none for this run (mxfp4ExpertPadDims) or the run names no GPU (ctx.mxfp4Kernel).
 * `storage`: a linear's stored bytes over `count` layers (setup.ts linearStorage).
 */
export function mxfp4PadBytes(
  arch: Arch,
  fw: Pick<FrameworkProfile, 'mxfp4ExpertPad'>,
  o: Pick<EstimateOptions, 'weights' | 'tp' | 'ep'>,
  ctx: Pick<EstimateContext, 'mxfp4Kernel'>,
  storage: (l: Linear, count: number) => Bytes,
  share: number,
): { weights: number; constants: number } | null {
  const k = ctx.mxfp4Kernel;
  if (k === undefined || fw.mxfp4ExpertPad === undefined) return null;
  // The routed experts' shape as the time model reads it (time/model-facts.ts), so both pad the same matrices.
  const d = mxfp4ExpertPadDims(modelFacts(arch), fw, o, k, k.kernel);
  if (d === null) return null;
  const out = { values: 0, constants: 0, bias: 0 };
  const grow = d.hidden * d.width - 1;
  for (const g of arch.groups)
    for (const l of g.linears)
      if (l.copies > 1) {
        const st = storage(l, g.count);
        out.values += st.values * grow;
        out.constants += st.constants * grow;
        // w2 (down) is hidden rows long, w13 (gate, up) width rows.
        out.bias += st.bias * ((l.role === 'down' ? d.hidden : d.width) - 1);
      }
  return { weights: (out.values + out.bias) * share, constants: out.constants * share };
}
