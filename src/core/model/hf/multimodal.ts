/** Multimodal wrappers: the language model under text_config, a vision tower under vision_config. */
import type {
  VisionInput,
  VisionTower,
  LayerGroup,
  Linear,
  LinearRole,
  OuterLinear,
} from '../arch.js';
import { attention, group, mlp, normSize } from './blocks.js';
import type { ArchBody, AttnDims, GroupBase } from './blocks.js';
import { RGB_CHANNELS } from './encoders.js';
import { ConfigError, Fields, showValue } from './fields.js';
import type { Json } from './fields.js';
import { llamaLike } from './llama.js';
import type { LlamaFlavor, Moe } from './llama.js';

// ---------------------------------------------------------------------------------------------
// Multimodal wrappers: the language model under text_config, a vision tower under vision_config

export const TEXT_FIELDS = [
  'hidden_size',
  'num_hidden_layers',
  'num_attention_heads',
  'num_key_value_heads',
  'intermediate_size',
  'vocab_size',
] as const;

/** text_config, refused where it contradicts a top-level copy of a standard field; inherits tie and dtype. */
export function textOf(c: Fields): Fields {
  const t = c.sub('text_config');
  for (const k of TEXT_FIELDS) {
    const top = c.raw[k];
    const inner = t.raw[k];
    if (top !== undefined && top !== null && inner !== undefined && inner !== null && top !== inner)
      throw new ConfigError(
        `${t.path}${k}`,
        inner,
        `the top-level ${k} (${showValue(top)}), or only one of the two`,
      );
  }
  const inherit: Json = {};
  for (const k of ['tie_word_embeddings', 'torch_dtype', 'dtype'])
    if (t.raw[k] === undefined && c.raw[k] !== undefined) inherit[k] = c.raw[k];
  return new Fields({ ...inherit, ...t.raw }, t.path);
}

export interface Tower {
  group: LayerGroup;
  /** Embeddings, final norms, mergers and the projector into the language model. */
  params: number;
  input: VisionInput;
  /** The nn.Linear modules among `params` (projector, merger), which only 'all-linear' adapts. */
  outer?: OuterLinear[];
}

/** One-off linears (a projector's or a merger's), each `[in, out]`. */
export const oneOff = (...dims: [number, number][]): OuterLinear[] =>
  dims.map(([inFeatures, outFeatures]) => ({ inFeatures, outFeatures, blockLeaf: false }));

/** A bidirectional ViT block run: q/k/v/o and a 2- or 3-matrix MLP, two norms per layer. */
const QKV: ReadonlySet<LinearRole> = new Set(['q', 'k', 'v']);

export function visionGroup(k: {
  hidden: number;
  heads: number;
  headDim?: number;
  layers: number;
  ffn: number;
  gated: boolean;
  bias: boolean;
  norm: 'rms' | 'layer';
  /**
   * Roles whose module names no contract target matches (PEFT matches the names: Qwen's fused `qkv` and
   * `proj`, SigLIP's `out_proj`, `fc1`, `fc2`): read as 'other', which only 'all-linear' adapts.
   */
  unnamed?: readonly LinearRole[];
  /** q, k and v are one nn.Linear in the checkpoint (Qwen-VL and GLM-4.1V towers' `attn.qkv`). */
  fusedQkv?: boolean;
}): LayerGroup {
  const headDim = k.headDim ?? k.hidden / k.heads;
  const d: AttnDims = { hidden: k.hidden, heads: k.heads, kvHeads: k.heads, headDim };
  const base: GroupBase = {
    name: 'vision',
    hidden: k.hidden,
    heads: k.heads,
    kvHeads: k.heads,
    headDim,
    vHeadDim: headDim,
    ffn: k.ffn,
    gated: k.gated,
    experts: 1,
    topK: 1,
    norm: k.norm,
    normsPerLayer: 2,
    parallelResidual: false,
    dropout: false,
    causal: false,
    crossAttention: false,
    slidingWindow: null,
    mlaCacheWidth: null,
  };
  const linears = [...attention(d, k.bias, k.bias), ...mlp(k.hidden, k.ffn, k.gated, k.bias)].map(
    (l): Linear => {
      const m = k.fusedQkv && QKV.has(l.role) ? { ...l, module: 'qkv' } : l;
      return k.unnamed?.includes(l.role) ? { ...m, role: 'other' } : m;
    },
  );
  return group(base, linears, 2 * normSize(k.hidden, k.norm === 'layer'), k.layers);
}

