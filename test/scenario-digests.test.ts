/**
 * Every shipped scenario's `plan --json` output, held to a SHA-256 digest per scenario
 * (test/fixtures/golden/scenario-digests.json): a restructuring must leave every byte as it was, and a model
 * change shows which scenarios it moved. After a change meant to move them, rewrite the digests with
 * `UPDATE_DIGESTS=1 npx vitest run test/scenario-digests.test.ts` and say in the commit which moved and why.
 */
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from './helpers/run-cli.js';

const FILE = `${ROOT}test/fixtures/golden/scenario-digests.json`;
const update = process.env.UPDATE_DIGESTS === '1';
const held = JSON.parse(readFileSync(FILE, 'utf8')) as Record<string, string>;
const scenarios = readdirSync(`${ROOT}scenarios`)
  .filter((f) => f.endsWith('.yaml'))
  .sort();
const seen: Record<string, string> = {};

afterAll(() => {
  if (update) writeFileSync(FILE, `${JSON.stringify(seen, null, 2)}\n`);
});

describe('shipped scenarios: plan --json is byte-identical to its digest', () => {
  it('holds a digest for every shipped scenario, and none for a scenario that is gone', () => {
    if (!update) expect(Object.keys(held).sort()).toEqual(scenarios);
  });

  for (const s of scenarios)
    it(s, () => {
      const r = runCli(['plan', `scenarios/${s}`, '--json']);
      expect(r.status, r.stderr).toBe(0);
      seen[s] = createHash('sha256').update(r.stdout).digest('hex');
      if (!update) expect(seen[s], `${s}: plan --json changed`).toBe(held[s]);
    });
});
