/**
 * The Hub cache is never poisoned, against a local HTTP server on 127.0.0.1: 404, 500, an HTML page with
 * 200, truncated JSON, a JSON that is not a model config (a proxy's error), an oversize body, a slow body, a
 * redirect loop, a bad safetensors header, too many shards, headers too large together.
 * Each gives one UserError line, within bounded requests and time, and leaves nothing in the cache; a
 * damaged cached entry is fetched again; repo ids the Hub would refuse never reach a request or a path.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { UserError } from '../../src/io/errors.js';
import { isHubRepoId, prepareModel, vramplanHubDir } from '../../src/io/hub.js';
import { resolveModel } from '../../src/io/load-model.js';
import { CLI, cliBuilt, scratchDir } from '../helpers/run-cli.js';

const CONFIG = readFileSync(
  fileURLToPath(new URL('../fixtures/models/tiny-llama/config.json', import.meta.url)),
);
const OVERSIZE = 17 * 1024 * 1024;
const CHUNK = Buffer.alloc(1024 * 1024, 0x20);

let server: Server;
let endpoint = '';
const seen: string[] = [];
let flakyCalls = 0;

/** One answer per repo: the hostile behaviours, and a good repo (acme/good). */
function answer(repo: string, file: string, req: IncomingMessage, res: ServerResponse): void {
  switch (repo) {
    case 'acme/good':
      if (file === 'config.json') return void res.writeHead(200).end(CONFIG);
      return void res.writeHead(404).end('Entry not found');
    case 'acme/e500':
      return void res.writeHead(500).end('oops');
    case 'acme/html':
      return void res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end('<html><body>Sign in to the Wi-Fi</body></html>');
    case 'acme/truncated':
      return void res
        .writeHead(200, { 'content-type': 'application/json' })
        .end('{"model_type": "lla');
    case 'acme/oversize': {
      // Chunked, no content-length: the cap must hold while streaming.
      res.writeHead(200, { 'content-type': 'application/json' });
      let sent = 0;
      const more = (): void => {
        while (sent < OVERSIZE) {
          sent += CHUNK.length;
          if (!res.write(CHUNK)) return void res.once('drain', more);
        }
        res.end();
      };
      res.on('error', () => undefined);
      return more();
    }
    case 'acme/slow':
      // Headers, a few bytes, then nothing: the body must time out.
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.write('{"model_type"');
    case 'acme/loop':
      return void res.writeHead(302, { location: req.url ?? '/' }).end();
    case 'acme/badheader': {
      if (file === 'config.json') return void res.writeHead(200).end(CONFIG);
      if (file === 'model.safetensors') {
        const json = Buffer.from('{"a": [1, 2');
        const len = Buffer.alloc(8);
        len.writeBigUInt64LE(BigInt(json.length));
        const body = Buffer.concat([len, json]);
        const r = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
        const [a, b] = r ? [Number(r[1]), Math.min(Number(r[2]), body.length - 1)] : [0, -1];
        return void res.writeHead(206).end(body.subarray(a, b + 1));
      }
      return void res.writeHead(404).end();
    }
    case 'acme/denied':
      // A proxy answering 200 with its own JSON error instead of the file.
      return void res
        .writeHead(200, { 'content-type': 'application/json' })
        .end('{"error": "access denied by policy"}');
    case 'acme/manyshards': {
      if (file === 'config.json') return void res.writeHead(200).end(CONFIG);
      if (file === 'model.safetensors.index.json') {
        const map = Object.fromEntries(
          Array.from({ length: 1001 }, (_, i) => [`w${i}`, `model-${i}.safetensors`]),
        );
        return void res.writeHead(200).end(JSON.stringify({ weight_map: map }));
      }
      return void res.writeHead(404).end();
    }
    case 'acme/bigheaders': {
      // 12 shards, each declaring a 90 MB header: under the one-file cap, far over it together.
      if (file === 'config.json') return void res.writeHead(200).end(CONFIG);
      if (file === 'model.safetensors.index.json') {
        const map = Object.fromEntries(
          Array.from({ length: 12 }, (_, i) => [`w${i}`, `model-${i}.safetensors`]),
        );
        return void res.writeHead(200).end(JSON.stringify({ weight_map: map }));
      }
      const len = Buffer.alloc(8);
      len.writeBigUInt64LE(90_000_000n);
      return void res.writeHead(206).end(len);
    }
    case 'acme/race':
      // Another vramplan finishes the same first fetch while this one waits for config.json.
      if (file === 'config.json') {
        const dir = vramplanHubDir('acme/race');
        mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, 'config.json'), CONFIG);
        writeFileSync(join(dir, 'written-by-the-other.txt'), '');
        return void res.writeHead(200).end(CONFIG);
      }
      return void res.writeHead(404).end();
    case 'acme/flaky':
      // The first config.json answer is a portal page; the next ones are the file.
      if (file === 'config.json' && flakyCalls++ === 0)
        return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html>login</html>');
      if (file === 'config.json') return void res.writeHead(200).end(CONFIG);
      return void res.writeHead(404).end();
    default:
      return void res.writeHead(404).end('Entry not found');
  }
}

