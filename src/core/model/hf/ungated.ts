/**
 * Decoders with a 2-matrix MLP (up_proj, down_proj around a pointwise activation, no gate): Apertus (xIELU),
 * Arcee AFM (ReLU²), Jais 2 (ReLU²), Nemotron-4 / Minitron (ReLU²). Each read from its transformers modeling file
 * (transformers 5.14.1, the version engines/hf pins); each reproduces transformers' own parameter count for the
 * class's default config (test/core/models-ungated.test.ts).
 */
import type { AttnDims } from './blocks.js';
import type { Fields } from './fields.js';
import { attentionBias, qkNorm } from './llama.js';
import type { LlamaFlavor } from './llama.js';

/** The `mlp_bias` flag with its class default False (ArceeConfig, Jais2Config, NemotronConfig). */
const mlpBias = (c: Fields) => c.bool('mlp_bias', false);

// XIELUActivation (activations.py): two learnable scalars, alpha_p and alpha_n, per MLP.
const XIELU_PARAMS = 2;

/**
 * Apertus (modeling_apertus.py): ApertusMLP up_proj/down_proj without bias around xIELU, q_norm/k_norm
 * RMSNorm(head_dim), attention_layernorm + feedforward_layernorm; ApertusConfig tie_word_embeddings default False,
 * attention_bias default False.
 */
export const apertusFlavor: LlamaFlavor = {
  tiedDefault: false,
  ungated: true,
  mlpBias: () => false,
  extraPerLayer: (c: Fields, d: AttnDims) => qkNorm(c, d) + XIELU_PARAMS,
};

/** Arcee AFM (modeling_arcee.py): the Llama layer with ArceeMLP up_proj/down_proj (bias mlp_bias) around ReLU². */
export const arceeFlavor: LlamaFlavor = { tiedDefault: false, ungated: true, mlpBias };

/**
 * Jais 2 (modeling_jais2.py): nn.LayerNorm with bias (input_layernorm, post_attention_layernorm, final norm),
 * q/k/v/o bias attention_bias, Jais2MLP up_proj/down_proj bias mlp_bias around ReLU²; Jais2Config
 * tie_word_embeddings default False.
 */
export const jais2Flavor: LlamaFlavor = {
  tiedDefault: false,
  norm: 'layer',
  ungated: true,
  qkvBias: attentionBias(false),
  mlpBias,
};

/**
 * Nemotron-4 / Minitron (modeling_nemotron.py): NemotronLayerNorm1P (a LayerNorm with bias) before attention and
 * MLP, q/k/v/o bias attention_bias, NemotronMLP up_proj/down_proj bias mlp_bias around ReLU²; head_dim from the
 * config else hidden / heads (NemotronConfig); tie_word_embeddings default False.
 */
export const nemotronFlavor: LlamaFlavor = {
  tiedDefault: false,
  norm: 'layer',
  ungated: true,
  qkvBias: attentionBias(false),
  mlpBias,
};
