/**
 * Hostile scenario files and plan/compare flags to the built CLI: every bad input ends in exactly one
 * stderr line that names the file and field (or flag), the bad value and what is allowed; exit 1; no
 * stack trace; no stdout; nothing written.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, ROOT, cliBuilt, makeUnreadable, runCli, scratchDir } from '../helpers/run-cli.js';

const scratch = scratchDir('vramplan-hostile-scenario-');
const tmp = scratch.dir;
afterAll(scratch.remove);

// scripts/test.mjs builds dist/ before vitest runs.
beforeAll(() => expect(cliBuilt()).toBe(true));

const file = scratch.file;

/** Every path under tmp with its size, so a new, removed or rewritten file shows. */
function listing(dir = tmp): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => {
      const p = join(dir, e.name);
      return e.isDirectory() ? [`${p}/`, ...listing(p)] : [`${p} ${readFileSync(p).length}`];
    })
    .sort();
}

const escape = (s: string) => new RegExp(s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));

/** One `vramplan: ...` line naming every fragment, exit 1, no stack, no stdout, tmp unchanged. */
function rejects(args: string[], ...mentions: (string | RegExp)[]): string {
  const before = listing();
  const r = runCli(args);
  expect(r.status, r.stderr).toBe(1);
  expect(r.stdout).toBe('');
  expect(r.stderr).not.toMatch(/\n\s+at /);
  expect(r.stderr).not.toMatch(/internal error/);
  const lines = r.stderr.split('\n').filter((l) => l !== '');
  expect(lines, r.stderr).toHaveLength(1);
  const line = lines[0]!;
  expect(line).toMatch(/^vramplan: /);
  for (const m of mentions) expect(line).toMatch(typeof m === 'string' ? escape(m) : m);
  expect(listing()).toEqual(before);
  return line;
}

const plan = (path: string, ...more: string[]) => ['plan', path, '--no-tui', ...more];

/** A valid scenario with `extra` YAML lines appended (for the unknown-id cases). */
const scenario = (name: string, extra = '', job = 'job: { kind: fine-tune, seq: 512 }') =>
  file(name, `name: hostile\nmodel: llama-2-7b\n${job}\n${extra}`);

describe('scenario files that do not parse', () => {
  it('YAML with bad indentation', () =>
    rejects(
      plan(file('indent.yaml', 'name: x\nmodel: llama-2-7b\njob:\n  kind: fine-tune\n   seq: 5\n')),
      'indent.yaml: invalid YAML',
      'at line 4, column 9',
    ));
  it('YAML indented with a tab', () =>
    rejects(
      plan(file('tab.yaml', 'name: x\n\tmodel: y\n')),
      'tab.yaml: invalid YAML',
      'Tabs are not allowed',
      'line 2',
    ));
  it('broken JSON', () =>
    rejects(
      plan(file('broken.json', '{"name": "x", model: 1}')),
      'broken.json: invalid JSON',
      'position',
    ));
  it('a truncated JSON file', () => {
    const text = JSON.stringify({ name: 'x', model: 'llama-2-7b', job: { kind: 'fine-tune' } });
    rejects(plan(file('truncated.json', text.slice(0, 40))), 'truncated.json: invalid JSON');
  });
  it('a truncated YAML file names the fields it lost', () => {
    const text = readFileSync(join(ROOT, 'scenarios/default.yaml'), 'utf8')
      .split('\n')
      .slice(0, 4)
      .join('\n');
    rejects(
      plan(file('truncated.yaml', text)),
      'truncated.yaml: ✖',
      'received undefined (got nothing) → at model',
      '→ at job',
    );
  });
  it('a binary file, as YAML and as JSON: said to be binary, in plain words', () => {
    const bytes = Buffer.from([
      0x7f, 0x45, 0x4c, 0x46, 0x0a, 0x00, 0x0d, 0x0a, 0xff, 0xfe, 0x1b, 0x5b,
    ]);
    for (const name of ['binary.yaml', 'binary.json'])
      rejects(
        plan(file(name, bytes)),
        `${name}: is a binary file (it holds NUL bytes); expected a text file such as YAML or JSON`,
      );
  });
  it('control characters of a text file stay escaped on the one line', () => {
    const bytes = Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x0a, 0x0d, 0x0a, 0xff, 0xfe, 0x1b, 0x5b]);
    const y = rejects(
      plan(file('control.yaml', bytes)),
      'control.yaml: ✖',
      'expected object, received string',
      '→ at (root)',
    );
    const j = rejects(
      plan(file('control.json', bytes)),
      'control.json: invalid JSON',
      '\\u007fELF',
    );
    // eslint-disable-next-line no-control-regex
    for (const line of [y, j]) expect(line).not.toMatch(/[\u0000-\u001f\u007f]/);
  });
  it('an empty file, and one with only a comment', () => {
    rejects(
      plan(file('empty.yaml', '')),
      'empty.yaml: empty; expected a mapping with at least name, model and job',
    );
    rejects(plan(file('comment.yaml', '# nothing\n')), 'comment.yaml: empty; expected a mapping');
    rejects(plan(file('empty.json', '')), 'empty.json: invalid JSON');
  });
  it('an unknown YAML tag: no multi-line YAMLWarning block on stderr', () =>
    rejects(
      plan(file('tag.yaml', 'name: x\nmodel: !foo no-such-model\njob: { kind: fine-tune }\n')),
      "tag.yaml: model: got 'no-such-model'",
    ));
  it('a YAML list instead of a mapping', () =>
    rejects(
      plan(file('list.yaml', '- a\n- b\n')),
      'list.yaml: ✖',
      'expected object, received array',
      '(got ["a","b"]) → at (root)',
    ));
});

