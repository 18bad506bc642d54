// Preference objectives (DPO, KTO, SimPO) start from the trainers' own learning rates, not the SFT ones:
// TRL v1.9.0's DPOConfig, KTOConfig and CPOConfig default learning_rate to 1e-6, its dpo.py LoRA
// example runs 5e-6 and kto_trainer.md keeps 5e-7 to 5e-6; Unsloth's DPO notebook runs LoRA at 5e-6.
// ORPO takes each engine's own ORPO recipe: TRL's examples/scripts/orpo.py (8e-6 full, 8e-5 LoRA), axolotl's
// examples/mistral/orpo/mistral-qlora-orpo.yml (2e-4), Unsloth's Llama3_(8B)-ORPO notebook (UnslothORPOConfig's 5e-5).
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildLaunch, type LaunchInput } from '../../src/core/launch/index.js';
import { renderLaunchReadme } from '../../src/ui/launch-readme.js';
import { launchInputOf } from '../helpers/launch.js';

const filesOf = (x: LaunchInput): Record<string, string> =>
  Object.fromEntries(buildLaunch(x).files.map((f) => [f.path, f.content]));

type Args = Record<string, Record<string, unknown> | undefined>;
const input = (objective: string, method: string, framework: string) =>
  launchInputOf('llama-3.1-8b', 'a100-80gb-sxm', {
    method,
    objective,
    framework,
    batch: '2',
    gpus: '1',
    ...(method === 'full' ? { optimizer: 'adamw-8bit', checkpointing: 'full' } : {}),
  });
const block = (objective: string) => (objective === 'simpo' ? 'cpo_config' : `${objective}_config`);

describe('preference objectives write the trainers own learning rates', () => {
  for (const objective of ['dpo', 'kto', 'simpo'])
    it(`${objective}: TRL 1e-6 full, 5e-6 adapters (hf-args.json, axolotl.yaml)`, () => {
      for (const [method, lr] of [
        ['full', 1e-6],
        ['lora', 5e-6],
        ['qlora', 5e-6],
      ] as const) {
        const f = filesOf(input(objective, method, 'hf-trainer'));
        const args = JSON.parse(f['hf-args.json']!) as Args;
        expect(args[block(objective)]?.learning_rate).toBe(lr);
        const axolotl = parse(f['axolotl.yaml']!) as Record<string, unknown>;
        expect(axolotl.learning_rate).toBe(lr);
      }
    });
  for (const objective of ['dpo', 'kto'])
    it(`${objective} on Unsloth: 5e-6 adapters`, () => {
      const f = filesOf(input(objective, 'lora', 'unsloth'));
      const args = JSON.parse(f['unsloth-args.json']!) as Args;
      expect(args[`${objective}_config`]?.learning_rate).toBe(5e-6);
    });
  it("ORPO: each engine's own ORPO recipe, not DPO's rates", () => {
    for (const [method, trl, axolotl] of [
      ['full', 8e-6, 8e-6],
      ['lora', 8e-5, 2e-4],
      ['qlora', 8e-5, 2e-4],
    ] as const) {
      const f = filesOf(input('orpo', method, 'hf-trainer'));
      const args = JSON.parse(f['hf-args.json']!) as Args;
      expect(args.orpo_config?.learning_rate, method).toBe(trl);
      const yaml = parse(f['axolotl.yaml']!) as Record<string, unknown>;
      expect(yaml.learning_rate, method).toBe(axolotl);
    }
    for (const [method, lr] of [
      ['lora', 5e-5],
      ['qlora', 5e-5],
      ['full', 8e-6],
    ] as const) {
      const f = filesOf(input('orpo', method, 'unsloth'));
      const args = JSON.parse(f['unsloth-args.json']!) as Args;
      expect(args.orpo_config?.learning_rate, method).toBe(lr);
    }
  });
  it('SFT keeps its rates', () => {
    const f = filesOf(input('sft', 'lora', 'hf-trainer'));
    expect(f['hf-args.json']).toContain('0.0002');
  });
  it('the README states the learning rate and LoRA dropout the files write', () => {
    for (const [objective, framework, lr, dropout] of [
      ['dpo', 'hf-trainer', '5e-6', '0'],
      ['orpo', 'hf-trainer', '8e-5', '0'],
      ['orpo', 'unsloth', '5e-5', '0'],
      ['grpo', 'unsloth', '5e-6', '0'],
      ['sft', 'unsloth', '2e-4', '0'],
      ['sft', 'torchtune', '3e-4', '0'],
    ] as const) {
      const x = input(objective, 'lora', framework);
      const line = renderLaunchReadme(x, buildLaunch(x))
        .split('\n')
        .find((l) => l.startsWith('- Starting points'));
      expect(line, `${objective} ${framework}`).toContain(`learning rate ${lr},`);
      expect(line, `${objective} ${framework}`).toContain(`LoRA dropout ${dropout})`);
    }
  });
});
