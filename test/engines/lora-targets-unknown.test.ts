// An architecture with no PEFT module-name table: the launchers adapt every linear layer ('all-linear'),
// so the plan counts every linear layer too, and the launch folder's README, files and estimate agree.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchedLoraOptions } from '../../src/core/launch/modules.js';
import { baseConfigs } from '../../src/core/plan/configs.js';
import { resolveModel } from '../../src/io/load-model.js';
import { loadScenario } from '../../src/io/load-scenario.js';
import { defaultOptions } from '../../src/schema/estimate.js';
import { cliBuilt, runCli, scratchDir } from '../helpers/run-cli.js';

const scratch = scratchDir('vramplan-lora-unknown-');
const dir = scratch.dir;
const config = join(dir, 'model', 'config.json');
beforeAll(() => {
  expect(cliBuilt()).toBe(true);
  mkdirSync(join(dir, 'model'));
  // A Llama-shaped model under a model_type no module-name table knows.
  writeFileSync(
    config,
    JSON.stringify({
      model_type: 'mystery_lm',
      architectures: ['MysteryForCausalLM'],
      hidden_size: 2048,
      intermediate_size: 5632,
      num_hidden_layers: 22,
      num_attention_heads: 32,
      num_key_value_heads: 4,
      vocab_size: 32000,
      max_position_embeddings: 2048,
      torch_dtype: 'bfloat16',
      hidden_act: 'silu',
      tie_word_embeddings: false,
    }),
  );
  writeFileSync(
    join(dir, 'mystery.yaml'),
    [
      'name: mystery LoRA',
      'model: ./model/config.json',
      'job: { kind: fine-tune, methods: [lora], seq: 1024, globalBatch: 8, datasetTokens: 1000000 }',
      'hardware: { owned: [{ gpu: rtx-4090, count: 1 }], counts: { min: 1, max: 1 } }',
      '',
    ].join('\n'),
  );
});
afterAll(() => scratch.remove());

describe('LoRA targets on an architecture with no module-name table', () => {
  it('the planner searches every linear layer; a known architecture keeps q,v', () => {
    const s = loadScenario(join(dir, 'mystery.yaml'));
    const arch = resolveModel(config);
    const lora = baseConfigs(s, arch).filter((b) => b.options.method === 'lora');
    expect(lora.length).toBeGreaterThan(0);
    for (const b of lora) expect(b.options.loraAllLinear).toBe(true);
    const known = resolveModel('llama-2-7b');
    const o = { ...defaultOptions('lora'), loraTargets: ['q', 'v', 'embed'] as const };
    expect(
      launchedLoraOptions(known, { ...o, loraTargets: [...o.loraTargets] }).loraAllLinear,
    ).toBe(false);
    expect(
      launchedLoraOptions(arch, { ...o, loraTargets: [...o.loraTargets] }).loraTargets,
    ).toEqual(['q', 'k', 'v', 'o', 'gate', 'up', 'down', 'embed']);
  });

  it('plan, launch --plan and launch --model count and write the same targets', () => {
    const plan = JSON.parse(
      runCli(['plan', join(dir, 'mystery.yaml'), '--json', '--top', '1']).stdout,
    ) as { plans: { options: { loraAllLinear: boolean } }[] };
    expect(plan.plans[0]!.options.loraAllLinear).toBe(true);
    for (const [out, args] of [
      ['from-plan', ['launch', join(dir, 'mystery.yaml'), '--plan', '1']],
      ['from-flags', ['launch', '--model', config, '--method', 'lora', '--gpu', 'rtx-4090']],
    ] as const) {
      const r = runCli([...args, '--out', join(dir, out)]);
      expect(r.status).toBe(0);
      const readme = readFileSync(join(dir, out, 'README.md'), 'utf8');
      expect(readme).toMatch(/targets all-linear/);
      expect(readme).not.toMatch(/targets q,v/);
      expect(readme).toMatch(/PEFT 'all-linear' \(every linear layer\), as the plan counts/);
      const files = ['hf-args.json', 'train_unsloth.py']
        .map((f) => {
          try {
            return readFileSync(join(dir, out, f), 'utf8');
          } catch {
            return '';
          }
        })
        .join('\n');
      expect(files).toMatch(/all-linear/);
    }
    // The flag launch's estimate is what `estimate --lora-targets all-linear` gives: every linear layer.
    const trainable = (args: string[]) =>
      (
        JSON.parse(
          runCli(['estimate', '--model', config, '--method', 'lora', ...args, '--json']).stdout,
        ) as {
          params: { trainable: number };
        }
      ).params.trainable;
    const all = trainable(['--lora-targets', 'all-linear']);
    expect(all).toBeGreaterThan(trainable([]));
    for (const out of ['from-plan', 'from-flags'])
      expect(readFileSync(join(dir, out, 'README.md'), 'utf8')).toContain(
        `${(all / 1e6).toFixed(1)}M trainable`,
      );
  });
});
