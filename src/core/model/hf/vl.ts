/** Qwen2-VL and LLaVA wrappers. */
import type { VisionInput, LinearRole } from '../arch.js';
import { normSize } from './blocks.js';
import type { ArchBody } from './blocks.js';
import { RGB_CHANNELS } from './encoders.js';
import { ConfigError, Fields, isObject } from './fields.js';
import type { Json } from './fields.js';
import type { LlamaFlavor } from './llama.js';
import { QWEN_DEFAULT_PIXELS, multimodal, oneOff, visionGroup } from './multimodal.js';
import type { Tower } from './multimodal.js';

// ---------------------------------------------------------------------------------------------
// Qwen2-VL and LLaVA wrappers

/**
 * Qwen2-VL (HF Qwen2VisionTransformerPretrainedModel, modeling_qwen2_vl.py, main @928b5565; Qwen2-VL-7B's Hub total
 * reproduced exactly): a Conv3d patch embedding without
 * bias over temporal_patch_size frames, depth LayerNorm blocks (qkv and proj with bias, fc1/fc2 of embed_dim x
 * mlp_ratio with bias) and the PatchMerger (ln_q LayerNorm, Linear(e m^2, e m^2), Linear(e m^2, hidden_size)).
 */
export function qwen2Vision(v: Fields, textHidden: number): Tower {
  const embed = v.int('embed_dim');
  const patch = v.int('patch_size');
  const merge = v.int('spatial_merge_size', 2);
  const temporal = v.int('temporal_patch_size', 2);
  const out = v.int('hidden_size', textHidden);
  // HF Qwen2VLVisionConfig default mlp_ratio=4.
  const ffn = Math.round(embed * v.num('mlp_ratio', 4));
  const g = visionGroup({
    hidden: embed,
    heads: v.int('num_heads'),
    layers: v.int('depth'),
    ffn,
    gated: false,
    bias: true,
    norm: 'layer',
    fusedQkv: true,
    // VisionAttention qkv / proj and VisionMlp fc1 / fc2 (transformers 5.14.1 modeling_qwen2_vl.py): no
    // contract target names them.
    unnamed: ['q', 'k', 'v', 'o', 'up', 'down'],
  });
  const m = embed * merge * merge;
  const params =
    v.int(['in_chans', 'in_channels'], RGB_CHANNELS) * temporal * patch * patch * embed +
    normSize(embed, true) +
    m * m +
    m +
    m * out +
    out;
  return {
    group: g,
    params,
    // PatchMerger mlp.0 and mlp.2.
    outer: oneOff([m, m], [m, out]),
    input: { patch, merge, fixedTokens: null, defaultPixels: QWEN_DEFAULT_PIXELS, maxPixels: null },
  };
}

// HF CLIPVisionConfig defaults (configuration_clip.py): hidden_size=768, intermediate_size=3072,
// num_hidden_layers=12, num_attention_heads=12, image_size=224, patch_size=32.
const CLIP_VISION = { hidden: 768, ffn: 3072, layers: 12, heads: 12, image: 224, patch: 32 };
// LLaVA-NeXT anyres: the base image plus the tiles of its best grid; 2 x 2 tiles (image_grid_pinpoints 672 x 672)
// is the common case, 5 images of image_size^2 in all (HF LlavaNextForConditionalGeneration pack_image_features).
const LLAVA_NEXT_VIEWS = 5;

/**
 * LLaVA / LLaVA-NeXT (HF LlavaForConditionalGeneration, LlavaNextForConditionalGeneration): a CLIP tower
 * (CLIPVisionModel: patch Conv2d without bias, class embedding, (image/patch)^2 + 1 positions, pre_layrnorm,
 * LayerNorm blocks with biases, post_layernorm) and the projector linear_1 (vision hidden x feature layers ->
 * text hidden), GELU, linear_2 (text -> text), bias multimodal_projector_bias (default True); NeXT adds
 * image_newline (one text-hidden vector). Each image view becomes (image/patch)^2 tokens (CLS dropped).
 */
function llavaVision(next: boolean) {
  return (v: Fields, textHidden: number, top: Fields): Tower => {
    const kind = v.str('model_type', 'clip_vision_model');
    if (kind !== 'clip_vision_model')
      throw new ConfigError(`${v.path}model_type`, kind, "'clip_vision_model' (a CLIP tower)");
    const hidden = v.int('hidden_size', CLIP_VISION.hidden);
    const patch = v.int('patch_size', CLIP_VISION.patch);
    const image = v.int('image_size', CLIP_VISION.image);
    const g = visionGroup({
      hidden,
      heads: v.int('num_attention_heads', CLIP_VISION.heads),
      layers: v.int('num_hidden_layers', CLIP_VISION.layers),
      ffn: v.int('intermediate_size', CLIP_VISION.ffn),
      gated: false,
      bias: true,
      norm: 'layer',
    });
    const layers = top.raw.vision_feature_layer;
    const featureIn = hidden * (Array.isArray(layers) ? layers.length : 1);
    const bias = top.bool('multimodal_projector_bias', true) ? 1 : 0;
    const patches = Math.floor(image / patch) ** 2;
    const params =
      v.int('num_channels', RGB_CHANNELS) * patch * patch * hidden +
      hidden +
      (patches + 1) * hidden +
      2 * normSize(hidden, true) +
      (featureIn + bias) * textHidden +
      (textHidden + bias) * textHidden +
      (next ? textHidden : 0);
    const input: VisionInput = next
      ? {
          patch,
          merge: 1,
          fixedTokens: null,
          defaultPixels: LLAVA_NEXT_VIEWS * image * image,
          maxPixels: null,
        }
      : { patch, merge: 1, fixedTokens: patches, defaultPixels: image * image, maxPixels: null };
    // LlavaMultiModalProjector linear_1 / linear_2.
    const outer = oneOff([featureIn, textHidden], [textHidden, textHidden]);
    return { group: g, params, input, outer };
  };
}

