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
 *
 * Nothing unchecked reaches that cache: every file fetched is size-capped, refused when it is an HTML page
 * (a captive portal or a proxy login answering 200), and parsed (JSON, or the safetensors header) before the
 * folder is written beside the cache and renamed into place; a cached folder that no longer reads is
 * discarded and fetched again. The timeout covers the whole request (redirects and body included), and
 * redirects are followed at most MAX_REDIRECTS times.
 */
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { randomBytes } from 'node:crypto';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { ConfigError, archFromHfConfig } from '../core/model/index.js';
import { UserError, shownValue } from './errors.js';
import { resolveModel } from './load-model.js';
import {
  MAX_INPUT_BYTES,
  MAX_NESTING,
  bracketDepth,
  parseJsonInput,
  readInputText,
} from './read-input.js';

/**
 * A Hub repo id as the Hub accepts it (huggingface_hub's validate_repo_id, restated): `owner/name`, each
 * part 1 to 96 of letters, digits, '-', '_' and '.', starting and ending with a letter, digit or '_', no
 * '--' or '..' anywhere, not ending in '.git'. `a/..` and `q/.` are refused before any request or path.
 */
export function isHubRepoId(id: string): boolean {
  const parts = id.split('/');
  const PART = /^\w(?:[\w.-]{0,94}\w)?$/;
  return (
    parts.length === 2 &&
    parts.every((p) => PART.test(p)) &&
    !id.includes('--') &&
    !id.includes('..') &&
    !id.endsWith('.git')
  );
}

/** What looks meant as a repo id (one '/', not a path): checked with isHubRepoId before any use. */
const LOOKS_LIKE_REPO = /^[^./~\s][^/\s]*\/[^/\s]+$/;

const DEFAULT_ENDPOINT = 'https://huggingface.co';
// Per request (redirects and body included); VRAMPLAN_HUB_TIMEOUT (seconds) overrides it.
const DEFAULT_TIMEOUT_S = 10;
// The range VRAMPLAN_HUB_TIMEOUT takes, in s: an hour is far beyond any answer worth waiting for, and well
// inside AbortSignal.timeout's limit (a delay over 2^32 - 1 ms is a RangeError: Node's timers docs).
const MIN_TIMEOUT_S = 0.1;
const MAX_TIMEOUT_S = 3600;
const CONFIG = 'config.json';
const INDEX = 'model.safetensors.index.json';
const SINGLE = 'model.safetensors';
const HEADER_LENGTH_BYTES = 8;
// The reference safetensors reader refuses headers over 100 MB.
const MAX_HEADER_BYTES = 100_000_000;
// All of a repo's headers together get the same cap: headers hold only tensor names, dtypes and shapes,
// a few MB for the largest checkpoints, so the cap bounds memory and cache without refusing a real model.
const MAX_TOTAL_HEADER_BYTES = MAX_HEADER_BYTES;
// Shards an index may name: Llama 3.1 405B, among the largest public checkpoints, has 191
// (model-00001-of-00191.safetensors, https://huggingface.co/meta-llama/Llama-3.1-405B/tree/main).
const MAX_SHARDS = 1000;
// config.json and the index: the cap of every input file.
const MAX_JSON_BYTES = MAX_INPUT_BYTES;
const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
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

