/** An eager transformers forward's elementwise passes over a prefill's activations, priced as HBM traffic. */
import { FRAMEWORKS } from '../memory/frameworks.js';
import { releaseNamedBefore } from '../compare-releases.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import type { TimeOptions } from '../../schema/time.js';
import type { GpuRates } from './hardware.js';
import type { ModelFacts } from './model-facts.js';

/**
 * Bytes a prefill of `seqs` prompts of `tokens` tokens moves through the engine's eager elementwise kernels
 * (EagerLayerProfile.eagerPrefillPasses), outside its GEMMs and attention kernel: per token and layer, each norm's
 * passes over hidden, rotary's over q and k, the attention output's contiguous copy over q, the activation's over the
 * MLP's width, the residual adds over hidden; the final norm once; under eager attention the scores' passes
 * (seqs x heads x tokens x tokens per layer); and where the release computes logits for every prompt position, their
 * cast to fp32. 0 where the profile has none or the forward is compiled.
 */
export function eagerPrefillPassBytes(
  m: ModelFacts,
  o: EstimateOptions,
  tokens: number,
  seqs: number,
  t?: TimeOptions,
): number {
  const p = FRAMEWORKS[o.framework].eagerPrefillPasses;
  if (p === undefined || o.compile) return 0;
  const rows = tokens * seqs;
  const ffn = (m.ffn * (m.experts > 1 ? m.topK : 1)) / o.tp;
  const q = m.attnWidth / o.tp;
  const norm = m.rms ? p.rmsNorm : 0;
  const rotary = m.rms ? p.rotary * (q + m.kvWidth / o.tp) : 0;
  const act = (m.gated ? p.gatedAct : p.act) * ffn;
  // FlashAttention-2 writes its output token-major: no copy before o_proj (LlamaFlashAttention2).
  const copy = o.attention === 'flash' ? 0 : p.attnOutCopy * q;
  const perTokenLayer =
    m.norms * norm * m.hidden + rotary + copy + act + 2 * p.residualAdd * m.hidden;
  const scores =
    o.attention === 'eager' ? seqs * (m.heads / o.tp) * tokens * tokens * p.eagerScore : 0;
  const v = t?.engineVersion;
  const allLogits = v !== undefined && releaseNamedBefore(v, p.lastLogitsFrom);
  const logits = allLogits ? (rows * m.vocab * p.logitsCast) / o.tp : 0;
  return m.layers * (rows * perTokenLayer + scores) + rows * norm * m.hidden + logits;
}

/** Those bytes at the GPU's stream rate. */
export function eagerPrefillPassSeconds(
  m: ModelFacts,
  o: EstimateOptions,
  r: GpuRates,
  tokens: number,
  seqs: number,
  t?: TimeOptions,
): number {
  return eagerPrefillPassBytes(m, o, tokens, seqs, t) / r.mem;
}
