// "Did you mean" for every id a user types (model, GPU, scenario keys and values, offers, circuits) and
// family GPU names whose variants differ in memory.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { findCircuit, findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { loadScenario, resolveHardware } from '../../src/io/load-scenario.js';
import { didYouMean, editDistance, nearest } from '../../src/io/suggest.js';
import { userErrorOf as errorOf } from '../helpers/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'vramplan-dym-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const scenario = (name: string, text: string) => {
  const f = join(dir, name);
  writeFileSync(f, text);
  return f;
};
const BASE = 'name: x\nmodel: llama-2-7b\njob: { kind: fine-tune }\n';

describe('edit distance', () => {
  it('is a metric-like distance: 0 on equal, symmetric, at most the longer length', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), fc.string({ maxLength: 12 }), (a, b) => {
        expect(editDistance(a, a)).toBe(0);
        expect(editDistance(a, b)).toBe(editDistance(b, a));
        expect(editDistance(a, b)).toBeLessThanOrEqual(Math.max(a.length, b.length));
      }),
    );
  });
  it('counts a transposition as one edit', () => {
    expect(editDistance('rtx-4900', 'rtx-4090')).toBe(1);
    expect(nearest('zzzzzz', ['rtx-4090'])).toEqual([]);
    expect(didYouMean('circuts', ['circuits', 'psu'])).toBe("did you mean 'circuits'?");
  });
});

describe('did you mean', () => {
  it('model ids', () => {
    expect(errorOf(() => resolveModel('lama-2-7b')).message).toMatch(
      /^--model: got 'lama-2-7b'; did you mean 'llama-2-7b'/,
    );
  });
  it('GPU ids, on the flag and in a scenario', () => {
    expect(errorOf(() => findGpu('rtx-4900')).message).toMatch(
      /^--gpu: got 'rtx-4900'; did you mean 'rtx-4090'/,
    );
    const f = scenario('gpu.yaml', `${BASE}hardware: { owned: [{ gpu: rtx-3900, count: 1 }] }\n`);
    expect(errorOf(() => resolveHardware(loadScenario(f))).message).toMatch(
      /^hardware\.owned\.0\.gpu: got 'rtx-3900'; did you mean 'rtx-3090'/,
    );
  });
  it('scenario keys and enum values', () => {
    const f = scenario(
      'keys.yaml',
      `${BASE.replace('fine-tune', 'fine-tune, sequence: 9')}powr: {}\nrank: costt\n`,
    );
    const m = errorOf(() => loadScenario(f)).message;
    expect(m).toMatch(/"sequence" \(did you mean 'seq'\?\) → at job/);
    expect(m).toMatch(/"powr" \(did you mean 'power'\?\) → at \(root\)/);
    expect(m).toMatch(/got "costt"; did you mean 'cost'\?\) → at rank/);
  });
  it('offers and circuits', () => {
    const f = scenario(
      'offer.yaml',
      `${BASE}hardware: { rent: { offers: [runpod-rtx-4090-spto] } }\n`,
    );
    expect(errorOf(() => resolveHardware(loadScenario(f))).message).toMatch(
      /^hardware\.rent\.offers\.0: got 'runpod-rtx-4090-spto'; did you mean '/,
    );
    expect(errorOf(() => findCircuit('us-120v-15b')).message).toMatch(
      /^--circuit: got 'us-120v-15b'; did you mean 'us-120v-15a' or 'us-120v-20a'\? expected one of /,
    );
  });
});

describe('ambiguous GPU names', () => {
  it('a family name with variants of different memory is an error listing them', () => {
    const m = errorOf(() => findGpu('a100')).message;
    expect(m).toMatch(/^--gpu: 'a100' is ambiguous; expected one of /);
    for (const id of ['a100-40gb-pcie', 'a100-40gb-sxm', 'a100-80gb-pcie', 'a100-80gb-sxm'])
      expect(m).toContain(id);
    expect(errorOf(() => findGpu('h100')).message).toMatch(/ambiguous.*h100-nvl/);
    expect(errorOf(() => findGpu('v100')).message).toMatch(/ambiguous.*v100-32gb/);
  });
  it('a name whose variants share their memory still resolves (a100-80gb: the SXM part)', () => {
    expect(findGpu('a100-80gb').id).toBe('a100-80gb-sxm');
    expect(findGpu('4090').id).toBe('rtx-4090');
  });
});