// The text defaults LLaVA configs rely on (their text_config often names only what differs from the class):
// HF LlamaConfig (configuration_llama.py) and MistralConfig (configuration_mistral.py) defaults.
const TEXT_DEFAULTS: Record<string, Json> = {
  llama: {
    vocab_size: 32000,
    hidden_size: 4096,
    intermediate_size: 11008,
    num_hidden_layers: 32,
    num_attention_heads: 32,
    max_position_embeddings: 2048,
  },
  mistral: {
    vocab_size: 32000,
    hidden_size: 4096,
    intermediate_size: 14336,
    num_hidden_layers: 32,
    num_attention_heads: 32,
    num_key_value_heads: 8,
    max_position_embeddings: 131072,
    sliding_window: 4096,
  },
};

// HF Glm4vVisionConfig defaults (configuration_glm4v.py): spatial_merge_size=2, temporal_patch_size=2, in_channels=3.
/**
 * GLM-4.1V / GLM-4.5V vision tower (HF Glm4vVisionModel, modeling_glm4v.py @03eac6f6): learned positions over
 * (image_size/patch_size)^2, a Conv3d patch embedding with bias, post_conv_layernorm, depth RMSNorm blocks (qkv
 * with bias attention_bias, proj without; a SwiGLU MLP hidden -> out_hidden_size -> hidden without bias),
 * post_layernorm, the downsample Conv2d (hidden -> out_hidden_size, kernel = stride = spatial_merge_size, with bias)
 * and the merger (proj out x out, LayerNorm, SwiGLU out -> intermediate_size -> out, no biases).
 */
export function glm4vVision(v: Fields): Tower {
  const hidden = v.int('hidden_size');
  const patch = v.int('patch_size');
  const image = v.int('image_size');
  const merge = v.int('spatial_merge_size', 2);
  const out = v.int('out_hidden_size');
  const g = visionGroup({
    hidden,
    heads: v.int('num_heads'),
    layers: v.int('depth'),
    ffn: out,
    gated: true,
    bias: v.bool('attention_bias', false),
    norm: 'rms',
    fusedQkv: true,
  });
  const noBias = new Set<LinearRole>(['o', 'gate', 'up', 'down']);
  const linears = g.linears.map((l) => (noBias.has(l.role) ? { ...l, bias: false } : l));
  const ffn = v.int('intermediate_size');
  const params =
    Math.floor(image / patch) ** 2 * hidden +
    v.int('in_channels', RGB_CHANNELS) * v.int('temporal_patch_size', 2) * patch * patch * hidden +
    hidden +
    2 * hidden +
    hidden * out * merge * merge +
    out +
    out * out +
    normSize(out, true) +
    3 * out * ffn;
  return {
    group: { ...g, linears },
    params,
    input: { patch, merge, fixedTokens: null, defaultPixels: image * image, maxPixels: null },
  };
}

// Glm4vTextAttention (modeling_glm4v.py @03eac6f6): q/k/v always with bias, o_proj without, head_dim = hidden /
// heads; Glm4vTextDecoderLayer has the 4 RMSNorms of Glm4.
export const glm4vText: LlamaFlavor = {
  tiedDefault: false,
  qkvBias: () => true,
  oBias: () => false,
  normsPerLayer: 4,
};

/** Glm4vTextMLP (modeling_glm4v.py @03eac6f6) holds gate and up in one gate_up_proj Linear. */
export const withGateUpProj = (b: ArchBody): ArchBody => ({
  ...b,
  groups: b.groups.map((g) => ({
    ...g,
    linears: g.linears.map((l) =>
      l.role === 'gate' || l.role === 'up' ? { ...l, module: 'gate_up_proj' } : l,
    ),
  })),
});

/** The text config with head_dim dropped: Glm4vTextAttention takes hidden_size / num_attention_heads. */
export const withoutHeadDim = (t: Fields): Fields => {
  const { head_dim: _unused, ...rest } = t.raw;
  return new Fields(rest, t.path);
};

/**
 * LLaVA wrappers: text_config (default model_type llama, HF LlavaConfig) over its class defaults, a CLIP tower.
 * `textBuild` reads the text model by its model_type (the dispatch table hands itself in).
 */
export function llava(next: boolean, textBuild: (modelType: string, t: Fields) => ArchBody) {
  return (c: Fields): ArchBody => {
    const raw = isObject(c.raw.text_config) ? c.raw.text_config : {};
    const type = typeof raw.model_type === 'string' ? raw.model_type : 'llama';
    const text = { ...(TEXT_DEFAULTS[type] ?? {}), ...raw };
    const filled = new Fields({ ...c.raw, text_config: text }, c.path);
    return multimodal((t) => textBuild(type, t), llavaVision(next))(filled);
  };
}
