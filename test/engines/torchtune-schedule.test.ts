// torchtune.yaml's learning rate and warmup are torchtune's own Llama-3.1-8B recipes' for the job (fixture:
// test/fixtures/torchtune/v0.6.1-schedules.json, read from recipes/configs/llama3_1 in the 0.6.1 wheel), and the
// file names the recipe it took them from.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { buildEstimate } from '../../src/core/estimate.js';
import { engineOf, onEngine } from '../../src/core/engines/index.js';
import { emitTorchtune } from '../../src/core/engines/torchtune/launch.js';
import type { LaunchInput } from '../../src/core/launch/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';

const RECIPES = (
  JSON.parse(
    readFileSync(new URL('../fixtures/torchtune/v0.6.1-schedules.json', import.meta.url), 'utf8'),
  ) as { recipes: Record<string, { lr: number; num_warmup_steps: number | null }> }
).recipes;

interface Schedule {
  optimizer: { lr: number };
  lr_scheduler: { num_warmup_steps: number };
}

function written(flags: Record<string, unknown>): { config: Schedule; header: string } {
  const arch = resolveModel('llama-3.1-8b');
  const asked = optionsFromFlags({ framework: 'torchtune', ...flags });
  const options = onEngine(asked, engineOf(asked));
  const gpu = findGpu('h100-sxm');
  const x: LaunchInput = {
    arch,
    options,
    gpu,
    gradAccum: 1,
    powerLimitW: null,
    estimate: buildEstimate(arch, options, gpu),
    modelRef: arch.hfId ?? 'llama-3.1-8b',
  };
  const out = emitTorchtune(x);
  if (!out.ok) throw new Error(out.reason);
  const text = out.files.find((f) => f.path === 'torchtune.yaml')!.content;
  // torchtune reads the file with OmegaConf (YAML); the header comment is for the reader.
  const doc = parseDocument(text);
  return { config: doc.toJS() as Schedule, header: doc.commentBefore ?? '' };
}

describe("torchtune.yaml: learning rate and warmup from torchtune's own recipes", () => {
  for (const [name, flags, recipe] of [
    ['LoRA SFT', { method: 'lora' }, '8B_lora.yaml'],
    ['QLoRA SFT', { method: 'qlora' }, '8B_lora.yaml'],
    ['LoRA DPO', { method: 'lora', objective: 'dpo' }, '8B_lora_dpo.yaml'],
    ['full DPO', { method: 'full', objective: 'dpo', zero: '3', gpus: '4' }, '8B_full_dpo.yaml'],
    ['full SFT', { method: 'full', zero: '3', gpus: '4' }, '8B_full.yaml'],
  ] as const)
    it(`${name}: ${recipe}`, () => {
      const { config, header } = written(flags);
      const r = RECIPES[recipe]!;
      expect(config.optimizer.lr).toBe(r.lr);
      // 8B_full.yaml has no scheduler: the LoRA recipes' 100 warmup steps.
      expect(config.lr_scheduler.num_warmup_steps).toBe(
        r.num_warmup_steps ?? RECIPES['8B_lora.yaml']!.num_warmup_steps,
      );
      expect(header).toContain(recipe);
    });

  it('the single-device recipes agree with the distributed ones the file cites', () => {
    expect(RECIPES['8B_lora_single_device.yaml']).toEqual(RECIPES['8B_lora.yaml']);
    expect(RECIPES['8B_qlora_single_device.yaml']).toEqual(RECIPES['8B_lora.yaml']);
    expect(RECIPES['8B_lora_dpo_single_device.yaml']).toEqual(RECIPES['8B_lora_dpo.yaml']);
  });
});
