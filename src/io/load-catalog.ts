/**
 * Reads catalogs/ (GPUs, offers, circuits, published checkpoints), validates each file with its schema, and resolves
 * ids and aliases.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { z } from 'zod';
import { usePublishedCheckpoints } from '../core/launch/checkpoints.js';
import { checkpointCatalogSchema, type CheckpointCatalog } from '../schema/checkpoints.js';
import { circuitSchema, type Circuit } from '../schema/circuit.js';
import { datasetSchema, type Dataset } from '../schema/dataset.js';
import { gpuSchema, type Gpu } from '../schema/gpu.js';
import { offerFileSchema, type Offer } from '../schema/offer.js';
import { UserError } from './errors.js';
import { packagePath } from './paths.js';
import { didYouMean } from './suggest.js';

/** The package's catalogs/ folder. */
export const DEFAULT_CATALOG_DIR = packagePath('catalogs/');

export interface CatalogOptions {
  /** Root folder holding gpus/, offers/ and circuits/ (tests pass a temp dir). */
  readonly dir?: string | URL;
}

const rootOf = (opts?: CatalogOptions): string => {
  const dir = opts?.dir ?? DEFAULT_CATALOG_DIR;
  return dir instanceof URL ? fileURLToPath(dir) : dir;
};

/** `<file>: ✖ <message> → at <path>`, issues joined on one line (zod prettifyError style). */
function invalid(file: string, issues: readonly z.core.$ZodIssue[]): UserError {
  const parts = issues.map((i) => {
    const at = i.path.length > 0 ? ` → at ${i.path.map(String).join('.')}` : '';
    return `✖ ${i.message}${at}`;
  });
  return new UserError(
    `${file}: ${parts.join('; ')}`,
    'Fix the catalog file; catalogs/README.md lists every field.',
  );
}

