// Catalog loading errors: unknown ids name the flag and the choices; broken files name the file and the field.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  findCircuit,
  findGpu,
  loadCircuits,
  loadGpus,
  loadOffers,
} from '../../src/io/load-catalog.js';
import { userErrorOf } from '../helpers/errors.js';

const real = (path: string): Record<string, unknown> =>
  JSON.parse(readFileSync(new URL(`../../catalogs/${path}`, import.meta.url), 'utf8')) as Record<
    string,
    unknown
  >;

let dir: string;
const write = (path: string, data: unknown): string => {
  const file = join(dir, path);
  mkdirSync(join(file, '..'), { recursive: true });
  writeFileSync(file, typeof data === 'string' ? data : JSON.stringify(data));
  return file;
};
const errorOf = userErrorOf;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'vramplan-catalog-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('findGpu', () => {
  it('names the flag, the value and the nearest ids for an unknown GPU', () => {
    const e = errorOf(() => findGpu('rtx-9090'));
    expect(e.message).toMatch(
      /^--gpu: got 'rtx-9090'; did you mean 'rtx-3090', 'rtx-4090' or 'rtx-5090'\? expected a GPU id/,
    );
    expect(e.exitCode).toBe(1);
  });

  it('is case-insensitive and trims', () => {
    expect(findGpu(' RTX-4090 ').id).toBe('rtx-4090');
    expect(findGpu('A100-80GB').id).toBe('a100-80gb-sxm');
  });

  it('does not read outside the catalog for path-like input', () => {
    expect(errorOf(() => findGpu('../offers/runpod')).message).toMatch(
      /^--gpu: got '\.\.\/offers\/runpod'/,
    );
  });

  it('reads a catalog from another dir', () => {
    write('gpus/rtx-4090.json', real('gpus/rtx-4090.json'));
    expect(findGpu('4090', { dir }).id).toBe('rtx-4090');
    expect(errorOf(() => findGpu('h100', { dir })).message).toBe(
      "--gpu: got 'h100'; expected a GPU id from catalogs/gpus: rtx-4090",
    );
  });
});

describe('broken catalog files', () => {
  it('names the file and the field for a wrong type', () => {
    const gpu = real('gpus/rtx-4090.json');
    const file = write('gpus/rtx-4090.json', {
      ...gpu,
      tflops: { ...(gpu.tflops as object), bf16: 'fast' },
    });
    const e = errorOf(() => loadGpus({ dir }));
    expect(e.message).toContain(file);
    expect(e.message).toMatch(
      /✖ Invalid input: expected number, received string → at tflops\.bf16/,
    );
    expect(e.message).not.toContain('\n');
  });

  it('rejects a misspelt key (strict schemas)', () => {
    const { memoryMiB, ...gpu } = real('gpus/rtx-4090.json');
    const file = write('gpus/rtx-4090.json', { ...gpu, memoryMib: memoryMiB });
    const e = errorOf(() => findGpu('rtx-4090', { dir }));
    expect(e.message).toContain(file);
    expect(e.message).toContain('memoryMib');
    expect(e.message).toMatch(/→ at memoryMiB/);
  });

  it('names a broken file found while scanning for an alias', () => {
    write('gpus/rtx-4090.json', real('gpus/rtx-4090.json'));
    const file = write('gpus/t4.json', '{ "id": "t4", ');
    const e = errorOf(() => findGpu('4090', { dir }));
    expect(e.message).toMatch(
      new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: invalid JSON`),
    );
  });

  it('requires id = file name', () => {
    const file = write('gpus/my-4090.json', real('gpus/rtx-4090.json'));
    expect(errorOf(() => loadGpus({ dir })).message).toBe(
      `${file}: ✖ id 'rtx-4090' must equal the file name 'my-4090' → at id`,
    );
  });

  it('checks offers: provider = file name, dates, and the array path', () => {
    const offer = (real('offers/runpod.json') as unknown as Record<string, unknown>[])[0];
    let file = write('offers/runpod.json', [offer, { ...offer, id: 'x', asOf: 'March 2026' }]);
    expect(errorOf(() => loadOffers({ dir })).message).toBe(
      `${file}: ✖ expected YYYY-MM or YYYY-MM-DD → at 1.asOf`,
    );
    rmSync(file);
    file = write('offers/lambda.json', [offer]);
    expect(errorOf(() => loadOffers({ dir })).message).toBe(
      `${file}: ✖ provider 'runpod' must equal the file name 'lambda' → at 0.provider`,
    );
  });

  it('checks circuits: continuousWatts must equal V × A × fraction', () => {
    const file = write('circuits/us-120v-15a.json', {
      ...real('circuits/us-120v-15a.json'),
      continuousWatts: 1800,
    });
    expect(errorOf(() => loadCircuits({ dir })).message).toBe(
      `${file}: ✖ continuousWatts must equal volts × amps × continuousFraction → at continuousWatts`,
    );
  });

  it('names --circuit for an unknown preset', () => {
    expect(errorOf(() => findCircuit('jp-100v-15a')).message).toMatch(
      /^--circuit: got 'jp-100v-15a'; did you mean 'us-120v-15a'\? expected one of eu-230v-16a, uk-230v-13a, us-120v-15a, /,
    );
  });

  it('treats a missing folder as an empty catalog', () => {
    expect(loadGpus({ dir })).toEqual([]);
    expect(loadOffers({ dir })).toEqual([]);
  });
});