/** vramplan's own cache of fetched configs and headers (for a valid repo id only). */
export function vramplanHubDir(repo: string): string {
  if (!isHubRepoId(repo)) throw new Error(`not a Hub repo id: ${repo}`);
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
    // A ref is a commit hash; anything else (a path) is not followed.
    if (!/^[\w.-]+$/.test(c) || c === '.' || c === '..') continue;
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
  if (existsSync(spec) || !LOOKS_LIKE_REPO.test(spec)) return spec;
  let offlineError: UserError;
  try {
    resolveModel(spec, { flag });
    return spec;
  } catch (e) {
    if (!(e instanceof UserError)) throw e;
    offlineError = e;
  }
  if (!isHubRepoId(spec))
    throw new UserError(
      `${flag}: '${spec}' is not a Hugging Face repo id (owner/name, each part 1 to 96 letters, digits, '-', '_' or '.', starting and ending with a letter or digit, no '--' or '..'), a catalog id or a path`,
      "See 'vramplan catalog models' for ids.",
    );
  const cached = hfCachedSnapshot(spec);
  if (cached) return cached;
  const own = vramplanHubDir(spec);
  const near = /did you mean [^?]+\?/.exec(offlineError.message)?.[0];
  const ways = `give --model a path to its config.json or checkpoint folder, or a catalog id${near ? ` (${near})` : ''}`;
  let damaged: string | null = null;
  if (existsSync(own)) {
    damaged = cacheProblem(own, spec);
    if (damaged === null) return own;
  }
  if (offline())
    throw new UserError(
      damaged
        ? `${flag}: the cached copy of '${spec}' at ${own} is damaged (${damaged}), and HF_HUB_OFFLINE is set: unset HF_HUB_OFFLINE to fetch it again, or ${ways}`
        : `${flag}: '${spec}' is not in the catalog nor in the Hugging Face cache (${hfCacheDir()}), and HF_HUB_OFFLINE is set: ${ways}, or unset HF_HUB_OFFLINE to fetch it`,
    );
  await fetchRepo(spec, own, flag, ways);
  return own;
}

/** Why a folder of vramplan's cache cannot be used (it is then fetched again), or null when it reads. */
export function cacheProblem(dir: string, repo: string): string | null {
  try {
    const config = parseJsonInput(join(dir, CONFIG), readInputText(join(dir, CONFIG)));
    if (!isObject(config)) return `${join(dir, CONFIG)} is not a JSON object`;
    const notModel = configProblem(config, repo);
    if (notModel) return `${join(dir, CONFIG)} is ${notModel}`;
    let shards: string[] = [];
    if (existsSync(join(dir, INDEX))) {
      const index = parseJsonInput(join(dir, INDEX), readInputText(join(dir, INDEX)));
      if (!isObject(index)) return `${join(dir, INDEX)} is not a JSON object`;
      shards = shardsOf(index);
    } else if (existsSync(join(dir, SINGLE))) shards = [SINGLE];
    for (const shard of shards) {
      const why = cachedHeaderProblem(join(dir, shard));
      if (why) return why;
    }
    return null;
  } catch (e) {
    return e instanceof UserError ? e.message : String(e);
  }
}