function readJson(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new UserError(`${file}: cannot read: ${(e as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new UserError(`${file}: invalid JSON: ${(e as Error).message}`);
  }
}

/** Parsed catalog files, keyed by path and checked against mtime and size (the explorer re-plans often). */
const PARSED = new Map<string, { mtimeMs: number; size: number; value: unknown }>();

function parseFile<S extends z.ZodType>(file: string, schema: S): z.infer<S> {
  let stamp: { mtimeMs: number; size: number } | null = null;
  try {
    const st = statSync(file);
    stamp = { mtimeMs: st.mtimeMs, size: st.size };
  } catch {
    // unreadable: readJson reports it
  }
  const hit = PARSED.get(file);
  if (stamp && hit && hit.mtimeMs === stamp.mtimeMs && hit.size === stamp.size)
    return hit.value as z.infer<S>;
  const result = schema.safeParse(readJson(file));
  if (!result.success) throw invalid(file, result.error.issues);
  if (stamp) PARSED.set(file, { ...stamp, value: result.data });
  return result.data;
}

/** Parse a one-entry-per-file catalog file and check that its id equals the file name. */
function parseEntry<S extends z.ZodType<{ id: string }>>(file: string, schema: S): z.infer<S> {
  const entry = parseFile(file, schema);
  const expected = basename(file, '.json');
  if (entry.id !== expected) {
    throw new UserError(
      `${file}: ✖ id '${entry.id}' must equal the file name '${expected}' → at id`,
    );
  }
  return entry;
}

const jsonFiles = (dir: string): string[] =>
  existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => f.endsWith('.json'))
        .sort()
        .map((f) => join(dir, f))
    : [];

/** Every GPU in catalogs/gpus/, sorted by id. */
export function loadGpus(opts?: CatalogOptions): Gpu[] {
  return jsonFiles(join(rootOf(opts), 'gpus'))
    .map((f) => parseEntry(f, gpuSchema))
    .sort(byId);
}

const byId = (a: { id: string }, b: { id: string }): number =>
  a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

const SAFE_ID = /^[a-z0-9][a-z0-9.-]*$/;

/**
 * A GPU by id or alias among `gpus`, case-insensitive. A family name whose variants differ in memory
 * (`a100`: 40 or 80 GB) is an error listing them; an unknown name suggests the nearest ids.
 */
export function lookupGpu(gpus: readonly Gpu[], name: string, field: string): Gpu {
  const key = name.trim().toLowerCase();
  const exact = gpus.find((g) => g.id === key);
  if (exact) return exact;
  // Memory variants of one card (a100 → a100-40gb-*, a100-80gb-*), not another SKU (rtx-3060 vs rtx-3060-ti).
  const variantOf = (id: string) =>
    id.startsWith(`${key}-`) && !/^(ti|super)(-|$)/.test(id.slice(key.length + 1));
  const variants = gpus.filter((g) => variantOf(g.id) || g.aliases.includes(key));
  if (new Set(variants.map((g) => g.memoryMiB)).size > 1)
    throw new UserError(
      `${field}: '${name}' is ambiguous; expected one of ${variants.map((g) => `${g.id} (${Math.round(g.memoryMiB / 1024)} GiB)`).join(', ')}`,
    );
  const hit = gpus.find((g) => g.aliases.includes(key));
  if (hit) return hit;
  const hint = didYouMean(
    key,
    gpus.flatMap((g) => [g.id, ...g.aliases]),
  );
  throw new UserError(
    `${field}: got '${name}'; ${hint ? `${hint} ` : ''}expected a GPU id from catalogs/gpus: ${gpus.map((g) => g.id).join(', ')}`,
  );
}

/** A GPU by id or alias, case-insensitive (lookupGpu); errors name --gpu. */
export function findGpu(idOrAlias: string, opts?: CatalogOptions): Gpu {
  const key = idOrAlias.trim().toLowerCase();
  const dir = join(rootOf(opts), 'gpus');
  // Fast path for the cold-start budget: most lookups are by id, one file read.
  if (SAFE_ID.test(key) && existsSync(join(dir, `${key}.json`))) {
    return parseEntry(join(dir, `${key}.json`), gpuSchema);
  }
  return lookupGpu(loadGpus(opts), idOrAlias, '--gpu');
}

/** Every offer in catalogs/offers/<provider>.json; each offer's provider must equal its file name. */
export function loadOffers(opts?: CatalogOptions): Offer[] {
  return jsonFiles(join(rootOf(opts), 'offers')).flatMap((file) => {
    const offers = parseFile(file, offerFileSchema);
    const provider = basename(file, '.json');
    offers.forEach((o, i) => {
      if (o.provider !== provider) {
        throw new UserError(
          `${file}: ✖ provider '${o.provider}' must equal the file name '${provider}' → at ${i}.provider`,
        );
      }
    });
    return offers;
  });
}

/** The published quantized checkpoints of catalogs/checkpoints.json, by the base model's Hugging Face id. */
export function loadCheckpoints(opts?: CatalogOptions): CheckpointCatalog {
  return parseFile(join(rootOf(opts), 'checkpoints.json'), checkpointCatalogSchema);
}

// The core reads the published checkpoints through this (read on the first lookup; every command, the planner's
// worker and the explorer's modules import this module through io/load-model.ts).
usePublishedCheckpoints(() => loadCheckpoints());

/** Every circuit preset in catalogs/circuits/, sorted by id. */
export function loadCircuits(opts?: CatalogOptions): Circuit[] {
  return jsonFiles(join(rootOf(opts), 'circuits'))
    .map((f) => parseEntry(f, circuitSchema))
    .sort(byId);
}

/** A circuit preset by id, case-insensitive; unknown ids are a UserError naming the flag. */
export function findCircuit(id: string, opts?: CatalogOptions & { flag?: string }): Circuit {
  const key = id.trim().toLowerCase();
  const dir = join(rootOf(opts), 'circuits');
  if (SAFE_ID.test(key) && existsSync(join(dir, `${key}.json`))) {
    return parseEntry(join(dir, `${key}.json`), circuitSchema);
  }
  const ids = loadCircuits(opts).map((c) => c.id);
  const hint = didYouMean(key, ids);
  throw new UserError(
    `${opts?.flag ?? '--circuit'}: got '${id}'; ${hint ? `${hint} ` : ''}expected one of ${ids.join(', ')}`,
  );
}

/** A serving benchmark's dataset, catalogs/datasets/<id>.json: its length percentiles by sampler. */
export function loadDataset(id: string, opts?: CatalogOptions): Dataset {
  const file = join(rootOf(opts), 'datasets', `${id}.json`);
  if (!existsSync(file))
    throw new UserError(
      `dataset: got '${id}'; expected one of catalogs/datasets: ${jsonFiles(
        join(rootOf(opts), 'datasets'),
      )
        .map((f) => basename(f, '.json'))
        .join(', ')}`,
    );
  return parseEntry(file, datasetSchema);
}
