// The adapter's contract: validation, translation details, determinism, verification, cross-check.
import { afterAll, describe, expect, it } from 'vitest';
import {
  closeJslpWorkers,
  MipModelError,
  parseMipModel,
  solveMip,
  type MipModel,
} from '../../src/solve/index.js';
import { toLpText } from '../../src/solve/highs.js';
import { toJslpModel } from '../../src/solve/lp.js';
import { checkSolution, withSolution } from '../../src/solve/model.js';
import { cover, loadFixtures } from './helpers.js';

afterAll(closeJslpWorkers);

const fixture = (name: string) => loadFixtures().find((f) => f.file === name)!.model;

describe('model validation', () => {
  const base: MipModel = {
    sense: 'max',
    objective: { x: 1 },
    constraints: [{ name: 'c', terms: { x: 1 }, op: '<=', rhs: 3 }],
    integers: ['x'],
  };

  it('accepts a well-formed model', () => {
    expect(parseMipModel(base)).toEqual(base);
  });

  it.each([
    ['a misspelt key', { ...base, maximize: true }, /Unrecognized key/],
    [
      'a bad operator',
      { ...base, constraints: [{ name: 'c', terms: { x: 1 }, op: '<', rhs: 3 }] },
      /op/,
    ],
    [
      'a string rhs',
      { ...base, constraints: [{ name: 'c', terms: { x: 1 }, op: '<=', rhs: '3' }] },
      /rhs/,
    ],
    ['an infinite coefficient', { ...base, objective: { x: Infinity } }, /objective/],
    ['an unknown integer', { ...base, integers: ['y'] }, /unknown variable 'y'/],
    ['an unknown bound', { ...base, bounds: { z: { hi: 1 } } }, /unknown variable 'z'/],
    ['lo above hi', { ...base, bounds: { x: { lo: 2, hi: 1 } } }, /lo 2 > hi 1/],
    [
      'duplicate row names',
      { ...base, constraints: [base.constraints[0], base.constraints[0]] },
      /duplicate/,
    ],
    ['no variables', { ...base, objective: {}, constraints: [], integers: [] }, /no variables/],
  ])('rejects %s', async (_what, model, message) => {
    expect(() => parseMipModel(model)).toThrow(message);
    await expect(solveMip(model as MipModel)).rejects.toBeInstanceOf(MipModelError);
  });
});

describe('translation', () => {
  it('writes HiGHS LP text with = rows, one bound per line, General and Binary sections, no ranged rows', () => {
    const { text } = toLpText({
      sense: 'min',
      objective: { a: 2, b: -1.5 },
      constraints: [
        { name: 'eq', terms: { a: 1, b: 1, c: 1 }, op: '=', rhs: 8 },
        { name: 'ge', terms: { a: 1e-7, c: -2 }, op: '>=', rhs: -3 },
      ],
      integers: ['a'],
      binaries: ['c'],
      bounds: { a: { hi: 5 }, b: { lo: -2, hi: 4 } },
    });
    expect(text).toBe(
      [
        'Minimize',
        ' obj: 2 x0 - 1.5 x1 + 0 x2',
        'Subject To',
        ' r0: 1 x0 + 1 x1 + 1 x2 = 8',
        ' r1: 1e-7 x0 - 2 x2 >= -3',
        'Bounds',
        ' x0 <= 5',
        ' x1 >= -2',
        ' x1 <= 4',
        'General',
        ' x0',
        'Binary',
        ' x2',
        'End',
        '',
      ].join('\n'),
    );
    // ecosystem.md §4: `lo <= expr <= hi` was silently mis-read by HiGHS
    expect(text).not.toMatch(/<=.*<=|>=.*>=/);
  });

  it('builds a javascript-lp-solver JSON model with internal names and bound rows', () => {
    const { model, names } = toJslpModel(fixture('gpu-count-equality.json'), 500);
    expect(model).toEqual({
      optimize: 'obj',
      opType: 'min',
      constraints: { r0: { equal: 8 }, r1: { min: 400 }, u_v2: { max: 2 } },
      variables: {
        v0: { obj: 1800, r0: 1, r1: 24 },
        v1: { obj: 4800, r0: 1, r1: 48 },
        v2: { obj: 25000, r0: 1, r1: 80, u_v2: 1 },
      },
      ints: { v0: 1, v1: 1, v2: 1 },
      options: { timeout: 500 },
    });
    expect([...names]).toEqual([
      ['v0', 'g24'],
      ['v1', 'g48'],
      ['v2', 'g80'],
    ]);
  });
});

describe('verification', () => {
  const model = fixture('gpu-count-equality.json');

  it('rejects a fractional integer or a violated row as error, so auto falls back', () => {
    expect(withSolution(model, 'optimal', { g48: 7.5, g80: 0.5 }, 'jslp', 1).status).toBe('error');
    const r = withSolution(model, 'optimal', { g48: 8 }, 'jslp', 1);
    expect(r.status).toBe('error');
    expect(r.message).toMatch(/row vram-gb: 384 >= 400 violated/);
  });

  it('canonicalises: every variable, sorted, integers rounded, objective recomputed', () => {
    expect(checkSolution(model, { g80: 1.0000000001, g48: 6.9999999999 })).toEqual({
      values: { g24: 0, g48: 7, g80: 1 },
      objective: 58600,
      problems: [],
    });
  });
});

describe('determinism', () => {
  it.each(['jslp', 'highs'] as const)(
    '%s returns identical JSON for a reordered model',
    async (backend) => {
      const m = fixture('gpu-purchase.json');
      const reordered: MipModel = {
        ...m,
        objective: Object.fromEntries(Object.entries(m.objective).reverse()),
        integers: [...m.integers].reverse(),
      };
      const strip = ({ elapsedMs: _e, ...rest }: { elapsedMs: number }) => JSON.stringify(rest);
      const a = await solveMip(m, { backend });
      const b = await solveMip(reordered, { backend });
      const c = await solveMip(m, { backend });
      expect(strip(b)).toBe(strip(a));
      expect(strip(c)).toBe(strip(a));
    },
  );
});

// ecosystem.md §4 recommendation 3: both backends must agree on small seeded covers.
describe('cross-check jslp vs highs on seeded covers', () => {
  it.each([1, 2, 3, 4, 5, 6, 7, 8])('seed %i', async (seed) => {
    const m = cover(seed);
    const [a, b] = [
      await solveMip(m, { backend: 'jslp' }),
      await solveMip(m, { backend: 'highs' }),
    ];
    expect(a.status).toBe('optimal');
    expect(b.status).toBe('optimal');
    expect(a.objective).toBe(b.objective);
  });
});
