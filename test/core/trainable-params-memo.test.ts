// trainableParams (memory/setup.ts) keeps its counts in a memo per architecture and framework profile, keyed by the
// option fields countTrainableParams reads (trainableParamsKey). Options that differ from a question asked before in
// any other field get the memo's answer, so that answer must be the count of their own: every other field of
// EstimateOptions is changed here to each value of its schema (enums, booleans, a few numbers, arrays) and the memo's
// answer compared with a count made without it; each read field changes the key.
import { describe, expect, it } from 'vitest';
import '../../src/core/engines/registry.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import {
  countTrainableParams,
  trainableParams,
  trainableParamsKey,
} from '../../src/core/memory/setup.js';
import { paramCounts } from '../../src/core/model/params.js';
import { resolveModel } from '../../src/io/load-model.js';
import { EstimateOptionsSchema, type EstimateOptions } from '../../src/schema/estimate.js';
import { optionsFromFlags } from '../../src/schema/flags.js';

/** The fields the key holds (besides the total). */
const READ = new Set([
  'method',
  'loraAllLinear',
  'loraTargets',
  'modulesToSave',
  'loraRank',
  'images',
]);

type Def = { type: string; [k: string]: unknown };
const defOf = (s: unknown): Def => (s as { _zod: { def: Def } })._zod.def;

/** Values of a field's schema to try: every enum member, both booleans, a few numbers, one- and many-element arrays. */
function valuesOf(schema: unknown): unknown[] {
  const d = defOf(schema);
  switch (d.type) {
    case 'optional':
    case 'default':
    case 'nullable':
      return [undefined, ...valuesOf(d.innerType)];
    case 'enum':
      return Object.values(d.entries as Record<string, unknown>);
    case 'literal':
      return d.values as unknown[];
    case 'boolean':
      return [false, true];
    case 'number':
      return [0, 0.5, 1, 2, 3, 64];
    case 'array': {
      const items = valuesOf(d.element).filter((x) => x !== undefined);
      return [items.slice(0, 1), items.slice(0, 3), items];
    }
    case 'union':
      return (d.options as unknown[]).flatMap(valuesOf);
    case 'custom': // `framework`: a registered engine's framework (schema/estimate.ts isFramework)
      return Object.keys(FRAMEWORKS);
    default:
      throw new Error(`no values for a ${d.type} field`);
  }
}

const shape = (EstimateOptionsSchema as unknown as { shape: Record<string, unknown> }).shape;
const FIELDS = Object.keys(shape);

const lora = (flags: Record<string, unknown>): EstimateOptions =>
  optionsFromFlags({ method: 'lora', 'lora-rank': 16, batch: 1, seq: 512, ...flags });

describe('trainableParams memo', () => {
  const cases: [string, EstimateOptions][] = [
    ['llama-3.1-8b', lora({ 'lora-targets': 'q,v' })],
    ['llama-3.1-8b', lora({ 'lora-targets': 'all-linear', framework: 'unsloth' })],
    ['qwen3-30b-a3b', lora({ 'lora-targets': 'all-linear' })],
    ['qwen2-vl-7b-instruct', { ...lora({ 'lora-targets': 'all-linear' }), images: 1 }],
    ['llama-3.1-8b', optionsFromFlags({ method: 'full', batch: 1, seq: 512 })],
  ];

  it('covers every field of the options schema', () => {
    for (const k of READ) expect(FIELDS).toContain(k);
    for (const k of FIELDS) expect(valuesOf(shape[k]).length, k).toBeGreaterThan(0);
  });

  it('answers options that differ in a field it does not key by with their own count', () => {
    let checked = 0;
    for (const [model, o] of cases) {
      const arch = resolveModel(model);
      const total = paramCounts(arch).total;
      const fw = FRAMEWORKS[o.framework];
      const own = countTrainableParams(arch, o, fw, total);
      for (const k of FIELDS) {
        if (READ.has(k)) continue;
        for (const v of valuesOf(shape[k])) {
          const changed = { ...o, [k]: v } as EstimateOptions;
          expect(trainableParamsKey(changed, total)).toBe(trainableParamsKey(o, total));
          // The memo holds o's count under the shared key; the changed options read it.
          expect(trainableParams(arch, o, fw, total)).toBe(own);
          expect(trainableParams(arch, changed, fw, total), `${model} ${k}=${String(v)}`).toBe(
            countTrainableParams(arch, changed, fw, total),
          );
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(500);
  });

  it('keys by each field it reads, and by the total', () => {
    const o = cases[0]![1];
    const key = trainableParamsKey(o, 1e9);
    for (const k of READ)
      for (const v of valuesOf(shape[k])) {
        const changed = { ...o, [k]: v } as EstimateOptions;
        // Absent images are none (scopeOf reads o.images ?? 0).
        const read = (x: EstimateOptions) =>
          JSON.stringify(x[k as keyof EstimateOptions] ?? (k === 'images' ? 0 : null));
        const same = read(changed) === read(o);
        if (!same) expect(trainableParamsKey(changed, 1e9), `${k}=${String(v)}`).not.toBe(key);
      }
    expect(trainableParamsKey(o, 2e9)).not.toBe(key);
  });

  it('answers each read field change with its own count', () => {
    for (const [model, o] of cases) {
      const arch = resolveModel(model);
      const total = paramCounts(arch).total;
      const fw = FRAMEWORKS[o.framework];
      for (const k of READ)
        for (const v of valuesOf(shape[k])) {
          const changed = { ...o, [k]: v } as EstimateOptions;
          let direct: number;
          try {
            direct = countTrainableParams(arch, changed, fw, total);
          } catch {
            continue; // a combination the count refuses (no LoRA targets on a LoRA run)
          }
          trainableParams(arch, o, fw, total);
          expect(trainableParams(arch, changed, fw, total), `${model} ${k}=${String(v)}`).toBe(
            direct,
          );
        }
    }
  });
});