// Qwen2.5-VL model card: the examples cap images at max_pixels = 1280 * 28 * 28 (1280 tokens of 28 x 28 pixels).
export const QWEN_DEFAULT_PIXELS = 1280 * 28 * 28;
// Qwen2_5_VLVisionConfig defaults (transformers configuration_qwen2_5_vl.py @018c8e03): window_size=112,
// fullatt_block_indexes=[7, 15, 23, 31].
const QWEN25_WINDOW_PX = 112;
const QWEN25_FULL_ATTENTION = [7, 15, 23, 31];

/**
 * Qwen2.5-VL / Qwen3-VL / Qwen3.5 vision towers (HF Qwen2_5_VisionTransformer, Qwen3VLVisionModel): a Conv3d
 * patch embedding over temporal_patch_size frames (bias in Qwen3-VL), learned position embeddings of
 * num_position_embeddings (Qwen3-VL), depth blocks (Qwen2.5-VL: RMSNorm and a gated MLP; Qwen3-VL: LayerNorm
 * and fc1/fc2), all with biases; a patch merger (norm, Linear(h*m^2, h*m^2), Linear(h*m^2, out_hidden_size))
 * and one more merger, normed after the shuffle, per deepstack_visual_indexes entry.
 */
export function qwenVision(v: Fields, textHidden: number): Tower {
  const v25 = !v.has('num_position_embeddings') && !v.has('deepstack_visual_indexes');
  const hidden = v.int('hidden_size');
  const patch = v.int('patch_size');
  const merge = v.int('spatial_merge_size', 2);
  const temporal = v.int('temporal_patch_size', 2);
  const channels = v.int(['in_channels', 'in_chans'], RGB_CHANNELS);
  const out = v.int('out_hidden_size', textHidden);
  const g = visionGroup({
    hidden,
    heads: v.int('num_heads'),
    layers: v.int('depth'),
    ffn: v.int('intermediate_size'),
    gated: v25,
    bias: true,
    norm: v25 ? 'rms' : 'layer',
    fusedQkv: true,
    // Qwen2_5_VLVisionAttention qkv/proj, Qwen2_5_VLMLP gate_proj/up_proj/down_proj; Qwen3-VL linear_fc1/fc2.
    unnamed: v25 ? ['q', 'k', 'v', 'o'] : ['q', 'k', 'v', 'o', 'up', 'down'],
  });
  const m = hidden * merge * merge;
  const merger = (normDim: number) => normSize(normDim, !v25) + m * m + m + m * out + out;
  const params =
    channels * temporal * patch * patch * hidden +
    (v25 ? 0 : hidden + v.int('num_position_embeddings') * hidden) +
    merger(hidden) +
    v.intList('deepstack_visual_indexes').length * merger(m);
  // Qwen2_5_VisionTransformerPretrainedModel.forward (transformers modeling_qwen2_5_vl.py @00b676f8): blocks
  // outside fullatt_block_indexes attend within windows of window_size pixels (get_window_index); Qwen3-VL none.
  const window = v25 ? Math.floor(v.int('window_size', QWEN25_WINDOW_PX) / patch) ** 2 : null;
  const tower: VisionTower = {
    fixedPatches: null,
    tilePixels: null,
    extraTokens: 0,
    windowPatches: window,
    fullAttentionLayers: v25
      ? v.has('fullatt_block_indexes')
        ? v.intList('fullatt_block_indexes').length
        : QWEN25_FULL_ATTENTION.length
      : v.int('depth'),
    patchEmbedParams: channels * temporal * patch * patch * hidden,
    projectorParams: (1 + v.intList('deepstack_visual_indexes').length) * (m * m + m * out),
    inputGradHook: false,
  };
  // Each merger's two linears (Qwen2.5-VL merger.mlp.0 / mlp.2, Qwen3-VL linear_fc1 / linear_fc2).
  const mergers = 1 + v.intList('deepstack_visual_indexes').length;
  return {
    group: g,
    params,
    outer: Array.from({ length: mergers }, () => oneOff([m, m], [m, out])).flat(),
    input: {
      patch,
      merge,
      fixedTokens: null,
      defaultPixels: QWEN_DEFAULT_PIXELS,
      maxPixels: null,
      tower,
    },
  };
}

