/** MiniMax-Text-01 / MiniMax-M1: lightning (linear) attention layers beside softmax attention, Mixtral experts. */
import { lin } from './blocks.js';
import { ConfigError, Fields } from './fields.js';
import { layerTypesOf } from './hybrid.js';
import { mixtralMoe } from './llama.js';
import type { LlamaFlavor, Mixer } from './llama.js';

// HF MiniMaxConfig (configuration_minimax.py, transformers 5.14.1): block_size=256 (the lightning kernel's block),
// and without layer_types every even layer is full attention, every odd one linear.
const MINIMAX = { block: 256, fullEvery: 2 };

/**
 * The layer types: layer_types (HF MiniMaxConfig), else the checkpoints' attn_type_list (0 lightning, 1 softmax:
 * MiniMaxAI/MiniMax-M1-80k config.json, read by vLLM minimax_text_01.py), else the HF default.
 */
function minimaxTypes(c: Fields, layers: number): string[] {
  const types = layerTypesOf(c, layers);
  if (types) return types;
  const list = c.intList('attn_type_list');
  if (list.length === 0)
    return Array.from({ length: layers }, (_, i) =>
      (i + 1) % MINIMAX.fullEvery ? 'full_attention' : 'linear_attention',
    );
  if (list.length !== layers)
    throw new ConfigError(
      `${c.path}attn_type_list`,
      `${list.length} entries`,
      `one entry per layer (num_hidden_layers ${layers})`,
    );
  return list.map((t) => (t === 0 ? 'linear_attention' : 'full_attention'));
}

/**
 * MiniMaxLightningAttention (modeling_minimax.py, transformers 5.14.1; vLLM MiniMaxText01LinearAttention):
 * qkv_proj hidden -> 3 heads x head_dim, output_gate hidden -> heads x head_dim, an RMSNorm over heads x head_dim
 * and out_proj, none with bias, and no conv. Its state per sequence is the running K^T V of every head, heads x
 * head_dim x head_dim (transformers MiniMaxCache linear cache; vLLM linear_attention_state_shape), whatever the
 * context. Read as convChannels = the q, k, v width over a kernel of 1: no conv window is kept, while training
 * saves q, k and v before and after their SiLU as a conv mixer's are.
 */
export function lightningMixers(c: Fields, layers: number): (Mixer | null)[] {
  const hidden = c.int('hidden_size');
  const heads = c.int('num_attention_heads');
  const headDim =
    typeof c.raw.head_dim === 'number' ? c.int('head_dim') : Math.floor(hidden / heads);
  const inner = heads * headDim;
  const mixer: Mixer = {
    linears: [
      lin('other', hidden, 3 * inner, false),
      lin('other', hidden, inner, false),
      lin('other', inner, hidden, false),
    ],
    params: inner,
    state: {
      kind: 'lightning',
      heads,
      keyDim: headDim,
      valueDim: headDim,
      convChannels: 3 * inner,
      convKernel: 1,
      stateBytes: null,
      chunk: c.int(['block_size', 'block'], MINIMAX.block),
    },
  };
  return minimaxTypes(c, layers).map((t) => (t === 'linear_attention' ? mixer : null));
}

/** MiniMax (HF MiniMaxForCausalLM): Mixtral-style MoE on every layer, lightning or softmax attention before it. */
export const minimaxFlavor: LlamaFlavor = {
  tiedDefault: false,
  mixer: lightningMixers,
  moe: mixtralMoe,
};
