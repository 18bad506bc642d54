/**
 * LoRA on multimodal checkpoints, counted as each engine builds it:
 * - PEFT 0.21.2 'all-linear' adapts every nn.Linear but lm_head (tuners_utils.py _maybe_include_all_linear_layers),
 *   the vision tower's blocks and the projector / merger linears included;
 * - the tower's module names decide what named targets reach (Qwen2-VL's qkv / proj / fc1 / fc2 and Mllama's
 *   fc1 / fc2 match no contract target);
 * - Unsloth 2026.10.9 leaves the tower out unless images are trained (the launcher writes finetune_vision_layers
 *   to FastVisionModel.get_peft_model, true only with images) and get_peft_regex drops one-off projector leaves.
 * LoRA parameters per linear: r x (in + out), r = 16.
 */
import { describe, expect, it } from 'vitest';
import { buildLaunch } from '../../src/core/launch/index.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { trainableParams } from '../../src/core/memory/setup.js';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { launchInputOf } from '../helpers/launch.js';
import { cliBuilt, runCli } from '../helpers/run-cli.js';

const r16 = (i: number, o: number): number => 16 * (i + o);

function trainable(model: string, framework: string, targets: string, images = 0): number {
  const flags = { method: 'lora', framework, 'lora-targets': targets };
  const o = withEngineDefaults(optionsFromFlags(flags), flags);
  if (images > 0) o.images = images;
  return trainableParams(resolveModel(model), o, FRAMEWORKS[o.framework], 0);
}

// Gemma 3 27B language model: 62 layers of q 5376->4096, k/v 5376->2048, o 4096->5376, gate/up/down 5376<->21504.
const GEMMA27_TEXT = 62 * (2 * r16(5376, 4096) + 2 * r16(5376, 2048) + 3 * r16(5376, 21504));
// Its SigLIP tower: 27 blocks of q/k/v/out_proj 1152->1152 and fc1/fc2 1152<->4304; no nn.Linear in the
// projector (Gemma3MultiModalProjector.mm_input_projection_weight is a Parameter).
const GEMMA27_TOWER = 27 * (4 * r16(1152, 1152) + 2 * r16(1152, 4304));

describe('PEFT all-linear on multimodal checkpoints', () => {
  it('Gemma 3 27B: language model and SigLIP tower, no projector linear', () => {
    expect(GEMMA27_TEXT).toBe(113_516_544);
    expect(trainable('gemma-3-27b-it', 'hf', 'all-linear')).toBe(GEMMA27_TEXT + GEMMA27_TOWER);
  });

  it('Mistral-Small-3.1: the patch merger and both projector linears are adapted too', () => {
    // merging_layer 4096->1024, linear_1 1024->5120, linear_2 5120->5120.
    const outer = r16(4096, 1024) + r16(1024, 5120) + r16(5120, 5120);
    expect(outer).toBe(344_064);
    const text = 40 * (2 * r16(5120, 4096) + 2 * r16(5120, 1024) + 3 * r16(5120, 32768));
    const tower = 24 * (4 * r16(1024, 1024) + 3 * r16(1024, 4096));
    expect(trainable('mistral-small-3.1-24b-instruct-2503', 'hf', 'all-linear')).toBe(
      text + tower + outer,
    );
  });

  it('Qwen2-VL, Llama 3.2 Vision and Llama 4 Scout: merger, projector and unfold / adapter linears', () => {
    const q2 = resolveModel('qwen2-vl-7b-instruct');
    expect(q2.outerLinears?.map((l) => [l.inFeatures, l.outFeatures])).toEqual([
      [5120, 5120],
      [5120, 3584],
    ]);
    const ml = resolveModel('llama-3.2-11b-vision');
    expect(ml.outerLinears?.map((l) => [l.inFeatures, l.outFeatures])).toEqual([[7680, 4096]]);
    const l4 = resolveModel('llama-4-scout-17b-16e');
    // patch_embedding.linear 3*14*14 -> 1408, multi_modal_projector 4096 -> 5120, vision_adapter.mlp fc1/fc2.
    expect(l4.outerLinears?.map((l) => [l.inFeatures, l.outFeatures, l.blockLeaf])).toEqual([
      [588, 1408, false],
      [4096, 5120, false],
      [5632, 4096, true],
      [4096, 4096, true],
    ]);
  });
});

describe("the tower's module names", () => {
  it('Qwen2-VL: q,v reach no tower linear (VisionAttention qkv / proj, VisionMlp fc1 / fc2)', () => {
    const g = resolveModel('qwen2-vl-7b-instruct').groups.find((x) => x.name === 'vision')!;
    expect(new Set(g.linears.map((l) => l.role))).toEqual(new Set(['other']));
    // 28 layers of q 3584->3584 and v 3584->512, nothing more.
    expect(trainable('qwen2-vl-7b-instruct', 'hf', 'q,v')).toBe(
      28 * (r16(3584, 3584) + r16(3584, 512)),
    );
  });

  it('Mllama: the tower keeps q/k/v/o_proj, its fc1 / fc2 match no target', () => {
    const g = resolveModel('llama-3.2-11b-vision').groups.find((x) => x.name === 'vision')!;
    expect(g.linears.map((l) => l.role)).toEqual(['q', 'k', 'v', 'o', 'other', 'other']);
  });
});

