/**
 * On-disk format of catalogs/checkpoints.json: quantized checkpoints published on the Hugging Face Hub, by the base
 * model's Hugging Face id (a catalog model's `hfId`, or an alias with quantized copies of its own, such as
 * Qwen/Qwen2.5-Coder-32B-Instruct under qwen2.5-32b). A serving plan in one of these formats loads the published
 * repository; in a format none holds, serve.sh has the user make it first (core/launch/checkpoints.ts).
 */
import { z } from 'zod';
import { GGUF_ONLY, WEIGHT_DTYPES, type WeightDtype } from './estimate.js';

const HF_REPO = /^[\w.-]+\/[\w.-]+$/;
const repo = z.string().regex(HF_REPO, 'expected a Hugging Face repository id, owner/name');

/** `quantization_config.quant_method` of the repository's config.json; `gguf` for a repository of GGUF files. */
export const QUANT_METHODS = [
  'awq',
  'gptq',
  'compressed-tensors',
  'modelopt',
  'fbgemm_fp8',
  'mxfp4',
  'gguf',
] as const;
export type QuantMethod = (typeof QUANT_METHODS)[number];

/**
 * The weight formats a published checkpoint can stand for, and the config.json methods that hold each: AWQ/GPTQ
 * (or llm-compressor's W4A16) int4 on the Marlin kernels, FP8 W8A8 with one scale per output channel or tensor
 * (llm-compressor, Meta's fbgemm), llm-compressor's W8A8 int8, NVFP4 (ModelOpt or llm-compressor), MXFP4 (gpt-oss) and llama.cpp's GGUF types.
 */
export const PUBLISHED_METHODS: Readonly<Partial<Record<WeightDtype, readonly QuantMethod[]>>> = {
  int4: ['awq', 'gptq', 'compressed-tensors'],
  fp8: ['compressed-tensors', 'fbgemm_fp8'],
  int8: ['compressed-tensors'],
  nvfp4: ['modelopt', 'compressed-tensors'],
  mxfp4: ['mxfp4'],
  ...GGUF_ONLY,
};

/** A published config's declared positions and the YaRN scaling its model card gives past them. */
export const contextExtensionSchema = z
  .object({
    /** max_position_embeddings of the repository's config.json. */
    declaredPositions: z.number().int().positive(),
    /** The card's YaRN: original_max_position_embeddings, the largest factor it gives, the config's rope_theta. */
    yarn: z
      .object({
        originalMaxPositions: z.number().int().positive(),
        maxFactor: z.number().int().min(2),
        ropeTheta: z.number().positive(),
      })
      .strict(),
    /** The model card the YaRN paragraph is read from. */
    source: z.url({ protocol: /^https?$/ }),
    /** Its words, and what else was read. */
    notes: z.string().optional(),
  })
  .strict();

export const publishedCheckpointSchema = z
  .object({
    /** The weight format a plan prices, which the repository holds. */
    weights: z.enum(WEIGHT_DTYPES),
    /** The repository MODEL points at. */
    repo,
    /** `quantization_config.quant_method` of its config.json (`gguf`: GGUF files, one per type). */
    quantMethod: z.enum(QUANT_METHODS),
    /** The model that was quantized, where it is not the base itself (its instruction-tuned release). */
    quantizedFrom: repo.optional(),
    /** The repository's model page. */
    source: z.url({ protocol: /^https?$/ }),
    /** What was confirmed (format, files) and where. */
    notes: z.string().optional(),
    /**
     * Its config.json declares fewer positions than the base model a plan counts, and its model card gives YaRN past
     * them: serve.sh writes that override for a longer context (core/launch/checkpoints.ts contextOverride).
     */
    contextExtension: contextExtensionSchema.optional(),
  })
  .strict()
  .superRefine((c, ctx) => {
    const methods = PUBLISHED_METHODS[c.weights];
    if (!methods)
      ctx.addIssue({
        code: 'custom',
        message: `weights ${c.weights} is not a published-checkpoint format; expected one of ${Object.keys(PUBLISHED_METHODS).join(', ')}`,
        path: ['weights'],
      });
    else if (!methods.includes(c.quantMethod))
      ctx.addIssue({
        code: 'custom',
        message: `quantMethod ${c.quantMethod} does not hold ${c.weights} weights; expected ${methods.join(' or ')}`,
        path: ['quantMethod'],
      });
  });

/** Base model's Hugging Face id → its published checkpoints, one per weight format. */
export const checkpointCatalogSchema = z
  .record(
    z.string().regex(HF_REPO, 'expected the base model’s Hugging Face id'),
    z.array(publishedCheckpointSchema).min(1),
  )
  .superRefine((byBase, ctx) => {
    for (const [base, list] of Object.entries(byBase)) {
      const seen = new Set<string>();
      list.forEach((c, i) => {
        if (seen.has(c.weights))
          ctx.addIssue({
            code: 'custom',
            message: `a second ${c.weights} checkpoint of ${base}`,
            path: [base, i, 'weights'],
          });
        seen.add(c.weights);
      });
    }
  });

export type PublishedCheckpoint = z.infer<typeof publishedCheckpointSchema>;
export type CheckpointCatalog = z.infer<typeof checkpointCatalogSchema>;
