/**
 * Resolve `--model`: a catalog id, a Hugging Face repo id or alias, a config.json path, or a
 * local checkpoint folder (config.json + safetensors headers for the exact parameter count).
 */
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  openSync,
  readSync,
  readdirSync,
  statSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Arch } from '../core/model/index.js';
import { ConfigError, archFromHfConfig } from '../core/model/index.js';
import {
  MODEL_ID_PATTERN,
  type ModelEntry,
  type QuantizedCopy,
  modelEntrySchema,
} from '../schema/model.js';
import { UserError, badValue } from './errors.js';
// The published checkpoints the core looks a model's formats up in (load-catalog.ts sets where they are read).
import './load-catalog.js';
import { packagePath } from './paths.js';
import { didYouMean, editDistance } from './suggest.js';
import { MAX_NESTING, bracketDepth, parseJsonInput, readInputText, tooDeep } from './read-input.js';

const DEFAULT_CATALOG = packagePath('catalogs/models/');

export interface ResolveOptions {
  /** Folder of catalog files (default: the package's catalogs/models/). */
  catalogDir?: string;
  /** What an unknown spec is reported as (default '--model'; a scenario's is 'model'). */
  flag?: string;
}

/** Every catalog entry, validated, sorted by id. */
export function listModels(opts: ResolveOptions = {}): ModelEntry[] {
  const dir = opts.catalogDir ?? DEFAULT_CATALOG;
  return catalogFiles(dir)
    .map((f) => readEntry(join(dir, f)))
    .sort((a, b) => a.id.localeCompare(b.id));
}

/**
 * Architectures made from catalog entries, by entry file and spec, checked against the file's mtime and size (as
 * load-catalog.ts keeps its parsed files). The explorer re-plans its scenario on every knob edit, and the core keeps
 * per-model work (model facts, the engines' LoRA adapters, the serving rows' rates) in memos keyed by the Arch
 * object: one object per entry lets a re-plan reuse them. An Arch is read-only (those memos rely on it already).
 */
const ARCHS = new Map<string, { mtimeMs: number; size: number; arch: Arch }>();

/** Normalized architecture for `spec`; throws UserError on anything unknown or unreadable. */
export function resolveModel(spec: string, opts: ResolveOptions = {}): Arch {
  const dir = opts.catalogDir ?? DEFAULT_CATALOG;
  const entry = findEntry(spec, dir);
  if (entry) {
    const file = join(dir, `${entry.id}.json`);
    const stamp = statSync(file, { throwIfNoEntry: false });
    const key = `${file}\n${spec}`;
    const hit = ARCHS.get(key);
    if (stamp && hit && hit.mtimeMs === stamp.mtimeMs && hit.size === stamp.size) return hit.arch;
    const arch = entryArch(spec, entry, file);
    if (stamp) ARCHS.set(key, { mtimeMs: stamp.mtimeMs, size: stamp.size, arch });
    return arch;
  }
  if (existsSync(spec))
    return statSync(spec).isDirectory() ? fromFolder(spec) : fromConfigFile(spec);
  const tuned = tunedVariant(spec, dir) ?? ggufConversion(spec, dir);
  if (tuned) return tuned;
  const hint = didYouMean(spec, catalogNames(dir));
  if (hint)
    throw new UserError(
      `${opts.flag ?? '--model'}: got '${spec}'; ${hint} (see 'vramplan catalog models'; a Hugging Face repo id or a path to config.json also work)`,
    );
  throw badValue(
    opts.flag ?? '--model',
    spec,
    `a catalog id (${exampleIds(dir)}; see 'vramplan catalog models'), a Hugging Face repo id, or a path to config.json`,
  );
}

/**
 * An instruction- or chat-tuned upload the catalog does not list (`Qwen/Qwen2.5-7B-Instruct`,
 * `mistralai/Mistral-Nemo-Instruct-2407`, `meta-llama/Llama-2-7b-chat-hf`) estimated as its base entry
 * (`Qwen/Qwen2.5-7B`, `mistralai/Mistral-Nemo-Base-2407`): such fine-tunes keep the base's config. The
 * launch files still load the id given. Null when no base entry has the same owner and name.
 */