const scratch = scratchDir('vramplan-hub-hostile-');
const saved = { ...process.env };
beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.url ?? '');
    const m = /^\/(.+?\/.+?)\/resolve\/main\/(.+)$/.exec(req.url ?? '');
    if (!m) return void res.writeHead(404).end();
    answer(m[1]!, m[2]!, req, res);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((ok) => server.close(ok));
  scratch.remove();
});

let home = '';
let n = 0;
beforeEach(() => {
  home = join(scratch.dir, `home-${n++}`);
  mkdirSync(home);
  seen.length = 0;
  Object.assign(process.env, {
    HF_ENDPOINT: endpoint,
    HF_HOME: join(home, 'hf'),
    XDG_CACHE_HOME: join(home, 'cache'),
    VRAMPLAN_HUB_TIMEOUT: '0.5',
  });
  for (const k of ['HF_TOKEN', 'HF_HUB_OFFLINE', 'HF_HUB_CACHE']) delete process.env[k];
});
afterEach(() => {
  for (const k of [
    'HF_ENDPOINT',
    'HF_HOME',
    'XDG_CACHE_HOME',
    'HF_HUB_OFFLINE',
    'VRAMPLAN_HUB_TIMEOUT',
  ])
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
});

async function refused(spec: string): Promise<{ e: UserError; ms: number }> {
  const t0 = performance.now();
  try {
    await prepareModel(spec);
  } catch (e) {
    expect(e).toBeInstanceOf(UserError);
    expect((e as Error).message).not.toContain('\n');
    return { e: e as UserError, ms: performance.now() - t0 };
  }
  throw new Error(`expected ${spec} to be refused`);
}

const nothingCached = (repo: string) =>
  expect(existsSync(join(home, 'cache', 'vramplan', 'hub', ...repo.split('/')))).toBe(false);

describe('Hub: bad answers are refused and never cached', () => {
  const cases: [string, RegExp, number][] = [
    ['acme/nothing', /HTTP 404/, 1],
    ['acme/e500', /answered HTTP 500/, 1],
    ['acme/html', /HTML page .*captive portal/, 1],
    ['acme/truncated', /not valid JSON/, 1],
    ['acme/denied', /config\.json: not a model config \(.*\); nothing was written/, 1],
    ['acme/manyshards', /names 1001 shards, over the limit of 1000/, 2],
    ['acme/bigheaders', /headers of 12 shards add up to more than 100000000 bytes/, 4],
    ['acme/oversize', /over the limit/, 1],
    ['acme/slow', /no answer within 0\.5 s/, 1],
    ['acme/loop', /more than 5 redirects/, 6],
    ['acme/badheader', /model\.safetensors: not a safetensors file \(header is not JSON/, 5],
  ];
  for (const [repo, why, maxRequests] of cases)
    it(repo, async () => {
      const { e, ms } = await refused(repo);
      expect(e.message).toMatch(why);
      expect(ms).toBeLessThan(30_000); // a hang detector: the slow server never answers
      expect(seen.length).toBeLessThanOrEqual(maxRequests);
      nothingCached(repo);
    });

  it('the error of a bad body names the cache folder it did not write', async () => {
    const { e } = await refused('acme/html');
    expect(e.message).toContain(join(home, 'cache', 'vramplan', 'hub', 'acme', 'html'));
  });

  it('a bad answer then a good one: the second run fetches again and succeeds', async () => {
    flakyCalls = 0;
    await refused('acme/flaky');
    const dir = await prepareModel('acme/flaky');
    expect(resolveModel(dir).hidden).toBe(64);
  });
});

describe('Hub: a damaged cached entry', () => {
  const seed = (text: string) => {
    const dir = vramplanHubDir('acme/good');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'config.json'), text);
    return dir;
  };
  it('is discarded and fetched again', async () => {
    const dir = seed('<html>portal</html>');
    expect(await prepareModel('acme/good')).toBe(dir);
    expect(seen.some((u) => u.endsWith('/config.json'))).toBe(true);
    expect(resolveModel(dir).hidden).toBe(64);
  });
  it('offline: one line naming the cache path', async () => {
    const dir = seed('{"model_type": "lla');
    process.env.HF_HUB_OFFLINE = '1';
    const { e } = await refused('acme/good');
    expect(e.message).toMatch(/cached copy of 'acme\/good' at .* is damaged/);
    expect(e.message).toContain(dir);
    expect(seen).toHaveLength(0);
  });
  it('a cached config.json that is not a model config is fetched again', async () => {
    const dir = seed('{"error": "access denied by policy"}');
    expect(await prepareModel('acme/good')).toBe(dir);
    expect(seen.some((u) => u.endsWith('/config.json'))).toBe(true);
    expect(resolveModel(dir).hidden).toBe(64);
  });
  it('a good cached entry is used without a request', async () => {
    seed(CONFIG.toString());
    await prepareModel('acme/good');
    expect(seen).toHaveLength(0);
  });
});