/**
 * Gemma 3 (HF Gemma3ForConditionalGeneration): a SigLIP tower without head (patch Conv2d with bias, learned
 * positions over (image_size/patch_size)^2, LayerNorm blocks with biases, post_layernorm) and the projector
 * (mm_input_projection_weight vision x text hidden, mm_soft_emb_norm): every image is pooled to
 * mm_tokens_per_image tokens (default 256, Gemma3Config).
 */
const GEMMA3_TOKENS_PER_IMAGE = 256;
// SiglipAttention q_proj/k_proj/v_proj/out_proj, SiglipMLP fc1/fc2 (transformers modeling_siglip.py).
const SIGLIP_UNNAMED: readonly LinearRole[] = ['o', 'up', 'down'];
export function siglipVision(v: Fields, textHidden: number, top: Fields): Tower {
  const hidden = v.int('hidden_size');
  const patch = v.int('patch_size');
  const image = v.int('image_size');
  const channels = v.int('num_channels', RGB_CHANNELS);
  const g = visionGroup({
    hidden,
    heads: v.int('num_attention_heads'),
    layers: v.int('num_hidden_layers'),
    ffn: v.int('intermediate_size'),
    gated: false,
    bias: true,
    norm: 'layer',
    unnamed: SIGLIP_UNNAMED,
  });
  const positions = Math.floor(image / patch) ** 2;
  const params =
    channels * patch * patch * hidden +
    hidden +
    positions * hidden +
    normSize(hidden, true) +
    hidden * textHidden +
    hidden;
  const tokens = top.int('mm_tokens_per_image', GEMMA3_TOKENS_PER_IMAGE);
  // Every image is resized to image_size and runs all its positions through the tower before the projector
  // average-pools them (Gemma3MultiModalProjector); the tower is a SiglipVisionModel, whose
  // get_input_embeddings returns its patch_embedding (transformers modeling_siglip.py).
  const tower: VisionTower = {
    fixedPatches: positions,
    tilePixels: null,
    extraTokens: 0,
    windowPatches: null,
    fullAttentionLayers: g.count,
    patchEmbedParams: channels * patch * patch * hidden,
    projectorParams: hidden * textHidden,
    inputGradHook: true,
  };
  return {
    group: g,
    params,
    input: {
      patch,
      merge: 1,
      fixedTokens: tokens,
      defaultPixels: image * image,
      maxPixels: null,
      tower,
    },
  };
}

/**
 * Llama 4 (HF Llama4VisionModel): unfold patch embedding (Linear, no bias), class embedding, positions over
 * (image_size/patch_size)^2 + 1, layernorm_pre/post, LayerNorm blocks with biases; the pixel-shuffle adapter
 * (fc1 intermediate_size -> projector_input_dim, fc2 -> projector_output_dim, bias multi_modal_projector_bias)
 * and multi_modal_projector (vision_output_dim -> text hidden, no bias). Shuffle ratio 0.5: 2x2 patches a token.
 */
