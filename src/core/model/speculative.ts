/**
 * The draft side of speculative decoding as the memory and time models read it: an EAGLE-3 head (one decoder
 * layer over the target's fused hidden states, with its own small output vocabulary) or the MTP layers the
 * checkpoint ships; n-gram lookup has no draft model.
 */
import type { Arch, LayerGroup } from './arch.js';
import type { SpeculativeMethod } from '../../schema/estimate.js';

/**
 * Published EAGLE-3 heads by catalog model id: the EAGLE-3 authors' releases
 * (https://github.com/SafeAILab/EAGLE, "EAGLE-3 models"), loaded by vLLM's speculative_config.model.
 */
export const EAGLE3_HEADS: Readonly<Record<string, string>> = {
  'llama-3.1-8b': 'yuhuili/EAGLE3-LLaMA3.1-Instruct-8B',
  'llama-3.3-70b-instruct': 'yuhuili/EAGLE3-LLaMA3.3-Instruct-70B',
};

// EAGLE-3 heads predict over a reduced vocabulary: draft_vocab_size 32000
// (https://huggingface.co/yuhuili/EAGLE3-LLaMA3.1-Instruct-8B/blob/main/config.json).
export const EAGLE3_DRAFT_VOCAB = 32_000;

/** The target's decoder layer groups (no vision tower, no encoder). */
const decoderGroups = (arch: Arch): LayerGroup[] => arch.groups.filter((g) => g.name === 'decoder');

/**
 * The draft model as an Arch (its layers, output head and extra weights), or null for n-gram. EAGLE-3: one
 * decoder layer shaped as the target's first, the fc fusing three hidden states (3h x h) and a
 * draft-vocabulary head; embeddings are the target's (EAGLE-3 §3, https://arxiv.org/abs/2503.01840).
 * MTP: the checkpoint's MTP layers, shaped as its last decoder layers, over the target's output head
 * (DeepSeek-V3 §2.2: "shared embedding and output head").
 */
export function draftArch(arch: Arch, method: SpeculativeMethod): Arch | null {
  const groups = decoderGroups(arch);
  if (method === 'ngram' || groups.length === 0) return null;
  if (method === 'eagle3') {
    const g = groups[0]!;
    return {
      ...arch,
      groups: [{ ...g, count: 1 }],
      vocab: EAGLE3_DRAFT_VOCAB,
      embedParams: 0,
      lmHeadParams: EAGLE3_DRAFT_VOCAB * arch.hidden,
      otherParams: 3 * arch.hidden * arch.hidden,
      mtpLayers: 0,
      mtpParams: 0,
    };
  }
  const layers = arch.mtpLayers ?? 0;
  if (layers <= 0) return null;
  return {
    ...arch,
    groups: [{ ...groups[groups.length - 1]!, count: layers }],
    embedParams: 0,
    otherParams: 0,
    mtpLayers: 0,
    mtpParams: 0,
  };
}

/** Parameters the draft loads beyond the target: the head's own, or the checkpoint's MTP layers. */
export function draftParams(arch: Arch, method: SpeculativeMethod): number {
  if (method === 'mtp') return arch.mtpParams ?? 0;
  const d = draftArch(arch, method);
  if (!d) return 0;
  let linear = 0;
  for (const g of d.groups)
    for (const l of g.linears) linear += g.count * l.inFeatures * l.outFeatures * l.copies;
  return linear + d.lmHeadParams + d.otherParams;
}