function tunedVariant(spec: string, dir: string): Arch | null {
  const key = spec.trim();
  const TUNED = /-(instruct|chat|it)(?=-|$)/i;
  const kind = TUNED.exec(key)?.[1];
  if (!kind || !/^[\w.-]+\/[\w.-]+$/.test(key)) return null;
  for (const base of [key.replace(TUNED, ''), key.replace(TUNED, '-Base')]) {
    const entry = findEntry(base, dir);
    if (!entry || entry.hfId?.toLowerCase() !== base.toLowerCase()) continue;
    const arch = archOf(entry.config, { id: entry.id, hfId: key }, join(dir, `${entry.id}.json`));
    const note = `${key}: not in the catalog; estimated as its base model ${entry.hfId} (catalog entry ${entry.id}), as ${kind.toLowerCase() === 'chat' ? 'a chat' : 'an instruction'}-tuned upload keeps the base's architecture`;
    return { ...arch, assumptions: [note, ...(arch.assumptions ?? [])] };
  }
  return null;
}

/**
 * A GGUF repository (`ggml-org/gemma-3-4b-it-GGUF`, `unsloth/Qwen3-8B-GGUF`: `llama-server -hf`) estimated as the
 * catalog entry it converts, found by the repository's name without `-GGUF`: convert_hf_to_gguf.py writes the
 * Hugging Face checkpoint's architecture into the file (its hparams from config.json), and such a repository has no
 * config.json of its own to fetch (https://github.com/ggml-org/llama.cpp/blob/25d5b0c53f9a146f3d7a99a18610d9d623b5041e/convert_hf_to_gguf.py).
 * Null when no catalog name (id, Hugging Face id or alias, without its owner) is that name.
 */
function ggufConversion(spec: string, dir: string): Arch | null {
  const m = /^[\w.-]+\/([\w.-]+)-GGUF$/i.exec(spec.trim());
  if (!m) return null;
  const name = m[1]!.toLowerCase();
  for (const file of catalogFiles(dir)) {
    const raw = readJson(join(dir, file));
    if (!isObject(raw) || !namesOf(raw).some((n) => n.split('/').at(-1) === name)) continue;
    const entry = readEntry(join(dir, file));
    const arch = archOf(entry.config, { id: entry.id, hfId: entry.hfId }, join(dir, file));
    const note = `${spec.trim()}: a GGUF conversion of ${m[1]}; estimated as catalog entry ${entry.id} (the GGUF keeps the checkpoint's architecture)`;
    return { ...arch, assumptions: [note, ...(arch.assumptions ?? [])] };
  }
  return null;
}

/**
 * The note for a catalog alias under another owner than the entry's Hugging Face id (a mirror or
 * re-upload such as NousResearch/Meta-Llama-3-8B, or a fine-tune that keeps the architecture such as
 * deepseek-ai/DeepSeek-R1-Distill-Llama-8B): which entry was used; null for the entry's own names.
 */
export function mirrorNote(spec: string, entry: ModelEntry): string | null {
  const key = spec.trim();
  const owner = (name: string | null) => name?.split('/')[0]?.toLowerCase() ?? null;
  if (!key.includes('/') || owner(key) === owner(entry.hfId)) return null;
  return `${key}: the architecture of ${entry.hfId ?? entry.id} (a re-upload or a fine-tune of it); estimated as catalog entry ${entry.id}`;
}

/**
 * Catalog models whose id, Hugging Face id or aliases contain `text` (case-insensitive); when none
 * does, the nearest by edit distance. For `vramplan catalog models <text>`.
 */
export function searchModels(
  text: string,
  opts: ResolveOptions = {},
): { hits: ModelEntry[]; near: string } {
  // Punctuation-blind: 'llama3.1' finds llama-3.1-8b, 'qwen3 4b' finds qwen3-4b.
  const squash = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');
  const q = squash(text);
  const all = listModels(opts);
  // Only punctuation or symbols ('😀', '---'): nothing to match, so nothing matches (blank lists all).
  if (q === '') return { hits: text.trim() === '' ? all : [], near: '' };
  const names = (m: ModelEntry) =>
    [m.id, m.hfId, ...m.aliases, ...(m.quantized ?? []).map((q) => q.repo)].filter(
      (n) => n !== null,
    );
  const hits = all.filter((m) => names(m).some((n) => squash(n).includes(q)));
  if (hits.length > 0) return { hits, near: '' };
  // Did you mean: the ids whose beginning is nearest the text ('lama3' → llama-3-8b, llama-3-70b...).
  const MAX_NEAR = 3;
  const scored = all
    .map((m) => {
      const id = squash(m.id);
      let d = Infinity;
      for (let len = Math.max(1, q.length - 1); len <= q.length + 2; len++)
        d = Math.min(d, editDistance(q, id.slice(0, len)));
      return { id: m.id, d };
    })
    .filter((x) => x.d <= Math.max(1, Math.floor(q.length / 3)))
    .sort((a, b) => a.d - b.d || a.id.localeCompare(b.id))
    .slice(0, MAX_NEAR)
    .map((x) => `'${x.id}'`);
  const near =
    scored.length === 0
      ? ''
      : `did you mean ${scored.length === 1 ? scored[0]! : `${scored.slice(0, -1).join(', ')} or ${scored.at(-1)!}`}?`;
  return { hits, near };
}

