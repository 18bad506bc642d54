/**
 * `launch --from-plan` re-validates a hand-edited plans.json: each plan's options get the
 * checks flags get, errors name the file's own field (`plans[0].options.tp`), power limits stay within the
 * card's range, and a plan that no longer fits when estimated again is refused (exit 2). Nothing is written.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliBuilt, runCli, scratchDir } from '../helpers/run-cli.js';

const scratch = scratchDir('vramplan-from-plan-');
afterAll(scratch.remove);

type PlansFile = {
  plans: {
    options: Record<string, unknown>;
    hardware: Record<string, unknown>;
    choices: Record<string, unknown>;
  }[];
};
let exported = '';
beforeAll(() => {
  expect(cliBuilt()).toBe(true);
  exported = join(scratch.dir, 'plans.json');
  const r = runCli(['plan', 'scenarios/default.yaml', '--export', exported]);
  expect(r.status, r.stderr).toBe(0);
});

let n = 0;
/** The exported file with plan 1 edited by `edit`, then launched. */
function launchEdited(edit: (p: PlansFile['plans'][number]) => void) {
  const doc = JSON.parse(readFileSync(exported, 'utf8')) as PlansFile;
  edit(doc.plans[0]!);
  const file = join(scratch.dir, `edited-${n}.json`);
  const out = join(scratch.dir, `out-${n++}`);
  writeFileSync(file, JSON.stringify(doc));
  return { ...runCli(['launch', '--from-plan', file, '--out', out]), out };
}

describe('launch --from-plan: a tampered plans.json', () => {
  const cases: [string, (p: PlansFile['plans'][number]) => void, RegExp][] = [
    ['TP 3 on 40 heads', (p) => (p.options.tp = 3), /plans\[0\]\.options\.tp: got 3; expected/],
    [
      'a sequence past the positions',
      (p) => (p.options.seq = 1_000_000),
      /plans\[0\]\.options\.seq: got 1000000; expected/,
    ],
    ['pp 99', (p) => (p.options.pp = 99), /plans\[0\]\.options\.(pp|gpus): got (99|1); expected/],
    [
      'gpus 3 with tp 2',
      (p) => Object.assign(p.options, { tp: 2, gpus: 3 }),
      /plans\[0\]\.options\.gpus: got 3; expected a multiple of --tp/,
    ],
    [
      'a power limit of -5 W',
      (p) => Object.assign(p.hardware, { powerLimitFraction: 0.7, powerLimitW: -5 }),
      /plans\[0\]\.hardware\.powerLimitW: got -5; expected an integer from 135 to 450/,
    ],
    [
      'a power limit below the card minimum',
      (p) => Object.assign(p.hardware, { powerLimitFraction: 0.1, powerLimitW: 45 }),
      /plans\[0\]\.hardware\.powerLimitFraction: got 0\.1; expected a number from 0\.3 to 1/,
    ],
    [
      'an unknown optimizer',
      (p) => (p.options.optimizer = 'adam'),
      /plans\[0\]\.options\.optimizer: /,
    ],
    ['an unknown GPU', (p) => (p.hardware.gpuId = 'rtx-9999'), /plans\[0\]\.hardware\.gpuId: /],
  ];
  for (const [name, edit, why] of cases)
    it(name, () => {
      const r = launchEdited(edit);
      expect(r.status, r.stderr).toBe(1);
      expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
      expect(r.stderr).toMatch(why);
      expect(existsSync(r.out)).toBe(false);
    });

  it('a plan that no longer fits is refused with exit 2', () => {
    const r = launchEdited((p) => Object.assign(p.options, { batch: 64, seq: 4096 }));
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toMatch(
      /plans\[0\] does not fit on .* when estimated again .*; nothing written/,
    );
    expect(existsSync(r.out)).toBe(false);
  });

  it('the untouched file still launches', () => {
    const r = launchEdited(() => undefined);
    expect(r.status, r.stderr).toBe(0);
    expect(existsSync(join(r.out, 'README.md'))).toBe(true);
  });
});

describe('launch --power-limit (flag form): the card range', () => {
  for (const [limit, watts] of [
    ['0.8', 360],
    ['300W', 300],
    ['300', 300],
  ] as const)
    it(`${limit} is written as ${watts} W`, () => {
      const out = join(scratch.dir, `pl-ok-${limit}`);
      const r = runCli(
        ['launch', '--model', 'llama-2-7b', '--method', 'qlora', '--gpu', 'rtx-4090'].concat([
          `--power-limit=${limit}`,
          '--out',
          out,
        ]),
      );
      expect(r.status, r.stderr).toBe(0);
      expect(readFileSync(join(out, 'power-limit.sh'), 'utf8')).toContain(`-pl ${watts}`);
    });
  for (const w of ['-5', '0', '40', '451'])
    it(`${w} W on an RTX 4090 is refused`, () => {
      const out = join(scratch.dir, `pl-${w}`);
      const r = runCli([
        'launch',
        '--model',
        'llama-2-7b',
        '--method',
        'qlora',
        '--gpu',
        'rtx-4090',
        `--power-limit=${w}`,
        '--out',
        out,
      ]);
      expect(r.status, r.stderr).toBe(1);
      expect(r.stderr).toMatch(
        /--power-limit: got '-?\d+'; expected watts from 135 to 450 \(135W\) or a fraction/,
      );
      expect(existsSync(out)).toBe(false);
    });
});
