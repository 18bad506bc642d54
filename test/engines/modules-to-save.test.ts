/**
 * `--modules-to-save embed,lm_head`: full trained copies of the embedding and head beside LoRA (PEFT
 * modules_to_save), with their gradients and optimizer states, on the engines that train them; the axolotl,
 * TRL and LLaMA-Factory readers map their keys to it; the launchers write it back.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { buildEstimate } from '../../src/core/estimate.js';
import { mergeFlags } from '../../src/core/from/index.js';
import { buildLaunch } from '../../src/core/launch/index.js';
import { readFromConfig } from '../../src/io/from/read.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { FlagError, optionsFromFlags, type RawFlags } from '../../src/schema/flags.js';
import { engineRejects } from '../../src/core/engines/engines.js';
import { ENGINES } from '../../src/schema/engine.js';
import { ENGINE_PROFILES } from '../../src/core/engines/engines.js';
import { launchInputOf } from '../helpers/launch.js';

const tmp = mkdtempSync(join(tmpdir(), 'vramplan-mts-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const arch = resolveModel('llama-3.1-8b');
const h100 = findGpu('h100-sxm');
const est = (flags: RawFlags) =>
  buildEstimate(arch, withEngineDefaults(optionsFromFlags(flags), flags), h100);

describe('--modules-to-save', () => {
  it('adds a trained copy of each module, its gradient and its AdamW states (hf: fp32 adapters)', () => {
    const lora = est({ method: 'lora' });
    const both = est({ method: 'lora', 'modules-to-save': 'lm_head,embed' });
    // Llama-3.1-8B: untied 128,256 x 4,096 embedding and head = 2 x 525,336,576 parameters.
    const copies = 2 * 128_256 * 4_096;
    expect(both.params.trainable - lora.params.trainable).toBe(copies);
    const a = lora.perGpu.breakdown;
    const b = both.perGpu.breakdown;
    // PEFT adapters in fp32 (autocast_adapter_dtype): 4 B a copy parameter, 4 B of gradient, AdamW m and v 8 B.
    expect(b.adapters - a.adapters).toBeCloseTo(4 * copies, -2);
    expect(b.gradients - a.gradients).toBeCloseTo(4 * copies, -2);
    expect(b.optimizer - a.optimizer).toBeCloseTo(8 * copies, -2);
    // The frozen originals stay: the base weights do not change.
    expect(b.weights).toBe(a.weights);
    expect(both.options.modulesToSave).toEqual(['embed', 'lm_head']);
  });

  it('Unsloth trains them as its embed_tokens / lm_head targets (modules_to_save)', () => {
    const saved = est({
      method: 'lora',
      framework: 'unsloth',
      'lora-targets': 'q,v',
      'modules-to-save': 'embed,lm_head',
    });
    const targets = est({
      method: 'lora',
      framework: 'unsloth',
      'lora-targets': 'q,v,embed,lm_head',
    });
    expect(saved.params.trainable).toBe(targets.params.trainable);
    expect(saved.perGpu.deviceBytes).toBe(targets.perGpu.deviceBytes);
  });

  it("Unsloth's launch steps them at a tenth of the rate through UnslothTrainer, as its CPT notebooks do", () => {
    const folder = (flags: RawFlags) => {
      const x = launchInputOf('llama-3.1-8b', 'h100-sxm', {
        method: 'lora',
        framework: 'unsloth',
        ...flags,
      });
      const files = buildLaunch(x).files;
      const text = (p: string) => files.find((f) => f.path === p)!.content;
      return {
        args: JSON.parse(text('unsloth-args.json')) as Record<string, Record<string, unknown>>,
        script: text('train_unsloth.py'),
      };
    };
    const saved = folder({ 'modules-to-save': 'embed,lm_head' });
    expect(saved.args.unsloth_trainer).toEqual({
      embedding_learning_rate: (saved.args.sft_config!.learning_rate as number) / 10,
    });
    expect(saved.script).toContain(
      'args=UnslothTrainingArguments(**args["unsloth_trainer"], **args["sft_config"])',
    );
    expect(saved.script).toContain('trainer = UnslothTrainer(');
    // Adapters alone: TRL's SFTTrainer, one learning rate.
    const plain = folder({});
    expect(plain.args.unsloth_trainer).toBeUndefined();
    expect(plain.script).toContain('trainer = SFTTrainer(');
    expect(plain.script).not.toContain('UnslothTrainer');
  });

  it('is refused where it cannot run, naming the flag', () => {
    expect(() => optionsFromFlags({ method: 'full', 'modules-to-save': 'lm_head' })).toThrow(
      /--modules-to-save: got 'lm_head'; expected a comma list of embed,lm_head with --method lora or qlora/,
    );
    expect(() => optionsFromFlags({ method: 'lora', 'modules-to-save': 'q' })).toThrow(FlagError);
    const o = optionsFromFlags({ method: 'lora', 'modules-to-save': 'embed' });
    const runs = ENGINES.filter((e) => ENGINE_PROFILES[e].modulesToSave === true);
    expect(runs).toEqual(
      expect.arrayContaining(['hf-trainer', 'hf-fsdp', 'hf-deepspeed', 'unsloth']),
    );
    for (const e of ['torchtune', 'litgpt'] as const)
      expect(engineRejects(e, { ...o, framework: ENGINE_PROFILES[e].framework }, 1, 1)).toMatch(
        /modules_to_save/,
      );
  });

  it("axolotl's Llama-3 LoRA example reads lora_modules_to_save as --modules-to-save, without a warning", () => {
    const c = readFromConfig('test/fixtures/from/axolotl/examples/llama-3/lora-8b.yml');
    expect(c.flags['modules-to-save']).toBe('embed,lm_head');
    expect(c.flags['lora-targets']).not.toMatch(/embed|lm_head/);
    expect(c.warnings.some((w) => w.includes('modules_to_save'))).toBe(false);
  });

  for (const [name, flags, file] of [
    ['hf-trainer', { framework: 'hf-trainer' }, 'hf-args.json'],
    ['axolotl', { framework: 'hf-trainer' }, 'axolotl.yaml'],
  ] as const)
    it(`${name}: the launch writes the copies and reads back as the same options`, () => {
      const x = launchInputOf('llama-3.1-8b', 'h100-sxm', {
        method: 'lora',
        'modules-to-save': 'embed,lm_head',
        ...flags,
      });
      const bundle = buildLaunch(x);
      const dir = join(tmp, name);
      for (const f of bundle.files) {
        mkdirSync(dirname(join(dir, f.path)), { recursive: true });
        writeFileSync(join(dir, f.path), f.content);
      }
      const text = bundle.files.find((f) => f.path === file)!.content;
      if (file === 'axolotl.yaml') {
        expect((parse(text) as Record<string, unknown>).lora_modules_to_save).toEqual([
          'embed_tokens',
          'lm_head',
        ]);
        const back = readFromConfig(join(dir, file));
        expect(back.flags['modules-to-save']).toBe('embed,lm_head');
      } else {
        expect(text).toContain(
          '"modules_to_save": [\n      "embed_tokens",\n      "lm_head"\n    ]',
        );
        const c = readFromConfig(dir);
        const back = withEngineDefaults(optionsFromFlags(mergeFlags(c, {})), mergeFlags(c, {}));
        expect(back.modulesToSave).toEqual(['embed', 'lm_head']);
      }
    });
});