/** Every id, alias and Hugging Face id in the model catalog (for "did you mean"). */
function catalogNames(dir: string): string[] {
  return catalogFiles(dir).flatMap((file) => {
    const raw = readJson(join(dir, file));
    return isObject(raw) ? rawNames(raw) : [];
  });
}

// ---------------------------------------------------------------------------------------------
// Catalog

/** The architecture of catalog entry `entry` (read from `file`) as `spec` names it (an alias's repository, a mirror's note). */
function entryArch(spec: string, entry: ModelEntry, file: string): Arch {
  const copy = quantizedCopy(spec, entry);
  if (copy) return copyArch(copy, entry, file);
  const arch = archOf(entry.config, { id: entry.id, hfId: entry.hfId }, file);
  const note = mirrorNote(spec, entry);
  const repo = aliasRepo(spec, entry);
  const named = repo ? { ...arch, repo } : arch;
  return note ? { ...named, assumptions: [note, ...(named.assumptions ?? [])] } : named;
}

/** The quantized copy of `entry` that `spec` names, or undefined. */
function quantizedCopy(spec: string, entry: ModelEntry): QuantizedCopy | undefined {
  const key = spec.trim().toLowerCase();
  return entry.quantized?.find((q) => q.repo.toLowerCase() === key);
}

/**
 * A published quantized copy: the entry's config with the quantization_config the copy's config.json declares, read
 * as that config.json would be from a path; launch loads the copy's repository.
 */
function copyArch(copy: QuantizedCopy, entry: ModelEntry, file: string): Arch {
  const config = { ...entry.config, quantization_config: copy.quantizationConfig };
  const arch = archOf(config, { id: entry.id, hfId: entry.hfId }, file);
  const note = `${copy.repo}: a quantized copy of ${entry.hfId ?? entry.id} (quant_method ${copy.quantizationConfig.quant_method} in its config.json); estimated as catalog entry ${entry.id} with that quantization_config`;
  return { ...arch, repo: copy.repo, assumptions: [note, ...(arch.assumptions ?? [])] };
}

function catalogFiles(dir: string): string[] {
  try {
    return readdirSync(dir).filter((f) => f.endsWith('.json'));
  } catch {
    throw new UserError(`model catalog: cannot read folder ${dir}`);
  }
}

function findEntry(spec: string, dir: string): ModelEntry | null {
  const key = spec.trim().toLowerCase();
  // Fast path: the id is the file name.
  if (MODEL_ID_PATTERN.test(key) && existsSync(join(dir, `${key}.json`)))
    return readEntry(join(dir, `${key}.json`));
  for (const file of catalogFiles(dir)) {
    const raw = readJson(join(dir, file));
    if (isObject(raw) && namesOf(raw).includes(key)) return readEntry(join(dir, file));
  }
  return null;
}

/**
 * The alias `spec` names when it is a Hugging Face repository other than the entry's own (`hfId`), as the catalog
 * spells it: launch loads that repository, not the entry's.
 */
function aliasRepo(spec: string, entry: ModelEntry): string | undefined {
  const key = spec.trim().toLowerCase();
  if (!key.includes('/') || entry.hfId?.toLowerCase() === key) return undefined;
  return entry.aliases.find((a) => a.toLowerCase() === key);
}

/** Lowercased names an unvalidated catalog object answers to (cheap scan before validation). */
function namesOf(raw: Record<string, unknown>): string[] {
  return rawNames(raw).map((n) => n.toLowerCase());
}

/** Id, Hugging Face id, aliases and quantized copies' repositories of an unvalidated catalog object. */
function rawNames(raw: Record<string, unknown>): string[] {
  const copies = Array.isArray(raw.quantized)
    ? raw.quantized.map((q: unknown) => (isObject(q) ? q.repo : undefined))
    : [];
  const names = [raw.id, raw.hfId, ...(Array.isArray(raw.aliases) ? raw.aliases : []), ...copies];
  return names.filter((n): n is string => typeof n === 'string');
}

