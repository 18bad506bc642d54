// catalogs/checkpoints.json: the published quantized checkpoints a serving plan loads instead of making its weights.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCheckpoints } from '../src/io/load-catalog.js';
import { listModels, resolveModel } from '../src/io/load-model.js';
import { checkpointFor, publishedBase } from '../src/core/launch/checkpoints.js';
import { madeWeightsOf } from '../src/core/plan/made-weights.js';
import { paramCounts } from '../src/core/model/params.js';
import { PUBLISHED_METHODS } from '../src/schema/checkpoints.js';
import { WEIGHT_DTYPES } from '../src/schema/estimate.js';
import { scenarioSchema } from '../src/schema/scenario.js';
import { UserError } from '../src/io/errors.js';

const catalog = loadCheckpoints();
const entries = Object.entries(catalog).flatMap(([base, list]) =>
  list.map((c) => ({ base, ...c })),
);

describe('published-checkpoint catalog', () => {
  it("keys every entry by a catalog model's Hugging Face id or one of its aliases", () => {
    // An alias is a model of the entry's layers served from its own repository (Qwen2.5-Coder-32B-Instruct under
    // qwen2.5-32b), whose quantized copies are its own.
    const ids = new Set(listModels().flatMap((m) => [m.hfId, ...m.aliases]));
    for (const base of Object.keys(catalog)) expect(ids.has(base), base).toBe(true);
  });

  it('holds only weight formats the plan prices, each with a config.json method that stores it', () => {
    for (const c of entries) {
      expect(WEIGHT_DTYPES as readonly string[], `${c.base} ${c.repo}`).toContain(c.weights);
      expect(PUBLISHED_METHODS[c.weights], `${c.base} ${c.weights}`).toContain(c.quantMethod);
      expect(c.source, c.repo).toMatch(/^https:\/\/huggingface\.co\//);
    }
  });

  it("leaves out Qwen's own block-128 '-FP8' repositories (not the per-channel fp8 the plan prices)", () => {
    expect(entries.filter((c) => c.weights === 'fp8' && /^Qwen\/.*-FP8$/.test(c.repo))).toEqual([]);
  });

  it('is what launch loads: a published checkpoint in the format, its base read back by --from', () => {
    expect(checkpointFor('Qwen/Qwen3-Coder-30B-A3B-Instruct', 'x', 'q4_k_m')).toEqual({
      ref: 'unsloth/Qwen3-Coder-30B-A3B-Instruct-GGUF',
      published: true,
      steps: [],
    });
    expect(publishedBase('RedHatAI/gemma-3-27b-it-FP8-dynamic')).toEqual({
      hfId: 'google/gemma-3-27b-it',
      weights: 'fp8',
    });
    // A repository holding several GGUF types reads back as its first entry's.
    expect(publishedBase('bartowski/Meta-Llama-3.1-8B-Instruct-GGUF')?.weights).toBe('q4_k_m');
    // Published AWQ of a MoE and GGUF of a hybrid-attention MoE: loaded, not made with llm-compressor or llama-quantize.
    expect(checkpointFor('mistralai/Mixtral-8x7B-v0.1', 'x', 'int4').ref).toBe(
      'TheBloke/mixtral-8x7b-v0.1-AWQ',
    );
    expect(checkpointFor('Qwen/Qwen3-Next-80B-A3B-Instruct', 'x', 'q4_k_m')).toMatchObject({
      ref: 'unsloth/Qwen3-Next-80B-A3B-Instruct-GGUF',
      published: true,
    });
    // Qwen's own AWQ of a vision-language model: loaded, not made with llm-compressor.
    expect(checkpointFor('Qwen/Qwen2.5-VL-7B-Instruct', 'x', 'int4')).toEqual({
      ref: 'Qwen/Qwen2.5-VL-7B-Instruct-AWQ',
      published: true,
      steps: [],
    });
    // A format no entry holds is still made first.
    expect(checkpointFor('Qwen/Qwen3-Coder-30B-A3B-Instruct', 'x', 'int4').published).toBe(false);
  });

  it('spares a plan the quantize step where a checkpoint is published', () => {
    const arch = resolveModel('qwen3-coder-30b-a3b-instruct');
    const s = scenarioSchema.parse({
      name: 'coder',
      model: 'qwen3-coder-30b-a3b-instruct',
      job: { kind: 'inference', context: 8192 },
      hardware: { owned: [{ gpu: 'rtx-4090', count: 1 }] },
    });
    const params = paramCounts(arch).total;
    expect(madeWeightsOf(arch, s, 'q4_k_m', params)).toBeNull();
    expect(madeWeightsOf(arch, s, 'q4_0', params)).toMatchObject({ quantizer: 'llama-quantize' });
  });
});

describe('published-checkpoint catalog loader', () => {
  const write = (doc: unknown): string => {
    const dir = mkdtempSync(join(tmpdir(), 'vramplan-ckpt-'));
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'checkpoints.json'), JSON.stringify(doc));
    return dir;
  };
  const good = {
    weights: 'int4',
    repo: 'owner/model-AWQ',
    quantMethod: 'awq',
    source: 'https://huggingface.co/owner/model-AWQ',
  };
  const fails = (doc: unknown): string => {
    try {
      loadCheckpoints({ dir: write(doc) });
    } catch (e) {
      expect(e).toBeInstanceOf(UserError);
      return (e as Error).message;
    }
    throw new Error('loaded a malformed catalog');
  };

  it('loads a well-formed entry', () => {
    expect(loadCheckpoints({ dir: write({ 'owner/model': [good] }) })).toEqual({
      'owner/model': [good],
    });
  });

  it('rejects a malformed entry with a one-line error naming the file and field', () => {
    const cases: [unknown, RegExp][] = [
      [
        { 'owner/model': [{ ...good, weights: 'fp16' }] },
        /not a published-checkpoint format.*at owner\/model\.0\.weights/,
      ],
      [
        { 'owner/model': [{ ...good, weights: 'q4_k_m' }] },
        /quantMethod awq does not hold q4_k_m.*at owner\/model\.0\.quantMethod/,
      ],
      [{ 'owner/model': [{ ...good, repo: 'no-owner' }] }, /owner\/name.*at owner\/model\.0\.repo/],
      [{ 'owner/model': [{ ...good, typo: 1 }] }, /typo/],
      [
        { 'owner/model': [good, { ...good, repo: 'owner/other' }] },
        /a second int4 checkpoint of owner\/model/,
      ],
      [{ 'owner/model': [] }, /owner\/model/],
    ];
    for (const [doc, message] of cases) {
      const m = fails(doc);
      expect(m).toMatch(/checkpoints\.json: ✖ /);
      expect(m).toMatch(message);
      expect(m).not.toContain('\n');
    }
  });
});