export function llama4Vision(v: Fields, textHidden: number): Tower {
  const hidden = v.int('hidden_size');
  const patch = v.int('patch_size');
  const image = v.int('image_size');
  const ffn = v.int('intermediate_size');
  const g = visionGroup({
    hidden,
    heads: v.int('num_attention_heads'),
    layers: v.int('num_hidden_layers'),
    ffn,
    gated: false,
    bias: true,
    norm: 'layer',
    unnamed: ['up', 'down'], // Llama4VisionAttention q/k/v/o_proj match; Llama4VisionMLP fc1/fc2 do not
  });
  const inDim = v.int('projector_input_dim');
  const outDim = v.int('projector_output_dim');
  const bias = v.bool('multi_modal_projector_bias', false) ? 1 : 0;
  const params =
    v.int('num_channels', RGB_CHANNELS) * patch * patch * hidden +
    hidden +
    (Math.floor(image / patch) ** 2 + 1) * hidden +
    2 * normSize(hidden, true) +
    (ffn + bias) * inDim +
    (inDim + bias) * outDim +
    v.int('vision_output_dim') * textHidden;
  // pixel_shuffle_ratio r keeps 1/r^2 of the patches: (1/r) x (1/r) patches make one token.
  const merge = Math.round(1 / v.num('pixel_shuffle_ratio', 0.5));
  // Llama4VisionModel runs each image_size tile as its own sequence of patches plus the class embedding; the
  // pixel-shuffle MLP and the projector run on the shuffled tokens (transformers modeling_llama4.py).
  const tower: VisionTower = {
    fixedPatches: null,
    tilePixels: image * image,
    extraTokens: 1,
    windowPatches: null,
    fullAttentionLayers: g.count,
    patchEmbedParams: v.int('num_channels', RGB_CHANNELS) * patch * patch * hidden,
    projectorParams: ffn * inDim + inDim * outDim + v.int('vision_output_dim') * textHidden,
    inputGradHook: false,
  };
  // patch_embedding.linear and multi_modal_projector.linear_1 are one-off; vision_adapter.mlp.fc1/fc2 share
  // the blocks' MLP leaf names (transformers 5.14.1 modeling_llama4.py Llama4UnfoldConvolution, Llama4VisionMLP2).
  const adapter = (i: number, o: number): OuterLinear => ({
    inFeatures: i,
    outFeatures: o,
    blockLeaf: true,
  });
  return {
    group: g,
    params,
    outer: [
      ...oneOff(
        [v.int('num_channels', RGB_CHANNELS) * patch * patch, hidden],
        [v.int('vision_output_dim'), textHidden],
      ),
      adapter(ffn, inDim),
      adapter(inDim, outDim),
    ],
    input: {
      patch,
      merge,
      fixedTokens: null,
      defaultPixels: image * image,
      maxPixels: null,
      tower,
    },
  };
}

/**
 * Mistral 3 (HF Mistral3ForConditionalGeneration): a Pixtral tower (patch Conv2d without bias, ln_pre RMSNorm,
 * RMSNorm blocks with a gated MLP, no biases) and the projector (RMSNorm, patch merger Linear(h*m^2, h),
 * linear_1 h -> text hidden, linear_2 text -> text, bias multimodal_projector_bias).
 */
