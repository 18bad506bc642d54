/**
 * On-disk format of catalogs/upstream-keys/<list>.json: the top-level config keys an upstream tool accepts (key
 * names only), read from its own sources at a pinned commit or package version, so that `--from` tells an unknown
 * key (a typo) from a known key vramplan does not use. scripts/refresh-upstream-keys regenerates `keys`.
 */
import { z } from 'zod';

/** The key lists kept: one file each. */
export const UPSTREAM_KEY_LISTS = ['axolotl', 'llamafactory', 'hf-args', 'trl'] as const;
export type UpstreamKeyList = (typeof UPSTREAM_KEY_LISTS)[number];

const sourceFiles = {
  /** Files (globs) the classes are read from, relative to the repository or package root. */
  files: z.array(z.string().min(1)).min(1),
  /** The classes whose fields (and their bases' fields, pydantic aliases included) are the keys. */
  classes: z.array(z.string().min(1)).min(1),
};

const repoSource = z
  .object({
    repo: z.string().regex(/^[\w.-]+\/[\w.-]+$/, 'expected owner/name'),
    commit: z.string().regex(/^[0-9a-f]{40}$/, 'expected a 40-hex commit'),
    ...sourceFiles,
  })
  .strict();

const packageSource = z
  .object({
    package: z.string().min(1),
    version: z.string().regex(/^\d+(\.\d+)*$/, 'expected a pinned version'),
    ...sourceFiles,
  })
  .strict();

const sortedUnique = (keys: readonly string[]) => keys.every((k, i) => i === 0 || keys[i - 1]! < k);

export const upstreamKeysSchema = z
  .object({
    name: z.string().min(1),
    sources: z.array(z.union([repoSource, packageSource])).min(1),
    keys: z.array(z.string().min(1)).min(1).refine(sortedUnique, 'expected sorted, unique keys'),
    /**
     * Keys of earlier versions the sources no longer have (removed or renamed upstream), still found in older
     * configs: known, not typos. The refresh keeps them.
     */
    earlierKeys: z
      .array(z.string().min(1))
      .refine(sortedUnique, 'expected sorted, unique keys')
      .optional(),
  })
  .strict();

export type UpstreamKeys = z.infer<typeof upstreamKeysSchema>;
