/**
 * An MLA decode that reads materialized absorbed weights (FrameworkProfile.mlaMaterializedAbsorption): W_UK multiplied
 * into the query's up-projection (W_Q_UK: q_lora_rank x heads x kv_lora_rank) and W_UV into the output projection
 * (W_UV_O: heads x kv_lora_rank x hidden), each built once at load and requantized to the checkpoint's blockwise FP8
 * (the activation dtype for any other checkpoint), beside the query's rope columns (W_QR) in the activation dtype. A
 * decode step reads those in place of q_b, kv_b and o_proj; the prefill keeps the checkpoint's own. Per rank the
 * heads split over tensor parallelism. For DeepSeek-V3 over TP 8: 74.4 MB a layer against the 21.5 MB it replaces.
 */
import { releaseWithin } from '../compare-releases.js';
import type { FrameworkProfile } from '../memory/framework-profile.js';
import type { GpuRates } from './hardware.js';
import type { ModelFacts } from './model-facts.js';

/** Bytes of the activation dtype (bf16 / fp16) W_QR and any non-FP8 checkpoint's absorbed weights are kept in. */
const ACT_BYTES = 2; // .to(act_dtype) in https://pypi.org/project/vllm/0.7.3/ attention/backends/mla/utils.py

/**
 * Bytes a decode step reads on one GPU beyond the model's own MLA linears where the engine's build materializes the
 * absorbed weights: per MLA layer W_Q_UK and W_UV_O at `absorbedBytes` an element (1: the checkpoint's FP8 requantized;
 * else the activation dtype's 2) and W_QR at 2, less q_b (or q), kv_b and o at the checkpoint's `wb`. 0 where the
 * profile names no such releases, the run names none inside them, or the model has no MLA layer.
 */
export function mlaAbsorbedExtraBytes(
  m: ModelFacts,
  fw: FrameworkProfile,
  s: { tp: number; wb: number; fp8: boolean; version?: string },
): number {
  const span = fw.mlaMaterializedAbsorption;
  const v = s.version;
  if (span === undefined || v === undefined || !m.mla) return 0;
  if (!releaseWithin(v, span)) return 0;
  const absorbedBytes = s.fp8 ? 1 : ACT_BYTES;
  let bytes = 0;
  for (const g of m.arch.groups) {
    if (g.name === 'vision' || g.mlaCacheWidth === null) continue;
    const kvb = g.linears.find((l) => l.role === 'kv_b');
    const q = g.linears.find((l) => l.role === 'q_b') ?? g.linears.find((l) => l.role === 'q');
    const o = g.linears.find((l) => l.role === 'o');
    if (kvb === undefined || q === undefined || o === undefined) continue;
    const kvLora = kvb.inFeatures;
    const rope = g.mlaCacheWidth - kvLora;
    const heads = g.heads;
    const absorbed =
      (q.inFeatures * heads * kvLora + heads * kvLora * g.hidden) * absorbedBytes +
      q.inFeatures * heads * rope * ACT_BYTES;
    const own =
      (q.inFeatures * q.outFeatures +
        kvb.inFeatures * kvb.outFeatures +
        o.inFeatures * o.outFeatures) *
      s.wb;
    bytes += (g.count * Math.max(0, absorbed - own)) / Math.max(1, s.tp);
  }
  return bytes;
}

/** mlaAbsorbedExtraBytes read at the card's stream rate: seconds a decode step adds to its weight read. */
export function mlaAbsorbedExtraSeconds(
  m: ModelFacts,
  fw: FrameworkProfile,
  r: GpuRates,
  s: { tp: number; wb: number; fp8: boolean; version?: string },
): number {
  const bytes = mlaAbsorbedExtraBytes(m, fw, s);
  return bytes > 0 ? bytes / r.mem : 0;
}
