// The upstream tools' key lists are data (catalogs/upstream-keys): each file parses, names its sources at a
// pinned commit or version, and `--from` reads them; a command without --from never does.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { mapConfig } from '../../src/core/from/index.js';
import { upstreamKeys, upstreamKeysFile } from '../../src/io/load-upstream-keys.js';
import { UPSTREAM_KEY_LISTS, upstreamKeysSchema } from '../../src/schema/upstream-keys.js';
import { loadLaunchers } from '../../src/core/engines/registry.js';
import { CLI, ROOT, cliBuilt } from '../helpers/run-cli.js';

const DIR = join(ROOT, 'catalogs', 'upstream-keys');

describe('catalogs/upstream-keys', () => {
  it('holds one file per list, each valid against its schema', () => {
    const files = readdirSync(DIR).filter((f) => f.endsWith('.json'));
    expect(files.sort()).toEqual(UPSTREAM_KEY_LISTS.map((l) => `${l}.json`).sort());
    for (const list of UPSTREAM_KEY_LISTS) {
      const r = upstreamKeysSchema.safeParse(
        JSON.parse(readFileSync(upstreamKeysFile(list), 'utf8')),
      );
      expect(r.success, `${list}: ${r.error?.message}`).toBe(true);
      // An earlier version's key that the sources have again belongs in `keys` only.
      const keys = new Set(r.data!.keys);
      expect((r.data!.earlierKeys ?? []).filter((k) => keys.has(k))).toEqual([]);
    }
  });

  it('rejects an unsorted list and a source without a pinned commit', () => {
    const ok = JSON.parse(readFileSync(upstreamKeysFile('axolotl'), 'utf8')) as {
      keys: string[];
      sources: { commit: string }[];
    };
    expect(upstreamKeysSchema.safeParse({ ...ok, keys: ['b', 'a'] }).success).toBe(false);
    const unpinned = { ...ok, sources: [{ ...ok.sources[0]!, commit: 'main' }] };
    expect(upstreamKeysSchema.safeParse(unpinned).success).toBe(false);
  });

  it('tells a known key vramplan does not use from a typo (axolotl, LLaMA-Factory, TrainingArguments)', async () => {
    await loadLaunchers();
    const cases = [
      ['axolotl', { base_model: 'meta-llama/Llama-3.1-8B', wandb_project: 'x', wandb_projet: 'x' }],
      [
        'llamafactory',
        { model_name_or_path: 'm', template: 'llama3', report_to: 'none', templat: 1 },
      ],
      ['hf-args', { model_name_or_path: 'm', output_dir: 'o', push_to_hub: true, push_to_hubb: 1 }],
    ] as const;
    for (const [format, doc] of cases) {
      const m = mapConfig({ ...doc }, format, undefined, upstreamKeys);
      expect(m.unknown, format).toEqual([Object.keys(doc).at(-1)]);
      expect(m.ignored.length, format).toBeGreaterThan(0);
    }
  });

  it("a TrainingArguments config knows TRL's and its recipes' keys from trl.json, and a typo of one is unknown", async () => {
    await loadLaunchers();
    const trl = upstreamKeys('trl');
    // A GRPOConfig field, a PPOConfig field, an open-r1 script argument, and TRL's earlier exp_name.
    for (const k of ['vllm_server_port', 'ref_adapter_name', 'wandb_project', 'exp_name'])
      expect(trl.has(k), k).toBe(true);
    const doc = {
      model_name_or_path: 'm',
      output_dir: 'o',
      vllm_server_port: 8000,
      system_prompt: 'x',
      vllm_server_prot: 1,
    };
    const m = mapConfig({ ...doc }, 'hf-args', undefined, upstreamKeys);
    expect(m.unknown).toEqual(['vllm_server_prot']);
    expect(m.ignored).toEqual(expect.arrayContaining(['vllm_server_port', 'system_prompt']));
  });
});

// Records, on stderr, every upstream-keys file the process reads (fs.readFileSync, synced to ESM imports).
const PRELOAD = `data:text/javascript,${encodeURIComponent(`
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
const read = fs.readFileSync;
fs.readFileSync = function (p, ...rest) {
  if (String(p).includes('upstream-keys')) process.stderr.write('READ ' + String(p) + '\\n');
  return read.call(this, p, ...rest);
};
syncBuiltinESMExports();
`)}`;

const readsOf = (args: string[]): string[] => {
  const r = spawnSync(process.execPath, ['--import', PRELOAD, CLI, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
  });
  expect(r.status, r.stderr).toBe(0);
  return r.stderr.split('\n').filter((l) => l.startsWith('READ '));
};

describe('load cost', () => {
  beforeAll(() => expect(cliBuilt()).toBe(true));

  it('estimate without --from reads no key list; with an axolotl --from, axolotl only', () => {
    expect(readsOf(['estimate', '--model', 'llama-2-13b', '--json'])).toEqual([]);
    const from = join(ROOT, 'test/fixtures/from/axolotl/examples/llama-3/lora-8b.yml');
    const reads = readsOf(['estimate', '--from', from, '--json']);
    expect(reads).toHaveLength(1);
    expect(reads[0]).toMatch(/upstream-keys[/\\]axolotl\.json$/);
  });
});