export function pixtralVision(v: Fields, textHidden: number, top: Fields): Tower {
  const hidden = v.int('hidden_size');
  const patch = v.int('patch_size');
  const image = v.int('image_size');
  const merge = top.int('spatial_merge_size', 2);
  const heads = v.int('num_attention_heads');
  const g = visionGroup({
    hidden,
    heads,
    headDim: v.int('head_dim', hidden / heads),
    layers: v.int('num_hidden_layers'),
    ffn: v.int('intermediate_size'),
    gated: true,
    bias: false,
    norm: 'rms',
  });
  const bias = top.bool('multimodal_projector_bias', false) ? 1 : 0;
  const params =
    v.int('num_channels', RGB_CHANNELS) * patch * patch * hidden +
    2 * hidden +
    hidden * merge * merge * hidden +
    (hidden + bias) * textHidden +
    (textHidden + bias) * textHidden;
  // PixtralVisionModel attends within each image (block-diagonal mask) and its get_input_embeddings returns
  // patch_conv (transformers modeling_pixtral.py); the merger and projector run per merged token.
  const tower: VisionTower = {
    fixedPatches: null,
    tilePixels: null,
    extraTokens: 0,
    windowPatches: null,
    fullAttentionLayers: g.count,
    patchEmbedParams: v.int('num_channels', RGB_CHANNELS) * patch * patch * hidden,
    projectorParams:
      hidden * merge * merge * hidden + hidden * textHidden + textHidden * textHidden,
    inputGradHook: true,
  };
  return {
    group: g,
    params,
    // Mistral3PatchMerger.merging_layer, Mistral3MultiModalProjector linear_1 / linear_2.
    outer: oneOff([hidden * merge * merge, hidden], [hidden, textHidden], [textHidden, textHidden]),
    input: {
      patch,
      merge,
      fixedTokens: null,
      defaultPixels: image * image,
      maxPixels: null,
      tower,
    },
  };
}

/** A `*ForConditionalGeneration` wrapper: the language model from text_config plus its vision tower. */
export function multimodal(
  text: (t: Fields) => ArchBody,
  tower: (v: Fields, textHidden: number, top: Fields) => Tower,
): (c: Fields) => ArchBody {
  return (c) => {
    const body = text(textOf(c));
    const v = tower(c.sub('vision_config'), body.hidden, c);
    return {
      ...body,
      groups: [...body.groups, v.group],
      otherParams: body.otherParams + v.params,
      vision: { ...v.input, params: v.params },
      ...(v.outer && v.outer.length > 0 && { outerLinears: v.outer }),
    };
  };
}

/** Llama 4 text: MoE every interleave_moe_layer_step-th layer (or moe_layers) with a shared expert. */
function llama4Moe(c: Fields, i: number): Moe | null {
  const step = c.int('interleave_moe_layer_step', 1);
  const listed = c.intList('moe_layers');
  const isMoe = listed.length > 0 ? listed.includes(i) : (i + 1) % step === 0;
  if (!isMoe) return null;
  const ffn = c.int('intermediate_size');
  // HF Llama4TextMoe: router Linear(hidden, experts, bias=False), experts of intermediate_size and one
  // shared_expert Llama4TextMLP of intermediate_size, ungated.
  return {
    experts: c.int('num_local_experts'),
    topK: c.int('num_experts_per_tok', 1),
    ffn,
    routerBias: false,
    expertBias: false,
    sharedFfn: ffn,
    sharedGate: false,
  };
}

/**
 * Llama 4 chunked attention: layers with RoPE attend within attention_chunk_size-token chunks, every
 * no_rope_layer_interval-th (NoPE) layer attends globally (HF Llama4TextConfig no_rope_layers / layer_types
 * "chunked_attention"); the cache of a chunked layer holds at most one chunk.
 */
function llama4Window(c: Fields, _f: LlamaFlavor, i: number): number | null {
  const chunk = c.optInt('attention_chunk_size');
  if (chunk === null) return null;
  const types = c.strList('layer_types');
  if (types) return types[i] === 'chunked_attention' ? chunk : null;
  const noRope = c.intList('no_rope_layers');
  const rope =
    noRope.length > 0 ? noRope[i] === 1 : (i + 1) % c.int('no_rope_layer_interval', 4) !== 0;
  return rope ? chunk : null;
}

// HF Llama4TextConfig defaults: intermediate_size_mlp=16384, tie_word_embeddings=False; QK L2 norm has no weight.
const LLAMA4_DENSE_FFN = 16384;
export const llama4Text = llamaLike({
  tiedDefault: false,
  denseFfn: (c) => c.int('intermediate_size_mlp', LLAMA4_DENSE_FFN),
  moe: llama4Moe,
  window: llama4Window,
});