describe('scenario files that do not validate', () => {
  it('an unknown top-level field', () =>
    rejects(
      plan(scenario('unknown-top.yaml', 'budget: 5\n')),
      'unknown-top.yaml: ✖ Unrecognized key: "budget" → at (root)',
    ));
  it('an unknown nested field', () =>
    rejects(
      plan(
        scenario(
          'unknown-nested.yaml',
          'hardware: { owned: [{ gpu: rtx-4090, count: 1, vram: 24 }] }\n',
        ),
      ),
      'unknown-nested.yaml: ✖ Unrecognized key: "vram" → at hardware.owned.0',
    ));
  it('missing model and job: both named, on one line', () =>
    rejects(
      plan(file('missing.yaml', 'name: x\n')),
      'missing.yaml: ✖ Invalid input: expected string, received undefined (got nothing) → at model; ✖',
      'expected object, received undefined (got nothing) → at job',
    ));
  it('seq: "long"', () =>
    rejects(
      plan(scenario('seq.yaml', '', 'job: { kind: fine-tune, seq: long }')),
      'seq.yaml: ✖',
      'expected number, received string (got "long") → at job.seq',
    ));
  it('globalBatch: -4', () =>
    rejects(
      plan(scenario('batch.yaml', '', 'job: { kind: fine-tune, globalBatch: -4 }')),
      'batch.yaml: ✖',
      'expected number to be >=1 (got -4) → at job.globalBatch',
    ));
  it('count: 0', () =>
    rejects(
      plan(scenario('count.yaml', 'hardware: { owned: [{ gpu: rtx-4090, count: 0 }] }\n')),
      'count.yaml: ✖',
      '>=1 (got 0) → at hardware.owned.0.count',
    ));
  it('three wrong types at once: one line, issues joined by "; "', () => {
    const line = rejects(
      plan(
        scenario(
          'three.yaml',
          'hardware: { owned: [{ gpu: rtx-4090, count: 0 }] }\n',
          'job: { kind: fine-tune, seq: long, globalBatch: -4 }',
        ),
      ),
      'three.yaml: ✖',
    );
    expect(line.split('; ✖').map((s) => s.match(/→ at (\S+)/)?.[1])).toEqual([
      'job.seq',
      'job.globalBatch',
      'hardware.owned.0.count',
    ]);
  });
  it('an unknown job kind', () =>
    rejects(
      plan(scenario('kind.yaml', '', 'job: { kind: pretrain }')),
      'kind.yaml: ✖',
      "Expected 'fine-tune' | 'inference' (got \"pretrain\") → at job.kind",
    ));
  it('a GPU id that is not a catalog id at all', () =>
    rejects(
      plan(scenario('upper.yaml', 'hardware: { owned: [{ gpu: RTX 4090, count: 1 }] }\n')),
      'upper.yaml: ✖ expected a lower-case kebab-case catalog id (got "RTX 4090") → at hardware.owned.0.gpu',
    ));
});