function readEntry(file: string): ModelEntry {
  const parsed = modelEntrySchema.safeParse(readJson(file));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue?.path.length ? issue.path.join('.') : '(root)';
    throw new UserError(`${file}: ${at}: ${issue?.message ?? 'invalid'}`);
  }
  const expected = basename(file, '.json');
  if (parsed.data.id !== expected)
    throw badValue(`${file}: id`, parsed.data.id, `'${expected}' (the file name)`);
  return parsed.data;
}

function exampleIds(dir: string): string {
  const EXAMPLES = 3;
  const ids = catalogFiles(dir)
    .map((f) => basename(f, '.json'))
    .sort()
    .slice(0, EXAMPLES);
  return `${ids.join(', ')}, ...`;
}

// ---------------------------------------------------------------------------------------------
// Local files

function readJson(file: string): unknown {
  return parseJsonInput(file, readInputText(file));
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function archOf(config: unknown, meta: { id: string; hfId: string | null }, file: string): Arch {
  try {
    return archFromHfConfig(config, meta);
  } catch (e) {
    if (e instanceof ConfigError) throw badValue(`${file}: ${e.field}`, e.value, e.allowed);
    throw e;
  }
}

/** `_name_or_path` when it looks like a Hub repo id. */
function hfIdOf(config: unknown): string | null {
  const name = isObject(config) ? config._name_or_path : undefined;
  return typeof name === 'string' && /^[\w.-]+\/[\w.-]+$/.test(name) ? name : null;
}

function fromConfigFile(file: string): Arch {
  const config = readJson(file);
  const folder = basename(dirname(file));
  const id = basename(file) === 'config.json' && folder ? folder : basename(file, '.json');
  return archOf(config, { id, hfId: hfIdOf(config) }, file);
}

function fromFolder(folder: string): Arch {
  const configFile = join(folder, 'config.json');
  if (!existsSync(configFile)) throw new UserError(`${folder}: no config.json in this folder`);
  const arch = fromConfigFile(configFile);
  const files = safetensorsFiles(folder);
  const headers = files.map((f) => readHeader(join(folder, f)));
  const largest = Math.max(0, ...headers.map(fileBytesOf));
  return {
    ...arch,
    id: basename(folder),
    measuredParams: measuredParams(folder, arch, headers),
    ...(largest > 0 ? { safetensorsFileBytes: largest } : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// safetensors headers: 8-byte little-endian header length, then a JSON header
// { name: { dtype, shape, data_offsets }, __metadata__?: {...} }; tensor data is never read.

const HEADER_LENGTH_BYTES = 8;
// A header larger than this is not a safetensors file we should trust (the reference reader caps it at 100 MB).
const MAX_HEADER_BYTES = 100_000_000;
const INDEX_FILE = 'model.safetensors.index.json';

/** Tensors that are buffers or quantization side-data, not parameters. */
const NOT_PARAMS =
  /(\.inv_freq|\.masked_bias|(^|\.)attn\.bias|_scale_inv|\.weight_scale|\.input_scale|\.scales|_scales|\.qzeros|\.g_idx|\.absmax|\.quant_map|\.quant_state\..*|nested_absmax|nested_quant_map)$/;

interface TensorInfo {
  dtype: string;
  shape: number[];
}

function measuredParams(
  folder: string,
  arch: Arch,
  headers: readonly SafetensorsHeader[],
): number | null {
  if (headers.length > 0) {
    let total = 0;
    for (const h of headers) total += paramsInHeader(h.header, arch);
    return total;
  }
  return paramsFromIndexSize(folder, arch);
}

/** One file's parsed header and the bytes before its tensor data (the 8-byte length and the header). */
interface SafetensorsHeader {
  header: Record<string, unknown>;
  dataStart: number;
}

/**
 * The file's size as its header states it: the data starts after the header and each tensor's data_offsets
 * are relative to that start (safetensors format, https://github.com/huggingface/safetensors#format), so a
 * header-only copy (io/hub.ts) gives the Hub file's size too.
 */
function fileBytesOf({ header, dataStart }: SafetensorsHeader): number {
  let end = 0;
  for (const [name, info] of Object.entries(header)) {
    if (name === '__metadata__' || !isObject(info) || !Array.isArray(info.data_offsets)) continue;
    const e: unknown = info.data_offsets[1];
    if (typeof e === 'number' && e > end) end = e;
  }
  return dataStart + end;
}

function safetensorsFiles(folder: string): string[] {
  const present = readdirSync(folder).filter((f) => f.endsWith('.safetensors'));
  const indexFile = join(folder, INDEX_FILE);
  if (!existsSync(indexFile)) return present.sort();
  const index = readJson(indexFile);
  const map = isObject(index) && isObject(index.weight_map) ? Object.values(index.weight_map) : [];
  const shards = [...new Set(map.filter((f): f is string => typeof f === 'string'))];
  return shards.length > 0 && shards.every((s) => present.includes(s))
    ? shards.sort()
    : present.sort();
}

function readHeader(file: string): SafetensorsHeader {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    throw new UserError(
      `${file}: cannot read file (${(e as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  try {
    if (!fstatSync(fd).isFile()) throw new UserError(`${file}: not a regular file`);
    const lengthBuf = Buffer.alloc(HEADER_LENGTH_BYTES);
    if (readSync(fd, lengthBuf, 0, HEADER_LENGTH_BYTES, 0) !== HEADER_LENGTH_BYTES) {
      throw new UserError(
        `${file}: not a safetensors file (shorter than its 8-byte header length)`,
      );
    }
    const length = Number(lengthBuf.readBigUInt64LE(0));
    if (length <= 0 || length > MAX_HEADER_BYTES) {
      throw new UserError(`${file}: not a safetensors file (header length ${length})`);
    }
    const header = Buffer.alloc(length);
    if (readSync(fd, header, 0, length, HEADER_LENGTH_BYTES) !== length) {
      throw new UserError(`${file}: truncated safetensors header`);
    }
    const text = header.toString('utf8');
    if (bracketDepth(text, false) > MAX_NESTING) throw tooDeep(file);
    const parsed: unknown = JSON.parse(text);
    if (!isObject(parsed)) throw new UserError(`${file}: safetensors header is not a JSON object`);
    return { header: parsed, dataStart: HEADER_LENGTH_BYTES + length };
  } catch (e) {
    if (e instanceof UserError) throw e;
    throw new UserError(`${file}: unreadable safetensors header (${(e as Error).message})`);
  } finally {
    closeSync(fd);
  }
}

function paramsInHeader(header: Record<string, unknown>, arch: Arch): number {
  let total = 0;
  for (const [name, info] of Object.entries(header)) {
    if (name === '__metadata__' || NOT_PARAMS.test(name) || !isTensor(info)) continue;
    // A tied lm_head saved as its own tensor is the embedding again.
    if (arch.tiedEmbeddings && name === 'lm_head.weight') continue;
    total += info.shape.reduce((a, b) => a * b, 1) * packedPerElement(name, info, arch);
  }
  return total;
}

const isTensor = (v: unknown): v is TensorInfo =>
  isObject(v) &&
  typeof v.dtype === 'string' &&
  Array.isArray(v.shape) &&
  v.shape.every((d) => Number.isInteger(d));

// Bits in the integer containers that packed low-bit checkpoints store their weights in.
const INT32_BITS = 32;
const UINT8_BITS = 8;

/** Weights per stored element for packed quantized tensors (GPTQ/AWQ int32, MXFP4/bnb-4bit uint8). */
function packedPerElement(name: string, info: TensorInfo, arch: Arch): number {
  const bits = arch.quant?.bits;
  if (bits === undefined || bits >= UINT8_BITS) return 1;
  if (name.endsWith('.qweight') && info.dtype === 'I32') return INT32_BITS / bits;
  if (
    info.dtype === 'U8' &&
    (name.endsWith('_blocks') || arch.quant?.method === 'bitsandbytes-4bit')
  ) {
    return UINT8_BITS / bits;
  }
  return 1;
}

// Bytes per parameter of the stored dtype, for the index fallback.
const DTYPE_BYTES: Record<Arch['dtype'], number> = { float32: 4, float16: 2, bfloat16: 2 };

/**
 * Fallback when only the index is present: metadata.total_size is BYTES of stored tensors, not a
 * parameter count, so divide by the dtype size. Approximate (includes buffers); skipped for quantized checkpoints.
 */
function paramsFromIndexSize(folder: string, arch: Arch): number | null {
  const indexFile = join(folder, INDEX_FILE);
  if (!existsSync(indexFile) || arch.quant) return null;
  const index = readJson(indexFile);
  const size = isObject(index) && isObject(index.metadata) ? index.metadata.total_size : undefined;
  return typeof size === 'number' && size > 0 ? Math.round(size / DTYPE_BYTES[arch.dtype]) : null;
}
