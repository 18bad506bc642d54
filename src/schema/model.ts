/** On-disk format of one model catalog file: catalogs/models/<id>.json. */
import { z } from 'zod';

/** Catalog ids are lowercase file names: letters, digits, '.', '_' and '-'. */
export const MODEL_ID_PATTERN = /^[a-z0-9][a-z0-9._-]*$/;

/**
 * A published quantized copy of the model: its repository and the quantization_config its config.json declares.
 * `--model <repo>` reads as the entry's config with that quantization_config, as the copy's config.json would.
 */
export const quantizedCopySchema = z
  .object({
    /** The copy's Hugging Face repository. */
    repo: z.string().regex(/^[\w.-]+\/[\w.-]+$/, 'a Hugging Face repo id like org/name'),
    /** Where its config.json was read (its URL, or the public copy quoted). */
    source: z.url(),
    /** What else was read, and the fields its config.json gives otherwise than this entry's. */
    notes: z.string().min(1).optional(),
    /** `quantization_config` of its config.json, verbatim. */
    quantizationConfig: z.looseObject({ quant_method: z.string().min(1) }),
  })
  .strict();

export const modelEntrySchema = z
  .object({
    /** Catalog id = file name without `.json`. */
    id: z.string().regex(MODEL_ID_PATTERN, 'lowercase letters, digits, ".", "_" and "-"'),
    /** Hugging Face repo id (`org/name`), or null for a config that is not on the Hub. */
    hfId: z
      .string()
      .regex(/^[\w.-]+\/[\w.-]+$/, 'a Hugging Face repo id like org/name')
      .nullable(),
    /** Other names that resolve to this entry (instruct/chat twins with the same architecture). */
    aliases: z.array(z.string().min(1)),
    /** Published quantized copies of this model (or of an alias), each with its quantization_config. */
    quantized: z.array(quantizedCopySchema).optional(),
    family: z.string().min(1),
    /** Where the config comes from (the config.json URL). */
    source: z.url(),
    /** Exact published total parameter count, when one is known. */
    paramsPublished: z.number().int().positive().optional(),
    paramsSource: z.string().min(1).optional(),
    /** What the checkpoint's files hold when it stores more than the model loads (MTP layers): the Hub total. */
    checkpointParamsPublished: z.number().int().positive().optional(),
    checkpointParamsSource: z.string().min(1).optional(),
    notes: z.string().min(1).optional(),
    /** The model's Hugging Face config.json, as published (read by core/model/hf-config.ts). */
    config: z.looseObject({ model_type: z.string() }),
  })
  .strict()
  .refine((e) => (e.paramsPublished === undefined) === (e.paramsSource === undefined), {
    message: 'paramsPublished and paramsSource go together',
    path: ['paramsSource'],
  })
  .refine(
    (e) => (e.checkpointParamsPublished === undefined) === (e.checkpointParamsSource === undefined),
    {
      message: 'checkpointParamsPublished and checkpointParamsSource go together',
      path: ['checkpointParamsSource'],
    },
  );

export type ModelEntry = z.infer<typeof modelEntrySchema>;
export type QuantizedCopy = z.infer<typeof quantizedCopySchema>;