describe('scenario ids that are not in the catalogs', () => {
  it('unknown model id', () =>
    rejects(
      plan(file('model.yaml', 'name: x\nmodel: no-such-model\njob: { kind: fine-tune }\n')),
      "model.yaml: model: got 'no-such-model'; expected a catalog id",
    ));
  it('unknown GPU id in hardware.owned', () =>
    rejects(
      plan(
        scenario(
          'gpu.yaml',
          'hardware: { owned: [{ gpu: rtx-4090, count: 1 }, { gpu: gtx-9999, count: 1 }] }\n',
        ),
      ),
      "gpu.yaml: hardware.owned.1.gpu: got 'gtx-9999'; expected a GPU id from catalogs/gpus",
    ));
  it('unknown circuit id', () =>
    rejects(
      plan(
        scenario(
          'circuit.yaml',
          'hardware: { owned: [{ gpu: rtx-4090, count: 1 }] }\npower: { circuits: [us-120v-15a, no-circuit] }\n',
        ),
      ),
      "circuit.yaml: power.circuits.1: got 'no-circuit'; expected one of",
      'us-120v-15a',
    ));
  it('unknown offer id', () =>
    rejects(
      plan(scenario('offer.yaml', 'hardware: { rent: { offers: [no-offer] } }\n')),
      "offer.yaml: hardware.rent.offers.0: got 'no-offer'; expected an offer id from catalogs/offers",
    ));
  it('unknown provider (was silently "nothing fits")', () =>
    rejects(
      plan(scenario('provider.yaml', 'hardware: { rent: { providers: [no-provider] } }\n')),
      "provider.yaml: hardware.rent.providers.0: got 'no-provider'; expected one of",
      'runpod',
    ));
  it('a provider that offers none of hardware.rent.gpus (was silently "nothing fits", nothing pruned)', () =>
    rejects(
      plan(scenario('no-offer.yaml', 'hardware: { rent: { providers: [aws], gpus: [l4] } }\n')),
      'no-offer.yaml: hardware.rent: no offer in catalogs/offers passes its filters (providers of l4: modal, runpod)',
    ));
  it('unknown GPU id in hardware.rent.gpus and hardware.buy', () => {
    rejects(
      plan(scenario('rent-gpu.yaml', 'hardware: { rent: { gpus: [gtx-9999] } }\n')),
      "rent-gpu.yaml: hardware.rent.gpus.0: got 'gtx-9999'; expected a GPU id",
    );
    rejects(
      plan(scenario('buy-gpu.yaml', 'hardware: { buy: { gpus: [rtx-4090, gtx-9999] } }\n')),
      "buy-gpu.yaml: hardware.buy.gpus.1: got 'gtx-9999'",
    );
    rejects(
      plan(
        scenario(
          'buy-price.yaml',
          'hardware: { buy: { gpus: [rtx-4090], priceUsd: { gtx-9999: 100 } } }\n',
        ),
      ),
      "buy-price.yaml: hardware.buy.priceUsd.gtx-9999: got 'gtx-9999'",
    );
  });
});