describe('Unsloth on multimodal checkpoints', () => {
  it('text-only: the language model alone (finetune_vision_layers=False)', () => {
    expect(trainable('gemma-3-27b-it', 'unsloth', 'all-linear')).toBe(GEMMA27_TEXT);
    // q,v: 62 layers of q 5376->4096 and v 5376->2048; the SigLIP q/v_proj are left out.
    expect(trainable('gemma-3-27b-it', 'unsloth', 'q,v')).toBe(
      62 * (r16(5376, 4096) + r16(5376, 2048)),
    );
  });

  it('with images: the tower blocks, no one-off projector leaf, Llama 4 adapter MLP kept', () => {
    expect(trainable('gemma-3-27b-it', 'unsloth', 'all-linear', 1)).toBe(
      GEMMA27_TEXT + GEMMA27_TOWER,
    );
    const peft = trainable('llama-4-scout-17b-16e', 'hf', 'all-linear', 1);
    const unsloth = trainable('llama-4-scout-17b-16e', 'unsloth', 'all-linear', 1);
    // PEFT also adapts the unfold linear and multi_modal_projector.linear_1.
    expect(peft - unsloth).toBe(r16(588, 1408) + r16(4096, 5120));
  });

  it('the launch trains the tower only with images, through finetune_vision_layers', () => {
    const peftOf = (images: number): Record<string, unknown> => {
      const x = launchInputOf('gemma-3-4b-it', 'h100-sxm-80gb', {
        method: 'lora',
        framework: 'unsloth',
        'lora-targets': 'all-linear',
      });
      if (images > 0) x.options.images = images;
      const out = buildLaunch(x).outputs.find((e) => e.engine === 'Unsloth');
      if (!out?.ok) throw new Error('no Unsloth launch');
      const f = out.files.find((p) => p.path === 'unsloth-args.json');
      return (JSON.parse(String(f?.content)) as { get_peft_model: Record<string, unknown> })
        .get_peft_model;
    };
    // FastVisionModel.get_peft_model defaults it to True (unsloth 2026.10.9 models/vision.py): written false.
    expect(peftOf(0).finetune_vision_layers).toBe(false);
    expect(Array.isArray(peftOf(0).target_modules)).toBe(true);
    expect(peftOf(1).finetune_vision_layers).toBe(true);
    expect(peftOf(1).target_modules).toBe('all-linear');
  });
});

describe('what each engine loads of a multimodal checkpoint', () => {
  it('LitGPT converts the text weights only: no tower, no tower adapters', () => {
    expect(trainable('gemma-3-27b-it', 'litgpt', 'all-linear')).toBe(GEMMA27_TEXT);
    const flags = { method: 'lora', framework: 'litgpt' };
    const x = launchInputOf('gemma-3-4b-it', 'h100-sxm-80gb', flags);
    const hf = launchInputOf('gemma-3-4b-it', 'h100-sxm-80gb', { ...flags, framework: 'hf' });
    // SigLIP's blocks (27 x (4 x 1152^2 + 2 x 1152 x 4304) weights) and more are gone from the total.
    const blocks = 27 * (4 * 1152 * 1152 + 2 * 1152 * 4304);
    const drop = hf.estimate.params.total - (x.estimate.params.total - 262144 * 2560);
    expect(drop).toBeGreaterThan(blocks);
  });

  it('the HF train.py loads a config with a vision_config through AutoModelForImageTextToText', () => {
    const x = launchInputOf('llama-3.2-11b-vision', 'h100-sxm-80gb', {
      method: 'lora',
      framework: 'hf-trainer',
    });
    const out = buildLaunch(x).outputs.find(
      (e) => e.ok && e.files.some((f) => f.path === 'train.py'),
    );
    const py = out?.ok ? String(out.files.find((f) => f.path === 'train.py')?.content) : '';
    expect(py).toContain(
      'auto = AutoModelForImageTextToText if hasattr(config, "vision_config") else AutoModelForCausalLM',
    );
  });
});

describe.skipIf(!cliBuilt())('text-only fine-tune of a multimodal checkpoint', () => {
  it('says the tower is loaded and counted', () => {
    const args = ['estimate', '--model', 'gemma-3-4b-it', '--method', 'lora', '--json'];
    const r = runCli(args);
    const out = JSON.parse(r.stdout) as { warnings?: string[] };
    expect(out.warnings?.some((w) => /27-block vision tower .* is loaded/.test(w))).toBe(true);
    const withImages = JSON.parse(runCli([...args, '--images', '1']).stdout) as {
      warnings?: string[];
    };
    expect(withImages.warnings?.some((w) => /text-only fine-tune/.test(w))).toBe(false);
    const lit = runCli([...args, '--framework', 'litgpt']);
    expect(lit.stdout).toMatch(/loads only the language model/);
    expect(runCli([...args, '--framework', 'litgpt', '--images', '1']).status).not.toBe(0);
  });
});
