/** Model-config helpers the model-family tests share: a catalog entry's config, its Arch, KV bytes at a length. */
import { readFileSync } from 'node:fs';
import { archFromHfConfig, type Arch } from '../../src/core/model/index.js';
import { estimateMemory } from '../../src/core/memory/index.js';
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';

/** The Hugging Face config.json of catalogs/models/<id>.json. */
export const catalogConfig = (id: string): Record<string, unknown> =>
  (
    JSON.parse(
      readFileSync(new URL(`../../catalogs/models/${id}.json`, import.meta.url), 'utf8'),
    ) as { config: Record<string, unknown> }
  ).config;

/** A config read as a local file would be (id 'x', no Hub id). */
export const archOf = (config: Record<string, unknown>): Arch =>
  archFromHfConfig(config, { id: 'x', hfId: null });

/** Inference options at `seq` tokens and `batch` sequences. */
export const inference = (seq: number, batch = 1): EstimateOptions => ({
  ...defaultOptions('inference'),
  seq,
  batch,
});

/** The KV cache of `batch` sequences of `seq` tokens, per GPU. */
export const kvOf = (a: Arch, seq: number, batch = 1): number =>
  estimateMemory(a, inference(seq, batch)).perGpu.breakdown.kvCache;
