/**
 * On-disk format of catalogs/datasets/<id>.json: a serving benchmark's dataset as its samplers draw it, the
 * percentiles of prompt and output tokens after each sampler's filter.
 */
import { z } from 'zod';

const lengths = z.array(z.number().nonnegative());

const samplerSchema = z
  .object({
    /** Conversations the sampler keeps of those read. */
    count: z.number().int().positive(),
    meanPrompt: z.number().positive(),
    meanOutput: z.number().positive(),
    /** Tokens at each of the file's `levels` (percent). */
    prompt: lengths,
    output: lengths,
  })
  .strict();

export const datasetSchema = z
  .object({
    id: z.string().regex(/^[a-z0-9][a-z0-9.-]*$/, 'expected a lower-case kebab-case id'),
    name: z.string().min(1),
    source: z.url({ protocol: /^https?$/ }),
    /** Where the copy that was counted came from. */
    readFrom: z
      .object({ url: z.url({ protocol: /^https?$/ }), sha256: z.string(), what: z.string() })
      .strict(),
    sources: z.array(z.object({ url: z.url({ protocol: /^https?$/ }), what: z.string() }).strict()),
    tokenizer: z.string().min(1),
    records: z.number().int().positive(),
    withTwoTurns: z.number().int().positive(),
    /** Percent levels of every sampler's tables, rising from 0. */
    levels: z.array(z.number().min(0).max(100)),
    samplers: z.record(z.string(), samplerSchema),
    notes: z.string().optional(),
  })
  .strict()
  .refine((d) => d.levels.every((l, i) => i === 0 || l > d.levels[i - 1]!) && d.levels[0] === 0, {
    message: 'levels must rise from 0',
    path: ['levels'],
  })
  .refine(
    (d) =>
      Object.values(d.samplers).every(
        (s) =>
          s.prompt.length === d.levels.length &&
          s.output.length === d.levels.length &&
          [s.prompt, s.output].every((t) => t.every((x, i) => i === 0 || x >= t[i - 1]!)),
      ),
    {
      message: "each sampler's tables must have one non-decreasing entry per level",
      path: ['samplers'],
    },
  );

export type Dataset = z.infer<typeof datasetSchema>;
