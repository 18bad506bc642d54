// Unsloth on the VLM wrappers (qwen2_vl, glm4v, llava, mistral3, ...): the launcher writes what Unsloth's vision
// notebooks write (unslothai/notebooks@03b0cdad nb/Qwen2_VL_(7B)-Vision.ipynb: FastVisionModel, the four
// finetune_* switches, no target_modules), and the estimate counts what unsloth_zoo 2026.10.9 get_peft_regex
// then selects on the real module names: scripts/check-launch-libs/unsloth_vlm_regex.py built each catalog wrapper
// on the meta device at transformers 5.5.0 and summed r x (in + out) over the regex's nn.Linear matches
// (test/fixtures/launch-libs/unsloth-vlm-regex.json).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildLaunch } from '../../src/core/launch/index.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { trainableParams } from '../../src/core/memory/setup.js';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { UNSLOTH_PINS } from '../../src/core/engines/unsloth/launch.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { launchInputOf } from '../helpers/launch.js';

interface Row {
  modelType: string;
  text: number;
  withVision: number;
}
const fixture = JSON.parse(
  readFileSync(new URL('../fixtures/launch-libs/unsloth-vlm-regex.json', import.meta.url), 'utf8'),
) as { transformers: string; unsloth_zoo: string; rank: number; models: Record<string, Row> };

function trainable(model: string, framework: string, images = 0): number {
  const flags = { method: 'lora', framework, 'lora-targets': 'all-linear', 'lora-rank': 16 };
  const o = withEngineDefaults(optionsFromFlags(flags), flags);
  if (images > 0) o.images = images;
  return trainableParams(resolveModel(model), o, FRAMEWORKS[o.framework], 0);
}

const r16 = (i: number, o: number): number => 16 * (i + o);

describe("the estimate's Unsloth LoRA count against get_peft_regex on the real module names", () => {
  it('the fixture was made at the pinned transformers and unsloth_zoo, rank 16, over four wrappers', () => {
    expect(fixture.transformers).toBe(UNSLOTH_PINS.transformers);
    expect(fixture.unsloth_zoo).toBe(UNSLOTH_PINS.unsloth_zoo);
    expect(fixture.rank).toBe(16);
    expect(
      Object.values(fixture.models)
        .map((m) => m.modelType)
        .sort(),
    ).toEqual(['glm4v', 'llava', 'mistral3', 'qwen2_vl']);
  });

  it.each(Object.entries(fixture.models))('%s: text-only and with images', (id, row) => {
    expect(trainable(id, 'unsloth')).toBe(row.text);
    expect(trainable(id, 'unsloth', 1)).toBe(row.withVision);
  });

  it('Qwen2-VL-7B: 28 language layers, and the 32 tower blocks with one fused qkv each', () => {
    const text =
      28 * (r16(3584, 3584) + 2 * r16(3584, 512) + r16(3584, 3584) + 3 * r16(3584, 18944));
    // qkv 1280 -> 3840 is one nn.Linear (one A/B pair), proj 1280 -> 1280, fc1 / fc2 1280 <-> 5120.
    const tower = 32 * (r16(1280, 3840) + r16(1280, 1280) + 2 * r16(1280, 5120));
    expect(trainable('qwen2-vl-7b-instruct', 'unsloth')).toBe(text);
    expect(trainable('qwen2-vl-7b-instruct', 'unsloth', 1)).toBe(text + tower);
    // PEFT 'all-linear' (HF) also adapts the two PatchMerger linears (mlp.0 5120 -> 5120, mlp.2 5120 -> 3584).
    expect(trainable('qwen2-vl-7b-instruct', 'hf', 0)).toBe(
      text + tower + r16(5120, 5120) + r16(5120, 3584),
    );
  });
});

