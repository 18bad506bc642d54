/**
 * The model a reward objective trains: the causal LM's body under a sequence-classification head
 * (ObjectiveProfile.scoreHead). transformers' *ForSequenceClassification replaces lm_head with `score`,
 * nn.Linear(hidden_size, num_labels, bias=False), applied to every position's last hidden state
 * (huggingface/transformers@00029cfa0ed780d1ddb6e5d199bd92e86c5791a2 src/transformers/modeling_layers.py
 * GenericForSequenceClassification); the token embedding stays, untied from any head.
 */
import { scoreHeadLabels } from '../../schema/objectives.js';
import type { EstimateOptions } from '../../schema/estimate.js';
import type { Arch } from './arch.js';

const SCORED = new WeakMap<Arch, Map<number, Arch>>();

/**
 * `arch` as the objective's trainer builds it: with a score head, `vocab` is the head's labels (the width of its
 * logits) and lm_head is hidden x labels; `arch` itself otherwise (and for encoders, which keep their task head).
 */
export function trainedArch(arch: Arch, o: EstimateOptions): Arch {
  const labels = scoreHeadLabels(o);
  if (labels === null || arch.kind !== 'causal-lm') return arch;
  let byLabels = SCORED.get(arch);
  if (!byLabels) SCORED.set(arch, (byLabels = new Map()));
  let a = byLabels.get(labels);
  if (!a) {
    a = { ...arch, vocab: labels, tiedEmbeddings: false, lmHeadParams: labels * arch.hidden };
    byLabels.set(labels, a);
  }
  return a;
}