describe('Hub: an interrupted fetch', () => {
  it('leaves a temp folder the next fetch sweeps', async () => {
    const dir = vramplanHubDir('acme/good');
    const pid = spawnSync(process.execPath, ['-e', '']).pid!;
    const left = `${dir}.tmp-${pid}-0123abcd`;
    mkdirSync(left, { recursive: true });
    writeFileSync(join(left, 'config.json'), '{"model_type": "lla');
    expect(await prepareModel('acme/good')).toBe(dir);
    expect(existsSync(left)).toBe(false);
  });
});

describe('Hub: two first fetches at once', () => {
  it('the one that finishes second uses the folder the first wrote', async () => {
    const dir = await prepareModel('acme/race');
    expect(resolveModel(dir).hidden).toBe(64);
    expect(existsSync(join(dir, 'written-by-the-other.txt'))).toBe(true);
  });
});

describe('Hub: repo ids', () => {
  for (const id of ['a/..', 'q/.', 'a--b/c', 'acme/x.git', 'acme/-x', 'acme/x..y'])
    it(`'${id}' is refused before any request or path`, async () => {
      const { e } = await refused(id);
      expect(e.message).toMatch(/is not a Hugging Face repo id/);
      expect(seen).toHaveLength(0);
      expect(existsSync(join(home, 'cache'))).toBe(false);
    });
  it('the Hub pattern', () => {
    for (const ok of ['meta-llama/Llama-3.1-8B', 'a/b', 'Qwen/Qwen2.5-0.5B', 'x_y/z_'])
      expect(isHubRepoId(ok), ok).toBe(true);
    for (const bad of ['a/..', 'q/.', '/a', 'a/', 'a/b/c', `a/${'x'.repeat(97)}`, '.a/b'])
      expect(isHubRepoId(bad), bad).toBe(false);
  });
});

describe('Hub through the built CLI: a slow body is one line, exit 1', () => {
  beforeAll(() => expect(cliBuilt()).toBe(true));
  it('no stack trace, within the timeout', async () => {
    const child = spawn(process.execPath, [CLI, 'estimate', '--model', 'acme/slow'], {
      env: { ...process.env, FORCE_COLOR: '0' },
    });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const t0 = performance.now();
    const code = await new Promise<number | null>((ok) => child.on('close', ok));
    expect(performance.now() - t0).toBeLessThan(5000);
    expect(code, err).toBe(1);
    expect(err.trim().split('\n')).toHaveLength(1);
    expect(err).toMatch(/no answer within 0\.5 s/);
  });
});

describe('VRAMPLAN_HUB_TIMEOUT out of range through the built CLI: one line, exit 1', () => {
  for (const value of ['Infinity', '1e9', '0', '-5', 'soon'])
    it(value, () => {
      const r = spawnSync(process.execPath, [CLI, 'estimate', '--model', 'acme/good'], {
        env: { ...process.env, FORCE_COLOR: '0', VRAMPLAN_HUB_TIMEOUT: value },
        encoding: 'utf8',
        timeout: 15_000,
      });
      expect(r.status, r.stderr).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(
        /^vramplan: VRAMPLAN_HUB_TIMEOUT: got '.*'; expected seconds from 0\.1 to 3600/,
      );
      expect(seen).toHaveLength(0);
      nothingCached('acme/good');
    });
});