/** A header-only safetensors copy: 8-byte length, then exactly that much JSON object. */
function cachedHeaderProblem(file: string): string | null {
  if (!existsSync(file)) return `${file} is missing`;
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (e) {
    return `${file}: cannot read (${(e as NodeJS.ErrnoException).code ?? 'error'})`;
  }
  try {
    const len = Buffer.alloc(HEADER_LENGTH_BYTES);
    if (readSync(fd, len, 0, HEADER_LENGTH_BYTES, 0) !== HEADER_LENGTH_BYTES)
      return `${file}: short header`;
    const n = Number(len.readBigUInt64LE(0));
    if (n <= 0 || n > MAX_HEADER_BYTES) return `${file}: header length ${n}`;
    const json = Buffer.alloc(n);
    if (readSync(fd, json, 0, n, HEADER_LENGTH_BYTES) !== n) return `${file}: truncated header`;
    return headerJsonProblem(json);
  } finally {
    closeSync(fd);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Why a safetensors header's JSON is not usable, or null. */
function headerJsonProblem(json: Buffer): string | null {
  const text = json.toString('utf8');
  if (bracketDepth(text, false) > MAX_NESTING)
    return `header nested more than ${MAX_NESTING} levels`;
  try {
    return isObject(JSON.parse(text)) ? null : 'header is not a JSON object';
  } catch (e) {
    return `header is not JSON (${(e as Error).message.split('\n')[0]})`;
  }
}

/** The shard files an index names (plain file names only: a name with a path is never followed). */
function shardsOf(index: Record<string, unknown>): string[] {
  const map = isObject(index.weight_map) ? index.weight_map : {};
  return [...new Set(Object.values(map))].filter(
    (s): s is string => typeof s === 'string' && /^[\w.-]+\.safetensors$/.test(s),
  );
}

/** VRAMPLAN_HUB_TIMEOUT in seconds (default DEFAULT_TIMEOUT_S); a value out of range is one line. */
export function hubTimeoutSeconds(): number {
  const raw = env('VRAMPLAN_HUB_TIMEOUT');
  if (raw === undefined) return DEFAULT_TIMEOUT_S;
  const n = /^\s*\d+(\.\d+)?\s*$/.test(raw) ? Number(raw) : NaN;
  if (!(n >= MIN_TIMEOUT_S && n <= MAX_TIMEOUT_S))
    throw new UserError(
      `VRAMPLAN_HUB_TIMEOUT: got ${shownValue(raw)}; expected seconds from ${MIN_TIMEOUT_S} to ${MAX_TIMEOUT_S} (default ${DEFAULT_TIMEOUT_S})`,
    );
  return n;
}

/** Why a config.json does not read as a model config (the model reader's words), or null. */
export function configProblem(config: unknown, repo: string): string | null {
  try {
    archFromHfConfig(config, { id: repo, hfId: repo });
    return null;
  } catch (e) {
    if (e instanceof ConfigError)
      return `not a model config (${e.field}: got ${shownValue(e.value)}; expected ${e.allowed})`;
    if (e instanceof UserError) return `not a model config (${e.message})`;
    throw e;
  }
}

interface GetOptions {
  range?: [number, number];
  optional?: boolean;
  /** Bytes the body may have (unranged reads). */
  maxBytes?: number;
}

class Hub {
  readonly endpoint = (env('HF_ENDPOINT') ?? DEFAULT_ENDPOINT).replace(/\/+$/, '');
  readonly timeoutMs = hubTimeoutSeconds() * 1000;
  constructor(
    readonly repo: string,
    readonly flag: string,
    readonly ways: string,
    readonly cacheDir: string,
  ) {}

  url(file: string): string {
    return `${this.endpoint}/${this.repo}/resolve/${REVISION}/${file}`;
  }

  private unreachable(why: string): UserError {
    return new UserError(
      `${this.flag}: '${this.repo}' is not in the catalog nor cached, and the Hub at ${this.endpoint} cannot be reached (${why}): ${this.ways}, or go online (HF_ENDPOINT sets a mirror)`,
    );
  }

  refused(file: string, why: string): UserError {
    return this.bad(file, why);
  }

  private bad(file: string, why: string): UserError {
    return new UserError(
      `${this.flag}: ${this.url(file)}: ${why}; nothing was written to the cache (${this.cacheDir}): try again later, or ${this.ways}`,
    );
  }

  private whyFailed(e: unknown, signal: AbortSignal): string {
    if (signal.aborted) return `no answer within ${this.timeoutMs / 1000} s`;
    const err = e as Error & {
      cause?: { code?: string; message?: string; errors?: { code?: string }[] };
    };
    return err.cause?.code ?? err.cause?.errors?.[0]?.code ?? err.cause?.message ?? err.message;
  }

  /** GET a file (optionally a byte range, exactly those bytes); null on 404 when `optional`. */
  async get(file: string, o: GetOptions = {}): Promise<Buffer | null> {
    const headers: Record<string, string> = {};
    const token = env('HF_TOKEN');
    if (token) headers.authorization = `Bearer ${token}`;
    if (o.range) headers.range = `bytes=${o.range[0]}-${o.range[1]}`;
    const signal = AbortSignal.timeout(this.timeoutMs);
    let url = this.url(file);
    let res: Response;
    for (let hops = 0; ; hops++) {
      try {
        res = await fetch(url, { headers, signal, redirect: 'manual' });
      } catch (e) {
        throw this.unreachable(this.whyFailed(e, signal));
      }
      const location = res.headers.get('location');
      if (!REDIRECTS.has(res.status) || location === null) break;
      await res.body?.cancel().catch(() => undefined);
      if (hops >= MAX_REDIRECTS)
        throw this.bad(file, `more than ${MAX_REDIRECTS} redirects (a redirect loop?)`);
      const next = new URL(location, url);
      // The token goes to the Hub only, never to the host a redirect names.
      if (next.origin !== new URL(url).origin) delete headers.authorization;
      url = next.href;
    }
    if (res.status === 404 && o.optional) return null;
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
    const type = res.headers.get('content-type') ?? '';
    if (/text\/html/i.test(type)) {
      await res.body?.cancel().catch(() => undefined);
      throw this.bad(
        file,
        `answered an HTML page (content-type ${type}), not the file (a captive portal or a proxy login?)`,
      );
    }
    // A ranged read keeps exactly its bytes, whether the server honoured Range (206) or sent the file (200).
    const skip = o.range && res.status !== 206 ? o.range[0] : 0;
    const want = o.range ? o.range[1] - o.range[0] + 1 : null;
    const max = o.maxBytes ?? MAX_JSON_BYTES;
    const declared = Number(res.headers.get('content-length') ?? NaN);
    if (want === null && declared > max) {
      await res.body?.cancel().catch(() => undefined);
      throw this.bad(file, `${declared} bytes, over the ${max}-byte limit`);
    }
    const body = await this.readBody(file, res, signal, want === null ? null : skip + want, max);
    return want === null ? body : body.subarray(skip, skip + want);
  }

  /** The body, read in chunks: at most `stopAt` bytes (then the rest is not read), or at most `max`. */
  private async readBody(
    file: string,
    res: Response,
    signal: AbortSignal,
    stopAt: number | null,
    max: number,
  ): Promise<Buffer> {
    const chunks: Buffer[] = [];
    let got = 0;
    if (!res.body) return Buffer.alloc(0);
    const reader = res.body.getReader();
    try {
      for (;;) {
        let r: Awaited<ReturnType<typeof reader.read>>;
        try {
          r = await reader.read();
        } catch (e) {
          if (signal.aborted) throw this.unreachable(this.whyFailed(e, signal));
          throw this.bad(file, `the answer broke off (${this.whyFailed(e, signal)})`);
        }
        if (r.done) break;
        chunks.push(Buffer.from(r.value));
        got += r.value.length;
        if (stopAt !== null && got >= stopAt) break;
        if (stopAt === null && got > max)
          throw this.bad(file, `more than ${max} bytes, over the limit`);
      }
    } finally {
      await reader.cancel().catch(() => undefined);
    }
    return Buffer.concat(chunks);
  }

  /** A JSON file (config.json, the index): capped, not HTML, a JSON object. */
  async json(file: string, optional = false): Promise<Buffer | null> {
    const body = await this.get(file, { optional, maxBytes: MAX_JSON_BYTES });
    if (body === null) return null;
    const text = body.toString('utf8');
    if (bracketDepth(text, false) > MAX_NESTING)
      throw this.bad(file, `nested more than ${MAX_NESTING} levels`);
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch (e) {
      throw this.bad(file, `not valid JSON (${(e as Error).message.split('\n')[0]})`);
    }
    if (!isObject(v)) throw this.bad(file, 'not a JSON object');
    return body;
  }

  /** The 8-byte length of a safetensors header (one ranged read), checked against the one-file cap. */
  async headerLength(file: string): Promise<number> {
    const len = await this.get(file, { range: [0, HEADER_LENGTH_BYTES - 1] });
    if (!len || len.length < HEADER_LENGTH_BYTES)
      throw this.bad(file, 'not a safetensors file (short header)');
    const n = Number(len.readBigUInt64LE(0));
    if (n <= 0 || n > MAX_HEADER_BYTES)
      throw this.bad(file, `not a safetensors file (header length ${n})`);
    return n;
  }

  /** The safetensors header of one file whose length is `n` (one ranged read); data never read. */
  async header(file: string, n: number): Promise<Buffer> {
    const json = await this.get(file, {
      range: [HEADER_LENGTH_BYTES, HEADER_LENGTH_BYTES + n - 1],
    });
    if (!json || json.length !== n) throw this.bad(file, 'truncated safetensors header');
    const why = headerJsonProblem(json);
    if (why) throw this.bad(file, `not a safetensors file (${why})`);
    const len = Buffer.alloc(HEADER_LENGTH_BYTES);
    len.writeBigUInt64LE(BigInt(n));
    return Buffer.concat([len, json]);
  }
}

/**
 * Fetches config.json and the safetensors headers of `repo`, checks each, writes them into a fresh folder
 * beside `dir` and renames it into place (a damaged `dir` is replaced).
 */
async function fetchRepo(repo: string, dir: string, flag: string, ways: string): Promise<void> {
  const hub = new Hub(repo, flag, ways, dir);
  const config = await hub.json(CONFIG);
  const notModel = configProblem(JSON.parse(config!.toString('utf8')), repo);
  if (notModel) throw hub.refused(CONFIG, notModel);
  const files: [string, Buffer][] = [[CONFIG, config!]];
  const index = await hub.json(INDEX, true);
  let shards: string[];
  if (index) {
    files.push([INDEX, index]);
    shards = shardsOf(JSON.parse(index.toString('utf8')) as Record<string, unknown>);
    if (shards.length > MAX_SHARDS)
      throw hub.refused(INDEX, `names ${shards.length} shards, over the limit of ${MAX_SHARDS}`);
  } else shards = [SINGLE];
  // Every header's length first: all of them together are capped before any header is read.
  const lengths: [string, number][] = [];
  let total = 0;
  for (const shard of shards) {
    const n =
      shard === SINGLE && !index
        ? await hub.headerLength(shard).catch(notFound)
        : await hub.headerLength(shard);
    if (n === null) continue;
    total += n;
    if (total > MAX_TOTAL_HEADER_BYTES)
      throw hub.refused(
        shard,
        `the safetensors headers of ${shards.length} shards add up to more than ${MAX_TOTAL_HEADER_BYTES} bytes, over the limit for all shards together`,
      );
    lengths.push([shard, n]);
  }
  for (const [shard, n] of lengths) files.push([shard, await hub.header(shard, n)]);
  sweepTemps(dir);
  const tmp = `${dir}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    mkdirSync(tmp, { recursive: true });
    for (const [name, data] of files) writeFileSync(join(tmp, name), data);
    // Another vramplan fetching the same repo at once may have renamed its folder in first: use it
    // when it reads (never remove a good folder another process may be reading); else replace it.
    if (existsSync(dir) && cacheProblem(dir, repo) === null) return;
    rmSync(dir, { recursive: true, force: true });
    renameSync(tmp, dir);
  } catch (e) {
    if (existsSync(dir) && cacheProblem(dir, repo) === null) return;
    throw new UserError(
      `${flag}: cannot write the Hub cache at ${dir} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): set XDG_CACHE_HOME to a writable folder, or ${ways}`,
    );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Temp folders beside `dir` whose fetch was interrupted (Ctrl-C, a crash): their process is gone. */
function sweepTemps(dir: string): void {
  const prefix = `${basename(dir)}.tmp-`;
  let names: string[];
  try {
    names = readdirSync(dirname(dir));
  } catch {
    return;
  }
  for (const name of names) {
    const pid = name.startsWith(prefix)
      ? /^(\d+)-[0-9a-f]+$/.exec(name.slice(prefix.length))
      : null;
    if (!pid) continue;
    try {
      process.kill(Number(pid[1]), 0);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ESRCH') continue;
      try {
        rmSync(join(dirname(dir), name), { recursive: true, force: true });
      } catch {
        /* left for a later fetch */
      }
    }
  }
}

/** A repo without model.safetensors (older .bin checkpoints): the count comes from config.json. */
const notFound = (e: unknown): null => {
  if (e instanceof UserError && /has no .* \(HTTP 404/.test(e.message)) return null;
  throw e;
};
