/**
 * A Hugging Face repo id that is not in the catalog: read it from the Hugging Face cache, or fetch its
 * config.json and safetensors headers (exact parameter counts, tensor data never downloaded) from the Hub.
 *
 * Environment, as huggingface_hub reads it (https://huggingface.co/docs/huggingface_hub/package_reference/environment_variables):
 * HF_ENDPOINT (default https://huggingface.co), HF_TOKEN (Bearer token for gated/private repos),
 * HF_HUB_OFFLINE=1 (never touch the network), HF_HUB_CACHE / HF_HOME / XDG_CACHE_HOME (cache folder).
 * Files come from `{endpoint}/{repo}/resolve/{revision}/{file}` (https://huggingface.co/docs/hub/api).
 * What is fetched is kept in vramplan's own cache ($XDG_CACHE_HOME/vramplan/hub/<owner>/<name>/):
 * config.json, the index, and header-only copies of the safetensors shards (never written into the
 * Hugging Face cache, which holds complete files only).
 */
import {
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { UserError } from './errors.js';
import { resolveModel } from './load-model.js';

/** `owner/name` as the Hub spells repo ids (https://huggingface.co/docs/hub/repositories). */
export const REPO_ID = /^[A-Za-z0-9][\w.-]*\/[\w.-]+$/;

const DEFAULT_ENDPOINT = 'https://huggingface.co';
// Per request; VRAMPLAN_HUB_TIMEOUT (seconds) overrides it.
const DEFAULT_TIMEOUT_S = 10;
const CONFIG = 'config.json';
const INDEX = 'model.safetensors.index.json';
const SINGLE = 'model.safetensors';
const HEADER_LENGTH_BYTES = 8;
// The reference safetensors reader refuses headers over 100 MB.
const MAX_HEADER_BYTES = 100_000_000;
const REVISION = 'main';

const env = (k: string): string | undefined => {
  const v = process.env[k];
  return v === undefined || v === '' ? undefined : v;
};

const offline = () => /^(1|true|yes|on)$/i.test(env('HF_HUB_OFFLINE') ?? '');

/** The Hugging Face hub cache folder (huggingface_hub's resolution order). */
export function hfCacheDir(): string {
  const hub = env('HF_HUB_CACHE');
  if (hub) return hub;
  const home = env('HF_HOME');
  if (home) return join(home, 'hub');
  return join(env('XDG_CACHE_HOME') ?? join(homedir(), '.cache'), 'huggingface', 'hub');
}

/** vramplan's own cache of fetched configs and headers. */
export function vramplanHubDir(repo: string): string {
  return join(
    env('XDG_CACHE_HOME') ?? join(homedir(), '.cache'),
    'vramplan',
    'hub',
    ...repo.split('/'),
  );
}

/** A snapshot folder of `repo` in the Hugging Face cache that has config.json, or null. */
function hfCachedSnapshot(repo: string): string | null {
  const root = join(hfCacheDir(), `models--${repo.replace('/', '--')}`);
  if (!existsSync(root)) return null;
  const refFile = join(root, 'refs', REVISION);
  const snapshots = join(root, 'snapshots');
  const candidates: string[] = [];
  if (existsSync(refFile)) candidates.push(readFileSync(refFile, 'utf8').trim());
  if (existsSync(snapshots)) candidates.push(...readdirSync(snapshots).sort());
  for (const c of candidates) {
    const dir = join(snapshots, c);
    if (existsSync(join(dir, CONFIG))) return dir;
  }
  return null;
}

/**
 * The model spec `estimate` should resolve: `spec` itself when the catalog or a path knows it; else a
 * local folder with the repo's config.json (Hugging Face cache, vramplan's cache, or fetched now).
 */
export async function prepareModel(spec: string, flag = '--model'): Promise<string> {
  if (!REPO_ID.test(spec) || existsSync(spec)) return spec;
  let offlineError: UserError;
  try {
    resolveModel(spec, { flag });
    return spec;
  } catch (e) {
    if (!(e instanceof UserError)) throw e;
    offlineError = e;
  }
  const cached = hfCachedSnapshot(spec);
  if (cached) return cached;
  const own = vramplanHubDir(spec);
  if (existsSync(join(own, CONFIG))) return own;
  const near = /did you mean [^?]+\?/.exec(offlineError.message)?.[0];
  const ways = `give --model a path to its config.json or checkpoint folder, or a catalog id${near ? ` (${near})` : ''}`;
  if (offline())
    throw new UserError(
      `${flag}: '${spec}' is not in the catalog nor in the Hugging Face cache (${hfCacheDir()}), and HF_HUB_OFFLINE is set: ${ways}, or unset HF_HUB_OFFLINE to fetch it`,
    );
  await fetchRepo(spec, own, flag, ways);
  return own;
}

class Hub {
  readonly endpoint = (env('HF_ENDPOINT') ?? DEFAULT_ENDPOINT).replace(/\/+$/, '');
  readonly timeoutMs =
    Math.max(0.1, Number(env('VRAMPLAN_HUB_TIMEOUT') ?? DEFAULT_TIMEOUT_S)) * 1000;
  constructor(
    readonly repo: string,
    readonly flag: string,
    readonly ways: string,
  ) {}

  url(file: string): string {
    return `${this.endpoint}/${this.repo}/resolve/${REVISION}/${file}`;
  }

  /** GET a file (optionally a byte range); null on 404 when `optional`. */
  async get(file: string, range?: [number, number], optional = false): Promise<Buffer | null> {
    const headers: Record<string, string> = {};
    const token = env('HF_TOKEN');
    if (token) headers.authorization = `Bearer ${token}`;
    if (range) headers.range = `bytes=${range[0]}-${range[1]}`;
    let res: Response;
    try {
      res = await fetch(this.url(file), { headers, signal: AbortSignal.timeout(this.timeoutMs) });
    } catch (e) {
      const err = e as Error & {
        cause?: { code?: string; message?: string; errors?: { code?: string }[] };
      };
      const why =
        err.name === 'TimeoutError'
          ? `no answer within ${this.timeoutMs / 1000} s`
          : (err.cause?.code ?? err.cause?.errors?.[0]?.code ?? err.cause?.message ?? err.message);
      throw new UserError(
        `${this.flag}: '${this.repo}' is not in the catalog nor cached, and the Hub at ${this.endpoint} cannot be reached (${why}): ${this.ways}, or go online (HF_ENDPOINT sets a mirror)`,
      );
    }
    if (res.status === 404 && optional) return null;
    if (res.status === 401 || res.status === 403)
      throw new UserError(
        `${this.flag}: '${this.repo}' is gated or private on ${this.endpoint} (HTTP ${res.status}): accept its terms on the model page and set HF_TOKEN, or ${this.ways}`,
      );
    if (res.status === 404)
      throw new UserError(
        `${this.flag}: '${this.repo}' has no ${file} on ${this.endpoint} (HTTP 404: no such repo, or not a transformers model): ${this.ways}`,
      );
    if (!res.ok)
      throw new UserError(
        `${this.flag}: ${this.url(file)} answered HTTP ${res.status}: try again later, or ${this.ways}`,
      );
    return Buffer.from(await res.arrayBuffer());
  }

  /** The safetensors header of one file: two ranged reads (length, then JSON); data never read. */
  async header(file: string): Promise<Buffer> {
    const len = await this.get(file, [0, HEADER_LENGTH_BYTES - 1]);
    if (!len || len.length < HEADER_LENGTH_BYTES)
      throw new UserError(`${this.flag}: ${this.url(file)}: not a safetensors file (short header)`);
    const n = Number(len.readBigUInt64LE(0));
    if (n <= 0 || n > MAX_HEADER_BYTES)
      throw new UserError(
        `${this.flag}: ${this.url(file)}: not a safetensors file (header length ${n})`,
      );
    const body = await this.get(file, [HEADER_LENGTH_BYTES, HEADER_LENGTH_BYTES + n - 1]);
    // A server that ignores Range sends the whole file: keep the header part only.
    const json =
      body!.length >= n + HEADER_LENGTH_BYTES && body!.readBigUInt64LE(0) === BigInt(n)
        ? body!.subarray(HEADER_LENGTH_BYTES, HEADER_LENGTH_BYTES + n)
        : body!.subarray(0, n);
    return Buffer.concat([len.subarray(0, HEADER_LENGTH_BYTES), json]);
  }
}

/** Fetches config.json and the safetensors headers of `repo` into `dir` (written whole, then renamed). */
async function fetchRepo(repo: string, dir: string, flag: string, ways: string): Promise<void> {
  const hub = new Hub(repo, flag, ways);
  const config = await hub.get(CONFIG);
  const files: [string, Buffer][] = [[CONFIG, config!]];
  const index = await hub.get(INDEX, undefined, true);
  let shards: string[];
  if (index) {
    files.push([INDEX, index]);
    try {
      const map = (JSON.parse(index.toString('utf8')) as { weight_map?: Record<string, string> })
        .weight_map;
      shards = [...new Set(Object.values(map ?? {}))].filter((s) =>
        /^[\w.-]+\.safetensors$/.test(s),
      );
    } catch {
      shards = [];
    }
  } else shards = [SINGLE];
  for (const shard of shards) {
    const header =
      shard === SINGLE && !index
        ? await hub.header(shard).catch(notFound)
        : await hub.header(shard);
    if (header) files.push([shard, header]);
  }
  const tmp = `${dir}.tmp-${process.pid}`;
  mkdirSync(tmp, { recursive: true });
  for (const [name, data] of files) writeFileSync(join(tmp, name), data);
  mkdirSync(join(dir, '..'), { recursive: true });
  renameSync(tmp, dir);
}

/** A repo without model.safetensors (older .bin checkpoints): the count comes from config.json. */
const notFound = (e: unknown): null => {
  if (e instanceof UserError && /HTTP 404/.test(e.message)) return null;
  throw e;
};
