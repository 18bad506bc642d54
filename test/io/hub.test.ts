/**
 * The Hub fetcher against a local HTTP server (node:http, no network): recorded responses for a public
 * sharded repo, a single-file repo, a gated repo and a missing one; Range requests for safetensors headers;
 * HF_TOKEN sent; the Hugging Face cache reused; HF_HUB_OFFLINE honoured.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { paramCounts } from '../../src/core/model/index.js';
import { UserError } from '../../src/io/errors.js';
import { prepareModel } from '../../src/io/hub.js';
import { resolveModel } from '../../src/io/load-model.js';
import { CLI, cliBuilt } from '../helpers/run-cli.js';

const CONFIG = readFileSync(
  fileURLToPath(new URL('../fixtures/models/tiny-llama/config.json', import.meta.url)),
);

/** A safetensors file: 8-byte LE header length, JSON header, then zero bytes for the data. */
function safetensors(tensors: Record<string, number[]>): Buffer {
  let offset = 0;
  const header: Record<string, unknown> = { __metadata__: { format: 'pt' } };
  for (const [name, shape] of Object.entries(tensors)) {
    const bytes = shape.reduce((a, b) => a * b, 1) * 2;
    header[name] = { dtype: 'BF16', shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  const json = Buffer.from(JSON.stringify(header));
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(json.length));
  return Buffer.concat([len, json, Buffer.alloc(offset)]);
}

// tiny-llama: hidden 64, ffn 128, 2 layers, 4 heads of 16, 2 KV heads, vocab 100, untied.
const layer = (i: number) => ({
  [`model.layers.${i}.self_attn.q_proj.weight`]: [64, 64],
  [`model.layers.${i}.self_attn.k_proj.weight`]: [32, 64],
  [`model.layers.${i}.self_attn.v_proj.weight`]: [32, 64],
  [`model.layers.${i}.self_attn.o_proj.weight`]: [64, 64],
  [`model.layers.${i}.mlp.gate_proj.weight`]: [128, 64],
  [`model.layers.${i}.mlp.up_proj.weight`]: [128, 64],
  [`model.layers.${i}.mlp.down_proj.weight`]: [64, 128],
  [`model.layers.${i}.input_layernorm.weight`]: [64],
  [`model.layers.${i}.post_attention_layernorm.weight`]: [64],
});
const SHARD1 = { 'model.embed_tokens.weight': [100, 64], ...layer(0) };
const SHARD2 = { ...layer(1), 'model.norm.weight': [64], 'lm_head.weight': [100, 64] };
const count = (t: Record<string, number[]>) =>
  Object.values(t).reduce((s, shape) => s + shape.reduce((a, b) => a * b, 1), 0);
const TOTAL = count(SHARD1) + count(SHARD2);

const files: Record<string, Buffer> = {
  'acme/tiny-sharded/config.json': CONFIG,
  'acme/tiny-sharded/model.safetensors.index.json': Buffer.from(
    JSON.stringify({
      metadata: { total_size: TOTAL * 2 },
      weight_map: {
        ...Object.fromEntries(
          Object.keys(SHARD1).map((k) => [k, 'model-00001-of-00002.safetensors']),
        ),
        ...Object.fromEntries(
          Object.keys(SHARD2).map((k) => [k, 'model-00002-of-00002.safetensors']),
        ),
      },
    }),
  ),
  'acme/tiny-sharded/model-00001-of-00002.safetensors': safetensors(SHARD1),
  'acme/tiny-sharded/model-00002-of-00002.safetensors': safetensors(SHARD2),
  'acme/tiny-single/config.json': CONFIG,
  'acme/tiny-single/model.safetensors': safetensors({ ...SHARD1, ...SHARD2 }),
};

let server: Server;
let endpoint = '';
const seen: { url: string; auth?: string; range?: string }[] = [];
const tmp = mkdtempSync(join(tmpdir(), 'vramplan-hub-'));
const saved = { ...process.env };

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    seen.push({ url: req.url ?? '', auth: req.headers.authorization, range: req.headers.range });
    const m = /^\/(.+?)\/resolve\/main\/(.+)$/.exec(req.url ?? '');
    if (m && m[1] === 'acme/gated') {
      res.writeHead(req.headers.authorization === 'Bearer good' ? 404 : 401).end();
      return;
    }
    const body = m ? files[`${m[1]}/${m[2]}`] : undefined;
    if (!body) return void res.writeHead(404).end('Entry not found');
    const r = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
    if (r) {
      const [a, b] = [Number(r[1]), Math.min(Number(r[2]), body.length - 1)];
      res.writeHead(206, { 'content-range': `bytes ${a}-${b}/${body.length}` });
      return void res.end(body.subarray(a, b + 1));
    }
    res.writeHead(200).end(body);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((ok) => server.close(ok));
  rmSync(tmp, { recursive: true, force: true });
});

