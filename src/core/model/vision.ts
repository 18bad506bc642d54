/**
 * Image tokens of a multimodal model: how `--images` and `--image-pixels` lengthen the language sequence, and
 * what the vision tower itself runs per image (patches, attention spans, FLOPs). Pure.
 */
import type { Arch, LayerGroup, VisionInput, VisionTower } from './arch.js';

/**
 * Tokens one image of `pixels` pixels becomes: the projector's fixed count (Gemma 3 pools to
 * mm_tokens_per_image), else one token per merge x merge patches of patch x patch pixels (Qwen2.5-VL / Qwen3-VL
 * PatchMerger, Llama 4 pixel shuffle, Pixtral patch merger); tiling, break and start/end tokens are left out.
 */
export function imageTokens(v: VisionInput, pixels: number): number {
  if (v.fixedTokens !== null) return v.fixedTokens;
  const capped = v.maxPixels === null ? pixels : Math.min(pixels, v.maxPixels);
  return Math.max(1, Math.round(capped / (v.patch * v.merge) ** 2));
}

/** Vision tokens of `images` images per sample (the model's default image size when `pixels` is absent). */
export function visionTokens(
  arch: Arch,
  images: number,
  pixels?: number,
): { perImage: number; tokens: number; pixels: number } | null {
  if (!arch.vision) return null;
  const px = pixels ?? arch.vision.defaultPixels;
  const perImage = imageTokens(arch.vision, px);
  return { perImage, tokens: images * perImage, pixels: px };
}

/** Attention spans of the tower's layers: `layers` layers each attend over sequences of `span` patches. */
export interface TowerSpan {
  layers: number;
  span: number;
}

/** The tower's own forward for `images` images of `pixels` pixels each (one sample's images). */
export interface TowerRun {
  images: number;
  pixels: number;
  /** Patches the blocks run per image, before merging or pooling (class tokens included). */
  patchesPerImage: number;
  tokensPerImage: number;
  spans: TowerSpan[];
  /** Forward FLOPs per image: linears, attention, patch embedding and merger/projector. */
  flopsPerImage: number;
  /** The attention part of it (QK^T and PV over each span). */
  attnFlopsPerImage: number;
  /** The vision layer group (widths the activation formulas read). */
  group: LayerGroup;
}

/** Tiles an image of `pixels` pixels is cut into, each its own sequence (Llama 4); 1 for whole-image towers. */
function towerTiles(v: VisionInput, t: VisionTower, pixels: number): number {
  if (t.tilePixels === null || t.fixedPatches !== null) return 1;
  const capped = v.maxPixels === null ? pixels : Math.min(pixels, v.maxPixels);
  return Math.max(1, Math.ceil(capped / t.tilePixels));
}

/**
 * Patches per image the tower's blocks run: the fixed grid of a resizing tower (SigLIP), else one per
 * patch x patch pixels of the (capped) image, the tokens' merge^2 patches each (Qwen PatchMerger, Llama 4
 * pixel shuffle, Pixtral patch merger), plus a class token per tile.
 */
export function towerPatches(v: VisionInput, t: VisionTower, pixels: number): number {
  if (t.fixedPatches !== null) return t.fixedPatches + t.extraTokens;
  const tiles = towerTiles(v, t, pixels);
  return imageTokens(v, pixels) * v.merge * v.merge + tiles * t.extraTokens;
}

/** The tower's forward for `images` images per sample, or null for a model without a tower description. */
export function towerRun(arch: Arch, images: number, pixels?: number): TowerRun | null {
  const v = arch.vision;
  const t = v?.tower;
  const group = arch.groups.find((g) => g.name === 'vision');
  if (!v || !t || !group || images <= 0) return null;
  const px = pixels ?? v.defaultPixels;
  const patches = towerPatches(v, t, px);
  const tiles = towerTiles(v, t, px);
  const whole = Math.max(1, Math.round(patches / tiles));
  const full = Math.min(group.count, t.fullAttentionLayers);
  const spans: TowerSpan[] = [{ layers: full, span: whole }];
  if (group.count > full)
    spans.push({ layers: group.count - full, span: Math.min(whole, t.windowPatches ?? whole) });
  const linear = group.linears.reduce((a, l) => a + l.inFeatures * l.outFeatures * l.copies, 0);
  const width = group.heads * group.headDim;
  // 2 FLOPs per weight per patch; attention QK^T and PV: 4 x span x width per patch per layer, no causal
  // half (the tower is bidirectional: Korthikanti et al. 2022 §3 / PaLM App. B count).
  const attention = spans.reduce((a, s) => a + s.layers * 4 * patches * s.span * width, 0);
  const tokens = imageTokens(v, px);
  const flopsPerImage =
    2 * group.count * linear * patches +
    attention +
    2 * t.patchEmbedParams * patches +
    2 * t.projectorParams * tokens;
  return {
    images,
    pixels: px,
    patchesPerImage: patches,
    tokensPerImage: tokens,
    spans,
    flopsPerImage,
    attnFlopsPerImage: attention,
    group,
  };
}
