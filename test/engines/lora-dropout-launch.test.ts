// --lora-dropout through the launchers and back through --from: each writes the estimate's dropout (an engine's
// estimate defaults to the value its launcher writes; a family name to its memory profile's default), and each
// reader reads the config's lora_dropout, or its library's default where the config names none.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { engineOf, onEngine } from '../../src/core/engines/index.js';
import { buildEstimate } from '../../src/core/estimate.js';
import { mergeFlags } from '../../src/core/from/index.js';
import { buildLaunch } from '../../src/core/launch/index.js';
import { readFromConfig } from '../../src/io/from/read.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { launchInputOf } from '../helpers/launch.js';

const tmp = mkdtempSync(join(tmpdir(), 'vramplan-lora-dropout-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function launch(flags: Record<string, unknown>) {
  const input = launchInputOf('llama-3-8b', 'h100-sxm', flags);
  const options = onEngine(input.options, engineOf(input.options));
  const bundle = buildLaunch({
    ...input,
    options,
    estimate: buildEstimate(input.arch, options, input.gpu),
  });
  return { options, bundle };
}
type Bundle = ReturnType<typeof launch>['bundle'];
const file = (b: Bundle, path: string) => b.files.find((f) => f.path === path)?.content ?? '';

let n = 0;
function readBack(b: Bundle, only: string) {
  const dir = join(tmp, `r${n++}`);
  for (const f of b.files.filter((x) => x.path === only)) {
    mkdirSync(dirname(join(dir, f.path)), { recursive: true });
    writeFileSync(join(dir, f.path), f.content);
  }
  return optionsFromFlags(mergeFlags(readFromConfig(dir), {}));
}

const lora = { method: 'lora', 'lora-targets': 'q,k,v,o,gate,up,down' };

describe('--lora-dropout: launch writes it, --from reads it back', () => {
  it('hf-trainer: hf-args.json lora_config and axolotl.yaml', () => {
    const { bundle } = launch({ ...lora, framework: 'hf-trainer', 'lora-dropout': 0.1 });
    expect(JSON.parse(file(bundle, 'hf-args.json')).lora_config.lora_dropout).toBe(0.1);
    expect(parse(file(bundle, 'axolotl.yaml')).lora_dropout).toBe(0.1);
    expect(readBack(bundle, 'hf-args.json').loraDropout).toBe(0.1);
    expect(readBack(bundle, 'axolotl.yaml').loraDropout).toBe(0.1);
  });

  it('torchtune and litgpt write it and read it back', () => {
    const tt = launch({ ...lora, framework: 'torchtune', 'lora-dropout': 0.2 }).bundle;
    expect(parse(file(tt, 'torchtune.yaml')).model.lora_dropout).toBe(0.2);
    expect(readBack(tt, 'torchtune.yaml').loraDropout).toBe(0.2);
    const lg = launch({ ...lora, framework: 'litgpt', 'lora-dropout': 0.2 }).bundle;
    expect(parse(file(lg, 'litgpt.yaml')).lora_dropout).toBe(0.2);
    expect(readBack(lg, 'litgpt.yaml').loraDropout).toBe(0.2);
  });

  it('without --lora-dropout each launcher writes what its memory profile counts', () => {
    const written = (framework: string) => {
      const { options, bundle } = launch({ ...lora, framework });
      expect(options.loraDropout).toBeUndefined();
      if (framework === 'unsloth')
        return JSON.parse(file(bundle, 'unsloth-args.json')).get_peft_model.lora_dropout;
      if (framework === 'torchtune')
        return parse(file(bundle, 'torchtune.yaml')).model.lora_dropout;
      if (framework === 'litgpt') return parse(file(bundle, 'litgpt.yaml')).lora_dropout;
      return JSON.parse(file(bundle, 'hf-args.json')).lora_config.lora_dropout;
    };
    expect(written('hf')).toBe(0); // PEFT LoraConfig default: nn.Identity
    expect(written('hf-trainer')).toBe(0);
    expect(written('torchtune')).toBe(0);
    expect(written('litgpt')).toBe(0.05); // finetune/lora.py default
    expect(written('unsloth')).toBe(0);
  });
});

describe('--from readers: lora_dropout, or the library default', () => {
  const read = (name: string, text: string) => {
    const dir = join(tmp, `f${n++}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, name), text);
    return mergeFlags(readFromConfig(dir), {});
  };
  it('axolotl: lora_dropout; 0 (its default, what the hf profile counts) stays unset', () => {
    const y =
      'base_model: meta-llama/Meta-Llama-3-8B\nadapter: lora\nlora_r: 8\nsequence_len: 1024\n';
    expect(read('axolotl.yaml', y + 'lora_dropout: 0.05\n')['lora-dropout']).toBe(0.05);
    expect(read('axolotl.yaml', y)['lora-dropout']).toBeUndefined();
    expect(read('axolotl.yaml', y + 'lora_dropout: 0\n')['lora-dropout']).toBeUndefined();
    expect(() => read('axolotl.yaml', y + 'lora_dropout: 1.5\n')).toThrow(/lora_dropout/);
  });

  it("TRL's --use_peft without --lora_dropout: ModelConfig's 0.05; a lora_config without one: PEFT's 0", () => {
    const line = (text: string) => {
      const path = join(tmp, `trl${n++}.sh`);
      writeFileSync(path, text + '\n');
      return mergeFlags(readFromConfig(path), {});
    };
    const cmd =
      'trl sft --model_name_or_path Qwen/Qwen2.5-0.5B --dataset_name trl-lib/Capybara --use_peft --lora_r 16';
    expect(line(cmd)['lora-dropout']).toBe(0.05);
    expect(line(cmd + ' --lora_dropout 0.1')['lora-dropout']).toBe(0.1);
    expect(line(cmd + ' --lora_dropout 0')['lora-dropout']).toBeUndefined();
    const args = {
      model_name_or_path: 'Qwen/Qwen2.5-0.5B',
      trainer: 'sft',
      lora_config: { r: 16 },
    };
    const dir = join(tmp, `f${n++}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'hf-args.json'), JSON.stringify(args));
    expect(mergeFlags(readFromConfig(dir), {})['lora-dropout']).toBeUndefined();
  });
});
