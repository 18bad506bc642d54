// The HF model_type tables against what transformers itself resolves: scripts/check-launch-libs/hf_auto_class.py
// rebuilds every catalog config with AutoConfig.for_model at HF_PINS.transformers and records the class train.py
// (AutoModelForImageTextToText for a config with a vision_config, else AutoModelForCausalLM) and generate.py
// (AutoModelForCausalLM) load it with (test/fixtures/launch-libs/hf-auto-class.json); an engine runs a catalog
// model's type exactly when its script has a class for it, but for the encoders the training writer refuses although
// transformers loads them causally (ENCODER_ONLY: BERT's BertLMHeadModel attends both ways).
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ENCODER_ONLY } from '../../src/core/engines/architectures.js';
import { architecturesOf } from '../../src/core/engines/registry.js';
import { HF_PINS } from '../../src/core/engines/hf/trainer.js';
import { resolveModel } from '../../src/io/load-model.js';

interface Row {
  modelType: string;
  visionConfig: boolean;
  trainPy: string | null;
  generatePy: string | null;
}
const fixture = JSON.parse(
  readFileSync(new URL('../fixtures/launch-libs/hf-auto-class.json', import.meta.url), 'utf8'),
) as { transformers: string; models: Record<string, Row> };
const rows = Object.entries(fixture.models);

describe('HF model_type tables against transformers auto classes', () => {
  it('the fixture was made at the pinned transformers over the whole catalog', () => {
    expect(fixture.transformers).toBe(HF_PINS.transformers);
    const catalog = readdirSync(new URL('../../catalogs/models/', import.meta.url))
      .filter((f) => f.endsWith('.json'))
      .map((f) => f.slice(0, -5));
    expect(Object.keys(fixture.models).sort()).toEqual(catalog.sort());
  });

  it.each([
    ['hf-trainer', 'trainPy'],
    ['hf-fsdp', 'trainPy'],
    ['hf-deepspeed', 'trainPy'],
    ['hf-generate', 'generatePy'],
  ] as const)(
    '%s runs a catalog model_type exactly when its script has a class for it',
    (engine, key) => {
      const table = architecturesOf(engine)!;
      for (const [id, r] of rows)
        expect(
          table.runs.includes(r.modelType),
          `${engine} × ${id} (${r.modelType}): ${r[key]}`,
        ).toBe(r[key] !== null && !(key === 'trainPy' && ENCODER_ONLY.includes(r.modelType)));
    },
  );

  it('the wrappers load through AutoModelForImageTextToText in train.py and through nothing in generate.py', () => {
    const vl = rows.filter(([, r]) => r.generatePy === null && r.trainPy !== null);
    expect(vl.map(([, r]) => r.modelType).sort()).toEqual([
      'glm4v',
      'llava',
      'mistral3',
      'qwen2_5_vl',
      'qwen2_5_vl',
      'qwen2_vl',
      'qwen3_vl',
      'qwen3_vl',
      'qwen3_vl',
      'qwen3_vl',
      'qwen3_vl_moe',
      'qwen3_vl_moe',
    ]);
    for (const [, r] of vl) expect(r.trainPy).toMatch(/ForConditionalGeneration$/);
  });

  it("the readers' vision tower (the unsloth launcher's FastVisionModel test) matches transformers' vision_config", () => {
    for (const [id, r] of rows)
      expect(
        resolveModel(id).groups.some((g) => g.name === 'vision'),
        `${id} (${r.modelType})`,
      ).toBe(r.visionConfig);
  });
});