describe('scenario paths that cannot be read', () => {
  it('a missing file', () =>
    rejects(
      plan(join(tmp, 'nowhere.yaml')),
      'nowhere.yaml: cannot read (ENOENT); expected a readable scenario file (YAML or JSON)',
    ));
  it('a directory', () => {
    mkdirSync(join(tmp, 'a-dir.yaml'), { recursive: true });
    rejects(
      plan(join(tmp, 'a-dir.yaml')),
      'a-dir.yaml: cannot read (EISDIR); expected a readable scenario file',
    );
  });
  it('an unreadable file (skipped when running as root can read it)', (ctx) => {
    const path = scenario('secret.yaml');
    if (!makeUnreadable(path)) {
      ctx.skip();
      return;
    }
    rejects(plan(path), 'secret.yaml: cannot read (EACCES)');
    chmodSync(path, 0o600);
  });
});

describe('plan flags', () => {
  const good = 'scenarios/default.yaml';
  it('--top 0 and --top abc', () => {
    rejects(plan(good, '--top', '0'), "--top: got '0'; expected an integer from 1 to 1000");
    rejects(plan(good, '--top', 'abc'), "--top: got 'abc'; expected an integer from 1 to 1000");
  });
  it('--export into a missing folder', () =>
    rejects(
      plan(good, '--export', join(tmp, 'no-such-dir', 'plans.json')),
      'no-such-dir/plans.json: cannot write (ENOENT); expected a writable file path in an existing folder',
    ));
  it('--export into a "folder" that is a file', () => {
    const f = scenario('not-a-dir.yaml');
    rejects(
      plan(good, '--export', join(f, 'plans.json')),
      'not-a-dir.yaml/plans.json: cannot write (ENOTDIR)',
    );
  });
  it('--export with an unknown extension', () =>
    rejects(
      plan(good, '--export', join(tmp, 'plans.txt')),
      '--export: got',
      "plans.txt'; expected a file name ending in .json, .csv, .md or .svg",
    ));
  it('--export to an existing file: refused without --force (content kept), replaced with it', () => {
    const out = file('existing.json', 'keep me');
    rejects(
      plan(good, '--export', out),
      'existing.json: already exists; not overwriting — pass --force to replace it',
    );
    expect(readFileSync(out, 'utf8')).toBe('keep me');
    const r = runCli(plan(good, '--top', '2', '--export', out, '--force'));
    expect(r.status, r.stderr).toBe(0);
    // One line, as launch writes it: the file, its plans and the plan count; no report.
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(
      /^wrote .*existing\.json \(2 plans of [\d,]+ feasible configurations → [\d,]+ distinct plans, json\)\n$/,
    );
    expect(JSON.parse(readFileSync(out, 'utf8'))).toHaveProperty('plans');
    expect(readdirSync(tmp).filter((n) => n.includes('.tmp'))).toEqual([]);
  });
});

describe('compare with one bad file among good ones', () => {
  it('names the bad file and plans nothing', () => {
    const bad = scenario('bad-in-compare.yaml', '', 'job: { kind: fine-tune, seq: long }');
    rejects(
      ['compare', 'scenarios/default.yaml', bad, 'scenarios/7b-full-rtx-a6000.yaml', '--no-tui'],
      'bad-in-compare.yaml: ✖',
      '(got "long") → at job.seq',
    );
  });
  it('and one missing file', () =>
    rejects(
      ['compare', 'scenarios/default.yaml', join(tmp, 'gone.yaml'), '--no-tui'],
      'gone.yaml: cannot read (ENOENT)',
    ));
});

describe('--no-color', () => {
  it('plan scenarios/default.yaml --no-color --no-tui: exit 0, no escape codes, even with FORCE_COLOR=1', () => {
    const env: NodeJS.ProcessEnv = { ...process.env, FORCE_COLOR: '1' };
    delete env.NO_COLOR;
    for (const args of [
      ['plan', 'scenarios/default.yaml', '--no-color', '--no-tui'],
      ['--no-color', 'plan', 'scenarios/default.yaml', '--no-tui'],
      ['compare', 'scenarios/default.yaml', 'scenarios/default.yaml', '--no-color', '--no-tui'],
    ]) {
      const r = spawnSync(process.execPath, [CLI, ...args], {
        cwd: ROOT,
        encoding: 'utf8',
        timeout: 170_000,
        env,
      });
      expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout).toContain('rtx-4090');
      expect(r.stdout).not.toContain('\u001b');
    }
  });
});
