/**
 * Reads catalogs/upstream-keys/<list>.json (the top-level keys an upstream tool accepts), for `--from` only:
 * each list is read on first use and kept.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { upstreamKeysSchema, type UpstreamKeyList } from '../schema/upstream-keys.js';
import { DEFAULT_CATALOG_DIR } from './load-catalog.js';
import { UserError } from './errors.js';

const LOADED = new Map<UpstreamKeyList, ReadonlySet<string>>();

/** The file a key list is read from (`dir`: the catalog root; tests pass a temp dir). */
export const upstreamKeysFile = (list: UpstreamKeyList, dir: string | URL = DEFAULT_CATALOG_DIR) =>
  join(dir instanceof URL ? fileURLToPath(dir) : dir, 'upstream-keys', `${list}.json`);

/** Every key of `list`: its sources' keys and the earlier versions' it keeps. */
export function upstreamKeys(list: UpstreamKeyList): ReadonlySet<string> {
  const known = LOADED.get(list);
  if (known) return known;
  const file = upstreamKeysFile(list);
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new UserError(`${file}: cannot read: ${(e as Error).message}`);
  }
  const r = upstreamKeysSchema.safeParse(doc);
  if (!r.success)
    throw new UserError(
      `${file}: ${r.error.issues.map((i) => `✖ ${i.message} → at ${i.path.join('.')}`).join('; ')}`,
    );
  const keys = new Set([...r.data.keys, ...(r.data.earlierKeys ?? [])]);
  LOADED.set(list, keys);
  return keys;
}
