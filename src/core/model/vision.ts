/** Image tokens of a multimodal model: how `--images` and `--image-pixels` lengthen the language sequence. Pure. */
import type { Arch, VisionInput } from './arch.js';

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
