/**
 * Random bytes, random JSON and mutated real configs thrown at archFromHfConfig and resolveModel: each
 * either yields an Arch whose estimate is finite and non-negative, or throws ConfigError / UserError —
 * never a TypeError, RangeError or a hang.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, archFromHfConfig } from '../src/core/model/index.js';
import { estimateMemory } from '../src/core/memory/index.js';
import { UserError } from '../src/io/errors.js';
import { listModels, resolveModel } from '../src/io/load-model.js';
import { defaultOptions, METHODS } from '../src/schema/estimate.js';
import type { Arch } from '../src/core/model/index.js';
import { hfConfigArb, numbersIn } from './helpers/arbitraries.js';

const tmp = mkdtempSync(join(tmpdir(), 'vramplan-fuzz-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const realConfigs = listModels().map((m) => m.config as Record<string, unknown>);
// A hang detector, not a speed check: 100× the idle time, so a loaded machine passes and a loop does not.
const TIME_LIMIT_MS = 20_000;

function checkArch(arch: Arch): void {
  for (const method of METHODS) {
    const m = estimateMemory(arch, defaultOptions(method));
    for (const [path, n] of numbersIn(m)) {
      expect(Number.isFinite(n), path).toBe(true);
      expect(n, path).toBeGreaterThanOrEqual(0);
    }
  }
}

/** Runs `f`; an expected error kind passes, anything else (or a slow run) fails. */
function survives(f: () => Arch, expected: (e: unknown) => boolean): void {
  const t0 = performance.now();
  let arch: Arch | null = null;
  try {
    arch = f();
  } catch (e) {
    if (!expected(e)) throw e;
  }
  if (arch) checkArch(arch);
  expect(performance.now() - t0).toBeLessThan(TIME_LIMIT_MS);
}

const isConfigError = (e: unknown) => e instanceof ConfigError;
const isUserError = (e: unknown) => e instanceof UserError;

/** A real config with one key replaced by a hostile value, or removed. */
const mutatedConfig = fc
  .record({
    base: fc.constantFrom(...realConfigs),
    pick: fc.nat(),
    value: fc.oneof(
      fc.jsonValue(),
      fc.constantFrom(
        0,
        -1,
        1e308,
        2 ** 31,
        2 ** 53,
        1.5,
        '',
        'constructor',
        '__proto__',
        null,
        [],
        {},
        true,
      ),
      fc.integer({ min: -10, max: 10_000_000_000 }),
    ),
    remove: fc.boolean(),
  })
  .map(({ base, pick, value, remove }) => {
    const keys = Object.keys(base);
    const key = keys[pick % keys.length]!;
    const copy: Record<string, unknown> = { ...base };
    if (remove) delete copy[key];
    else copy[key] = value;
    return copy;
  });

/** A generated valid config with one numeric field scaled or negated. */
const scaledConfig = fc
  .record({ c: hfConfigArb(), pick: fc.nat(), f: fc.constantFrom(-1, 0, 0.5, 1e3, 1e6, 1e9) })
  .map(({ c, pick, f }) => {
    const keys = Object.keys(c).filter((k) => typeof c[k] === 'number');
    const key = keys[pick % keys.length]!;
    return { ...c, [key]: (c[key] as number) * f };
  });

describe('archFromHfConfig on hostile JSON', () => {
  it('random JSON values', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) =>
        survives(() => archFromHfConfig(v, { id: 'x', hfId: null }), isConfigError),
      ),
      { numRuns: 300 },
    );
  });

  it('random objects with a known model_type', () => {
    const types = [
      'llama',
      'mixtral',
      'falcon',
      'gpt_neox',
      'deepseek_v3',
      'mllama',
      't5',
      'bert',
      'qwen2_moe',
      'toString',
      '__proto__',
    ];
    fc.assert(
      fc.property(
        fc.constantFrom(...types),
        fc.dictionary(fc.string(), fc.jsonValue()),
        (t, rest) =>
          survives(
            () => archFromHfConfig({ ...rest, model_type: t }, { id: 'x', hfId: null }),
            isConfigError,
          ),
      ),
      { numRuns: 300 },
    );
  });

  it('real catalog configs with one field mutated or removed', () => {
    fc.assert(
      fc.property(mutatedConfig, (c) =>
        survives(() => archFromHfConfig(c, { id: 'x', hfId: null }), isConfigError),
      ),
      { numRuns: 400 },
    );
  });

  it('generated configs with one size scaled to absurd, zero or negative', () => {
    fc.assert(
      fc.property(scaledConfig, (c) =>
        survives(() => archFromHfConfig(c, { id: 'x', hfId: null }), isConfigError),
      ),
      { numRuns: 300 },
    );
  });
});

describe('resolveModel on hostile files', () => {
  it('random bytes as config.json', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 512 }), (bytes) => {
        const path = join(tmp, 'bytes.json');
        writeFileSync(path, bytes);
        survives(() => resolveModel(path), isUserError);
      }),
      { numRuns: 200 },
    );
  });

  it('random and mutated JSON as config.json', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.json(),
          mutatedConfig.map((c) => JSON.stringify(c)),
        ),
        (text) => {
          const path = join(tmp, 'config.json');
          writeFileSync(path, text);
          survives(() => resolveModel(path), isUserError);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('truncated real configs', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...realConfigs),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (c, f) => {
          const text = JSON.stringify(c);
          const path = join(tmp, 'cut.json');
          writeFileSync(path, text.slice(0, Math.floor(text.length * f)));
          survives(() => resolveModel(path), isUserError);
        },
      ),
      { numRuns: 100 },
    );
  });
});
