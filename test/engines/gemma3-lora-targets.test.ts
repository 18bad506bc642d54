/**
 * Gemma 3's multimodal checkpoints (model_type 'gemma3', Gemma3ForConditionalGeneration) name their language
 * layers as Llama does (q/k/v/o_proj, gate/up/down_proj: transformers modeling_gemma3.py), so the launchers write
 * explicit target_modules for them; Unsloth, which needs explicit names, launches Gemma-3 LoRA/QLoRA runs.
 */
import { describe, expect, it } from 'vitest';
import { unslothBlocker } from '../../src/core/engines/unsloth/launch.js';
import { buildLaunch } from '../../src/core/launch/index.js';
import { loraTargetModules, namesModules } from '../../src/core/launch/modules.js';
import { resolveModel } from '../../src/io/load-model.js';
import { launchInputOf } from '../helpers/launch.js';

describe('Gemma 3 (multimodal checkpoint) LoRA targets', () => {
  it('has a module-name table: the Llama names', () => {
    const arch = resolveModel('gemma-3-27b-it');
    expect(arch.modelType).toBe('gemma3');
    expect(namesModules(arch)).toBe(true);
    const x = launchInputOf('gemma-3-27b-it', 'rtx-4090', {
      method: 'qlora',
      framework: 'unsloth',
    });
    const m = loraTargetModules(arch, {
      ...x.options,
      loraAllLinear: false,
      loraTargets: ['q', 'v'],
    });
    expect(m.targetModules).toEqual(['q_proj', 'v_proj']);
    expect(m.known).toBe(true);
  });

  it('Unsloth writes its QLoRA run with the seven projections named', () => {
    const x = launchInputOf('gemma-3-27b-it', 'rtx-4090', {
      method: 'qlora',
      framework: 'unsloth',
      'lora-targets': 'all-linear',
      checkpointing: 'full',
    });
    expect(unslothBlocker(x)).toBeNull();
    const out = buildLaunch(x).outputs.find((e) => e.engine === 'Unsloth');
    expect(out?.ok).toBe(true);
    const file = out!.ok ? out!.files.find((f) => f.path === 'unsloth-args.json') : undefined;
    const args = JSON.parse(String(file?.content)) as {
      from_pretrained: { model_name: string; load_in_4bit: boolean };
      get_peft_model: { target_modules: string[] };
    };
    expect(args.from_pretrained.model_name).toBe('google/gemma-3-27b-it');
    expect(args.from_pretrained.load_in_4bit).toBe(true);
    expect(args.get_peft_model.target_modules).toEqual([
      'q_proj',
      'k_proj',
      'v_proj',
      'o_proj',
      'gate_proj',
      'up_proj',
      'down_proj',
    ]);
  });

  it('a text-only model_type with no table still blocks Unsloth; with a tower it takes the finetune_* switches', () => {
    const x = launchInputOf('gemma-3-27b-it', 'rtx-4090', {
      method: 'qlora',
      framework: 'unsloth',
    });
    const groups = x.arch.groups.filter((g) => g.name !== 'vision');
    const mystery = { ...x, arch: { ...x.arch, modelType: 'mystery_lm', groups } };
    expect(unslothBlocker(mystery)).toMatch(/no module-name table for model_type 'mystery_lm'/);
    expect(unslothBlocker({ ...x, arch: { ...x.arch, modelType: 'mystery_lm' } })).toBeNull();
  });
});
