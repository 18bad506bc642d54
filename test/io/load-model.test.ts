import { copyFileSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { paramCounts } from '../../src/core/model/index.js';
import { listModels, resolveModel } from '../../src/io/load-model.js';
import { userErrorOf } from '../helpers/errors.js';

const fixtures = fileURLToPath(new URL('../fixtures/models/', import.meta.url));
const tinyConfig = join(fixtures, 'tiny-llama', 'config.json');
const tmp = mkdtempSync(join(tmpdir(), 'vramplan-models-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A safetensors file with only a header: 8-byte LE length + JSON (tensor data is never read). */
function writeSafetensors(
  file: string,
  tensors: Record<string, { dtype: string; shape: number[] }>,
): void {
  let offset = 0;
  const header: Record<string, unknown> = { __metadata__: { format: 'pt' } };
  for (const [name, t] of Object.entries(tensors)) {
    const bytes = t.shape.reduce((a, b) => a * b, 1) * 2;
    header[name] = { ...t, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(json.length));
  writeFileSync(file, Buffer.concat([length, json]));
}

function folderWith(name: string): string {
  const dir = join(tmp, name);
  mkdirSync(dir, { recursive: true });
  copyFileSync(tinyConfig, join(dir, 'config.json'));
  return dir;
}

const userError = userErrorOf;

describe('resolveModel', () => {
  it('finds a catalog id, case-insensitively', () => {
    const a = resolveModel('Llama-2-7B');
    expect([a.id, a.hfId]).toEqual(['llama-2-7b', 'meta-llama/Llama-2-7b-hf']);
    expect(paramCounts(a).total).toBe(6_738_415_616);
  });

  it('finds a Hugging Face repo id or an alias, case-insensitively', () => {
    expect(resolveModel('meta-llama/Llama-2-13b-hf').id).toBe('llama-2-13b');
    expect(resolveModel('META-LLAMA/LLAMA-3.2-3B-INSTRUCT').id).toBe('llama-3.2-3b');
    expect(resolveModel('meta-llama/Llama-2-7b-chat-hf').id).toBe('llama-2-7b');
  });

  it('reads a path to config.json (id from its folder, hfId from _name_or_path)', () => {
    const a = resolveModel(tinyConfig);
    expect([a.id, a.hfId, a.measuredParams]).toEqual(['tiny-llama', 'example/tiny-llama', null]);
    expect(paramCounts(a).total).toBe(86_848);
  });

  it('reads a folder: parameter count from the safetensors headers only', () => {
    const dir = folderWith('single');
    writeSafetensors(join(dir, 'model.safetensors'), {
      'model.embed_tokens.weight': { dtype: 'BF16', shape: [100, 64] },
      'model.layers.0.self_attn.q_proj.weight': { dtype: 'BF16', shape: [64, 64] },
      // Buffers are not parameters.
      'model.layers.0.self_attn.rotary_emb.inv_freq': { dtype: 'F32', shape: [8] },
    });
    const a = resolveModel(dir);
    expect(a.id).toBe('single');
    expect(a.measuredParams).toBe(100 * 64 + 64 * 64);
  });

  it('sums the shards named in model.safetensors.index.json', () => {
    const dir = folderWith('sharded');
    writeSafetensors(join(dir, 'model-00001-of-00002.safetensors'), {
      a: { dtype: 'BF16', shape: [10, 10] },
    });
    writeSafetensors(join(dir, 'model-00002-of-00002.safetensors'), {
      b: { dtype: 'BF16', shape: [5] },
    });
    const weight_map = {
      a: 'model-00001-of-00002.safetensors',
      b: 'model-00002-of-00002.safetensors',
    };
    writeFileSync(
      join(dir, 'model.safetensors.index.json'),
      JSON.stringify({ metadata: { total_size: 210 }, weight_map }),
    );
    expect(resolveModel(dir).measuredParams).toBe(105);
    // The largest file as its header states it: 8-byte length + header + 10 x 10 BF16 (200 bytes of data).
    const first = statSync(join(dir, 'model-00001-of-00002.safetensors')).size;
    expect(resolveModel(dir).safetensorsFileBytes).toBe(first + 200);
  });

  it('states no file size without safetensors files', () => {
    expect(resolveModel(tinyConfig).safetensorsFileBytes).toBeUndefined();
    expect(resolveModel('llama-3.1-70b').safetensorsFileBytes).toBeUndefined();
  });

  it('falls back to index metadata.total_size (bytes) / dtype size without shards', () => {
    const dir = folderWith('index-only');
    writeFileSync(
      join(dir, 'model.safetensors.index.json'),
      JSON.stringify({ metadata: { total_size: 2000 }, weight_map: {} }),
    );
    // tiny-llama is bfloat16: 2 bytes per parameter.
    expect(resolveModel(dir).measuredParams).toBe(1000);
  });

  it('leaves measuredParams null for a folder with only config.json', () => {
    expect(resolveModel(folderWith('bare')).measuredParams).toBeNull();
  });

  it('uses a custom catalog folder', () => {
    const dir = join(tmp, 'catalog');
    mkdirSync(dir);
    const config = {
      model_type: 'llama',
      hidden_size: 64,
      intermediate_size: 128,
      num_hidden_layers: 1,
      num_attention_heads: 4,
      vocab_size: 10,
    };
    const entry = {
      id: 'tiny',
      hfId: 'example/tiny',
      aliases: ['mini'],
      family: 'llama',
      source: 'https://example.com/c.json',
      config,
    };
    writeFileSync(join(dir, 'tiny.json'), JSON.stringify(entry));
    expect(resolveModel('MINI', { catalogDir: dir }).id).toBe('tiny');
    expect(listModels({ catalogDir: dir }).map((m) => m.id)).toEqual(['tiny']);
  });

  it('gives one object per catalog entry and spec until the entry file changes', () => {
    // The core's per-model memos are keyed by the Arch object: a re-plan (the explorer's) reuses them.
    expect(resolveModel('llama-2-13b')).toBe(resolveModel('llama-2-13b'));
    expect(resolveModel('llama-2-13b')).not.toBe(resolveModel('meta-llama/Llama-2-13b-hf'));
    const dir = join(tmp, 'catalog-stamp');
    mkdirSync(dir);
    const entry = (layers: number) => ({
      id: 'tiny',
      hfId: 'example/tiny',
      aliases: [],
      family: 'llama',
      source: 'https://example.com/c.json',
      config: {
        model_type: 'llama',
        hidden_size: 64,
        intermediate_size: 128,
        num_hidden_layers: layers,
        num_attention_heads: 4,
        vocab_size: 10,
      },
    });
    writeFileSync(join(dir, 'tiny.json'), JSON.stringify(entry(1)));
    const first = resolveModel('tiny', { catalogDir: dir });
    expect(resolveModel('tiny', { catalogDir: dir })).toBe(first);
    writeFileSync(join(dir, 'tiny.json'), JSON.stringify(entry(12)));
    const edited = resolveModel('tiny', { catalogDir: dir });
    expect(edited).not.toBe(first);
    expect(paramCounts(edited).total).toBeGreaterThan(paramCounts(first).total);
  });
});

describe('resolveModel errors (one line, naming the input)', () => {
  it('unknown id', () => {
    const e = userError(() => resolveModel('llama-9'));
    expect(e.message).toMatch(
      /^--model: got 'llama-9'; expected a catalog id \([a-z0-9.-]+, [a-z0-9.-]+, [a-z0-9.-]+, \.\.\.; see 'vramplan catalog models'\), a Hugging Face repo id, or a path to config\.json$/,
    );
  });

  it('broken JSON names the file', () => {
    const truncated = join(tmp, 'truncated.json');
    writeFileSync(truncated, '{\n  "model_type": "llama",\n  "hidden_size": 64,\n  "num_hidden_');
    const e = userError(() => resolveModel(truncated));
    expect(e.message).toMatch(/truncated\.json: invalid JSON/);
    expect(e.message).not.toContain('\n');
  });

  it('invalid config fields name the file and the field', () => {
    expect(userError(() => resolveModel(join(fixtures, 'unknown-type.json'))).message).toMatch(
      /unknown-type\.json: model_type: got 'foo'; expected one of llama, /,
    );
    expect(userError(() => resolveModel(join(fixtures, 'negative-hidden.json'))).message).toMatch(
      /negative-hidden\.json: hidden_size: got -4096; expected a positive integer$/,
    );
    expect(userError(() => resolveModel(join(fixtures, 'string-layers.json'))).message).toMatch(
      /string-layers\.json: num_hidden_layers: got '32'; expected a positive integer$/,
    );
  });

  it('folder without config.json, unreadable file, bad safetensors header', () => {
    const empty = join(tmp, 'empty');
    mkdirSync(empty);
    expect(userError(() => resolveModel(empty)).message).toMatch(/no config\.json/);
    const dir = folderWith('bad-header');
    writeFileSync(join(dir, 'model.safetensors'), Buffer.from([1, 2, 3]));
    expect(userError(() => resolveModel(dir)).message).toMatch(
      /model\.safetensors: not a safetensors file/,
    );
  });

  it('a catalog file whose id differs from its name, or that fails the schema', () => {
    const dir = join(tmp, 'bad-catalog');
    mkdirSync(dir);
    const entry = {
      id: 'other',
      hfId: null,
      aliases: [],
      family: 'x',
      source: 'https://example.com',
      config: { model_type: 'llama' },
    };
    writeFileSync(join(dir, 'named.json'), JSON.stringify(entry));
    expect(userError(() => resolveModel('named', { catalogDir: dir })).message).toMatch(
      /named\.json: id: got 'other'/,
    );
    writeFileSync(join(dir, 'named.json'), JSON.stringify({ ...entry, id: 'named', extra: 1 }));
    expect(userError(() => resolveModel('named', { catalogDir: dir })).message).toMatch(
      /named\.json: \(root\): /,
    );
  });
});