let home = '';
beforeEach(() => {
  home = mkdtempSync(join(tmp, 'home-'));
  seen.length = 0;
  Object.assign(process.env, {
    HF_ENDPOINT: endpoint,
    HF_HOME: join(home, 'hf'),
    XDG_CACHE_HOME: join(home, 'cache'),
  });
  delete process.env.HF_TOKEN;
  delete process.env.HF_HUB_OFFLINE;
  delete process.env.HF_HUB_CACHE;
});
afterEach(() => {
  for (const k of ['HF_ENDPOINT', 'HF_HOME', 'XDG_CACHE_HOME', 'HF_TOKEN', 'HF_HUB_OFFLINE'])
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
});

async function userError(p: Promise<unknown>): Promise<UserError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(UserError);
    return e as UserError;
  }
  throw new Error('expected a UserError');
}

describe('Hub fetcher (local server)', () => {
  it('sharded repo: config + both headers by Range; exact parameter count; cached afterwards', async () => {
    const dir = await prepareModel('acme/tiny-sharded');
    const arch = resolveModel(dir);
    expect(arch.measuredParams).toBe(TOTAL);
    expect(paramCounts(arch).total).toBe(TOTAL);
    // Headers only: every shard request is ranged.
    expect(seen.filter((s) => s.url.endsWith('.safetensors')).every((s) => s.range)).toBe(true);
    seen.length = 0;
    expect(await prepareModel('acme/tiny-sharded')).toBe(dir);
    expect(seen).toHaveLength(0);
  });
  it('single-file repo (no index)', async () => {
    expect(resolveModel(await prepareModel('acme/tiny-single')).measuredParams).toBe(TOTAL);
  });
  it('catalog ids and Hub ids the catalog knows never touch the network', async () => {
    expect(await prepareModel('meta-llama/Llama-2-7b-hf')).toBe('meta-llama/Llama-2-7b-hf');
    expect(seen).toHaveLength(0);
  });
  it('gated repo: says so, and sends HF_TOKEN', async () => {
    const e = await userError(prepareModel('acme/gated'));
    expect(e.message).toMatch(/'acme\/gated' is gated or private .*HTTP 401.*HF_TOKEN/);
    process.env.HF_TOKEN = 'good';
    await userError(prepareModel('acme/gated'));
    expect(seen.at(-1)?.auth).toBe('Bearer good');
  });
  it('missing repo: HTTP 404, how to proceed', async () => {
    const e = await userError(prepareModel('acme/nothing-here'));
    expect(e.message).toMatch(/'acme\/nothing-here' has no config\.json .*HTTP 404.*config\.json/);
  });
  it('HF_HUB_OFFLINE: no request; the error says how to proceed', async () => {
    process.env.HF_HUB_OFFLINE = '1';
    const e = await userError(prepareModel('acme/tiny-sharded'));
    expect(e.message).toMatch(/HF_HUB_OFFLINE is set: give --model a path/);
    expect(seen).toHaveLength(0);
  });
  it('reuses the Hugging Face cache (refs/main → snapshot) offline', async () => {
    const root = join(home, 'hf', 'hub', 'models--acme--cached');
    mkdirSync(join(root, 'refs'), { recursive: true });
    mkdirSync(join(root, 'snapshots', 'abc123'), { recursive: true });
    writeFileSync(join(root, 'refs', 'main'), 'abc123');
    writeFileSync(join(root, 'snapshots', 'abc123', 'config.json'), CONFIG);
    process.env.HF_HUB_OFFLINE = '1';
    const dir = await prepareModel('acme/cached');
    expect(dir).toBe(join(root, 'snapshots', 'abc123'));
    expect(resolveModel(dir).hidden).toBe(64);
  });
  it('unreachable Hub: one line naming the endpoint, within a second', async () => {
    // A port that was just freed: connection refused.
    const probe = createServer();
    await new Promise<void>((ok) => probe.listen(0, '127.0.0.1', ok));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((ok) => probe.close(ok));
    process.env.HF_ENDPOINT = `http://127.0.0.1:${port}`;
    const t0 = performance.now();
    const e = await userError(prepareModel('acme/tiny-sharded'));
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(e.message).toMatch(/cannot be reached \(ECONNREFUSED\).*go online/);
  });
});

describe('estimate --model <repo id> through the built CLI, against the local Hub', () => {
  beforeAll(() => expect(cliBuilt()).toBe(true));
  it('estimates a repo the catalog does not know', async () => {
    const child = spawn(
      process.execPath,
      [CLI, 'estimate', '--model', 'acme/tiny-sharded', '--seq', '128', '--json'],
      {
        env: { ...process.env, FORCE_COLOR: '0' },
      },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((ok) => child.on('close', ok));
    expect(code, err).toBe(0);
    const result = JSON.parse(out) as {
      params: { total: number };
      perGpu: { deviceBytes: number };
    };
    expect(result.params.total).toBe(TOTAL);
    expect(result.perGpu.deviceBytes).toBeGreaterThan(0);
  });
});
