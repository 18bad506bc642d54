/** Component keys and phase codes to words: one place, shared by text reports and the TUI. */
import type { Breakdown, Phase } from '../core/memory/index.js';

export const COMPONENT_LABEL: Record<keyof Breakdown, string> = {
  weights: 'weights',
  quantConstants: 'quant constants',
  adapters: 'LoRA adapters',
  masterWeights: 'fp32 master weights',
  gradients: 'gradients',
  optimizer: 'optimizer states',
  activations: 'activations',
  logits: 'logits / loss',
  kvCache: 'KV cache',
  buffers: 'buffers & temporaries',
  overhead: 'CUDA context & allocator',
  referenceModel: 'reference model',
  rolloutWeights: 'rollout engine weights',
  rolloutKvCache: 'rollout KV cache',
  valueModel: 'value model (trained)',
  rewardModel: 'reward model',
  visionActivations: 'vision tower activations',
};

export const PHASE_LABEL: Record<Phase, string> = {
  load: 'model load',
  forward: 'end of forward',
  backward: 'start of backward',
  'backward-layer': 'layer backward',
  'backward-end': 'end of backward',
  'optimizer-step': 'optimizer step',
  prefill: 'prefill',
  decode: 'decode',
  rollout: 'rollout (generation)',
  'vision-encoder': 'vision tower forward',
  'vision-backward': 'vision tower backward',
};