function unslothLaunch(model: string, flags: Record<string, unknown>, images = 0) {
  const x = launchInputOf(model, 'h100-sxm', { framework: 'unsloth', gpus: '1', ...flags });
  if (images > 0) x.options.images = images;
  const out = buildLaunch(x).outputs.find((e) => e.engine === 'Unsloth');
  if (!out) throw new Error('no Unsloth output');
  return out;
}

describe('Unsloth launch of Qwen2-VL-7B', () => {
  it('LoRA: FastVisionModel with the notebook get_peft_model flags and no target_modules', () => {
    const out = unslothLaunch('qwen2-vl-7b-instruct', {
      method: 'lora',
      'lora-targets': 'all-linear',
    });
    if (!out.ok) throw new Error(out.reason);
    const py = out.files.find((f) => f.path === 'train_unsloth.py')!.content;
    expect(py).toContain('model, tokenizer = FastVisionModel.from_pretrained(**load)');
    expect(py).toContain('model = FastVisionModel.get_peft_model(model, **args["get_peft_model"])');
    const args = JSON.parse(out.files.find((f) => f.path === 'unsloth-args.json')!.content) as {
      from_pretrained: Record<string, unknown>;
      get_peft_model: Record<string, unknown>;
    };
    expect(args.from_pretrained.model_name).toBe('Qwen/Qwen2-VL-7B-Instruct');
    expect(args.get_peft_model).toMatchObject({
      finetune_vision_layers: false,
      finetune_language_layers: true,
      finetune_attention_modules: true,
      finetune_mlp_modules: true,
      lora_dropout: 0,
      bias: 'none',
      random_state: 3407,
    });
    expect(args.get_peft_model).not.toHaveProperty('target_modules');
    const img = unslothLaunch('qwen2-vl-7b-instruct', { method: 'lora' }, 1);
    if (!img.ok) throw new Error(img.reason);
    const imgArgs = JSON.parse(img.files.find((f) => f.path === 'unsloth-args.json')!.content) as {
      get_peft_model: Record<string, unknown>;
    };
    expect(imgArgs.get_peft_model.finetune_vision_layers).toBe(true);
  });

  it('QLoRA loads in 4 bit and full fine-tuning writes no get_peft_model', () => {
    const q = unslothLaunch('qwen2-vl-7b-instruct', { method: 'qlora' });
    if (!q.ok) throw new Error(q.reason);
    const qa = JSON.parse(q.files.find((f) => f.path === 'unsloth-args.json')!.content) as {
      from_pretrained: Record<string, unknown>;
    };
    expect(qa.from_pretrained.load_in_4bit).toBe(true);
    const full = unslothLaunch('glm-4.1v-9b-thinking', { method: 'full' });
    if (!full.ok) throw new Error(full.reason);
    const fa = JSON.parse(full.files.find((f) => f.path === 'unsloth-args.json')!.content) as {
      from_pretrained: Record<string, unknown>;
      get_peft_model: unknown;
    };
    expect(fa.from_pretrained.full_finetuning).toBe(true);
    expect(fa.get_peft_model).toBeNull();
  });

  it('refuses an embed_tokens / lm_head target the switches cannot express', () => {
    const out = unslothLaunch('qwen2-vl-7b-instruct', {
      method: 'lora',
      'lora-targets': 'all-linear,lm_head',
    });
    expect(out.ok).toBe(false);
    if (!out.ok) expect(out.reason).toMatch(/finetune_\* layer switches .* no embed_tokens/);
  });

  it('the HF launchers still write PEFT all-linear', () => {
    const x = launchInputOf('qwen2-vl-7b-instruct', 'h100-sxm', {
      method: 'lora',
      framework: 'hf-trainer',
      'lora-targets': 'all-linear',
    });
    const out = buildLaunch(x).outputs.find(
      (e) => e.ok && e.files.some((f) => f.path === 'hf-args.json'),
    );
    const args = out?.ok ? out.files.find((f) => f.path === 'hf-args.json')!.content : '';
    expect(JSON.parse(args).lora_config.target_modules).toBe('all-linear');
  });
});
