// Reward-model training (--objective reward, TRL v1.9.0 trl/trainer/reward_trainer.py): a sequence-classification
// model (score head hidden x 1, no lm_head or vocabulary logits) over chosen/rejected pairs in one forward; the
// --from readers that map to it, and where it is refused.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildEstimate } from '../../src/core/estimate.js';
import { engineOf, onEngine } from '../../src/core/engines/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { readFromConfig } from '../../src/io/from/read.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { objectiveJobFields } from '../../src/schema/objective-job.js';
import { PUBLISHED } from '../helpers/published-configs.js';
import { runCli } from '../helpers/run-cli.js';

const MODEL = 'qwen2-0.5b';

function estimate(flags: Record<string, unknown>) {
  const arch = resolveModel(MODEL);
  const asked = optionsFromFlags({ framework: 'hf', method: 'full', seq: 2048, ...flags });
  const options = onEngine(asked, engineOf(asked));
  return buildEstimate(arch, options, findGpu('h100-sxm'));
}

describe('reward-model memory and time', () => {
  // A pair trains chosen and rejected in one forward (DataCollatorForPreference: chosen_ids + rejected_ids), so
  // batch 8 of pairs is 16 sequences: SFT on batch 16 is the same body with the causal LM's head.
  const reward = estimate({ objective: 'reward', batch: 8 });
  const sft = estimate({ batch: 16 });

  it('holds no vocabulary logits and no lm_head: the score head is hidden x 1', () => {
    const arch = resolveModel(MODEL) as { hidden: number; vocab: number };
    expect(sft.perGpu.breakdown.logits).toBeGreaterThan(10 * 2 ** 30);
    expect(reward.perGpu.breakdown.logits).toBeLessThan(2 ** 20);
    // Qwen2-0.5B ties lm_head to the embeddings: the score head adds hidden x 1 parameters.
    expect(reward.params.total - sft.params.total).toBe(arch.hidden);
    expect(reward.perGpu.breakdown.activations).toBe(sft.perGpu.breakdown.activations);
    expect(reward.perGpu.allocatedBytes).toBeLessThan(sft.perGpu.allocatedBytes - 20 * 2 ** 30);
  });

  it("runs no lm_head matmul: a shorter step than SFT's over the same sequences", () => {
    expect(reward.time!.stepSeconds).toBeLessThan(sft.time!.stepSeconds);
    expect(reward.time!.stepSeconds).toBeGreaterThan(0.5 * sft.time!.stepSeconds);
  });

  it('an untied model drops its lm_head weights', () => {
    const flags = { method: 'full', seq: 1024, framework: 'hf', batch: 1 };
    const arch = resolveModel('llama-3.1-8b') as { hidden: number; vocab: number };
    const run = (f: Record<string, unknown>) => {
      const o = optionsFromFlags({ ...flags, ...f });
      return buildEstimate(arch as never, onEngine(o, engineOf(o)), findGpu('h100-sxm'));
    };
    const r = run({ objective: 'reward' });
    const s = run({ batch: 2 });
    expect(s.params.total - r.params.total).toBe(arch.hidden * (arch.vocab - 1));
  });
});

describe('process reward model (token classification, TRL PRMTrainer)', () => {
  it('a hidden x 2 head over every position, one sequence per example: no vocabulary logits', () => {
    const arch = resolveModel(MODEL) as { hidden: number };
    const prm = estimate({ objective: 'prm', batch: 8 });
    const sft = estimate({ batch: 8 });
    expect(prm.perGpu.breakdown.logits).toBeLessThan(2 ** 20);
    expect(prm.params.total - sft.params.total).toBe(2 * arch.hidden);
    expect(prm.perGpu.breakdown.activations).toBe(sft.perGpu.breakdown.activations);
    expect(prm.time!.stepSeconds).toBeLessThan(sft.time!.stepSeconds);
  });
});

describe('reward-model refusals (one line each)', () => {
  const base = ['estimate', '--model', MODEL, '--objective', 'reward'];
  it.each([
    [['--reference', 'model'], /--reference: got 'model'; expected none with --objective reward/],
    [['--generations', '4'], /--generations: .*only with --objective grpo or ppo/],
    [['--framework', 'litgpt'], /litgpt runs objectives sft only/],
  ])('%j', (extra, message) => {
    const r = runCli([...base, ...extra]);
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(message);
  });

  it('is estimated on the TRL engines', () => {
    const ok = runCli([...base, '--framework', 'hf-trainer', '--json']);
    expect(ok.status, ok.stderr).toBe(0);
    expect((JSON.parse(ok.stdout) as { options: { objective: string } }).options.objective).toBe(
      'reward',
    );
  });

  it('launch writes no RewardTrainer files: it says so in one line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vramplan-reward-launch-'));
    try {
      const r = runCli([
        'launch',
        ...base.slice(1),
        '--gpu',
        'h100-sxm',
        '--out',
        join(dir, 'out'),
      ]);
      expect(r.status).toBe(1);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(
        /vramplan writes no hf-trainer launch files .*runs objectives sft\/dpo\/orpo\/kto\/simpo\/grpo only/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a scenario does not plan it: no launched engine writes RewardTrainer', () => {
    const r = z.object(objectiveJobFields).safeParse({ objective: 'reward' });
    expect(r.success).toBe(false);
    expect(r.error!.issues[0]!.message).toMatch(
      /^reward is estimated, not planned \(vramplan estimate --objective reward\): no launched engine writes TRL's RewardTrainer/,
    );
  });
});

describe('reward-model training read by --from', () => {
  const inDir = (name: string, text: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'vramplan-reward-'));
    try {
      const file = join(dir, name);
      writeFileSync(file, text);
      return readFromConfig(file);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };

  it('`trl reward` command lines', () => {
    const c = inDir(
      'run.sh',
      'trl reward --model_name_or_path Qwen/Qwen2-0.5B-Instruct --dataset_name trl-lib/ultrafeedback_binarized --per_device_train_batch_size 4\n',
    );
    expect(c.flags).toMatchObject({ objective: 'reward', batch: 4, checkpointing: 'full' });
    // RewardConfig.max_length 1024 (reward_config.py v1.9.0).
    expect(c.flags.seq).toBe(1024);
  });

  it("TRL's reward_modeling.py and prm.py usage lines (published table) read as reward and prm", () => {
    for (const n of [1, 2]) {
      const c = readFromConfig(join(PUBLISHED, `trl-scripts/reward_modeling-${n}.sh`));
      expect(c.flags.objective, `reward_modeling-${n}`).toBe('reward');
      expect(c.flags.seq).toBe(2048);
      const prm = readFromConfig(join(PUBLISHED, `trl-scripts/prm-${n}.sh`));
      expect(prm.flags.objective, `prm-${n}`).toBe('prm');
      // PRMConfig.max_length 1024 (trl/experimental/prm/prm_config.py v1.9.0).
      expect(prm.flags.seq).toBe(1024);
    }
  });

  it('a PRMConfig YAML names it by step_separator', () => {
    const c = inDir(
      'config.yaml',
      [
        'model_name_or_path: Qwen/Qwen2-0.5B-Instruct',
        'step_separator: "\\n"',
        'max_length: 512',
      ].join('\n'),
    );
    expect(c.flags).toMatchObject({ objective: 'prm', seq: 512 });
    expect(c.unknown).toEqual([]);
  });

  it('a RewardConfig YAML names it by center_rewards_coefficient', () => {
    const c = inDir(
      'config.yaml',
      [
        'model_name_or_path: Qwen/Qwen2-0.5B-Instruct',
        'per_device_train_batch_size: 8',
        'max_length: 2048',
        'center_rewards_coefficient: 0.01',
        'bf16: true',
      ].join('\n'),
    );
    expect(c.flags).toMatchObject({ objective: 'reward', seq: 2048, batch: 8 });
    expect(c.unknown).toEqual([]);
  });

  it('axolotl reward_model with a sequence-classification model_type (its reward-modelling docs)', () => {
    const lines = [
      'base_model: Qwen/Qwen2-0.5B-Instruct',
      'model_type: AutoModelForSequenceClassification',
      'num_labels: 1',
      'tokenizer_type: AutoTokenizer',
      'reward_model: true',
      'chat_template: qwen_25',
      'datasets:',
      '  - path: argilla/distilabel-intel-orca-dpo-pairs',
      '    type: bradley_terry.chat_template',
      'sequence_len: 2048',
      'micro_batch_size: 4',
      'bf16: true',
    ];
    const c = inDir('rm.yml', lines.join('\n'));
    expect(c.format).toBe('axolotl');
    expect(c.flags).toMatchObject({ objective: 'reward', seq: 2048, batch: 4 });
    expect(c.warnings.some((w) => w.startsWith('reward_model:'))).toBe(false);
    const published = readFromConfig(join(PUBLISHED, 'axolotl/examples/qwen2/reward-model.yaml'));
    expect(published.flags).toMatchObject({ objective: 'reward', seq: 2048, batch: 2 });
    // process_reward_model with a token-classification model_type: AxolotlPRMTrainer.
    const prm = inDir(
      'prm.yml',
      lines
        .map((l) =>
          l.startsWith('model_type')
            ? 'model_type: AutoModelForTokenClassification'
            : l === 'reward_model: true'
              ? 'process_reward_model: true'
              : l,
        )
        .join('\n'),
    );
    expect(prm.flags.objective).toBe('prm');
    // The causal LM as loaded keeps its lm_head: SFT, said.
    const causal = inDir('rm.yml', lines.filter((l) => !l.startsWith('model_type')).join('\n'));
    expect(causal.flags.objective).toBeUndefined();
    expect(
      causal.warnings.some((w) =>
        w.startsWith('reward_model: reward-model training on the causal LM'),
      ),
    ).toBe(true);
  });

  it("LLaMA-Factory stage rm stays SFT: its value head keeps the lm_head's logits", () => {
    const c = inDir(
      'rm.yaml',
      [
        'model_name_or_path: Qwen/Qwen2-0.5B-Instruct',
        'stage: rm',
        'do_train: true',
        'finetuning_type: lora',
        'lora_target: all',
        'dataset: dpo_en_demo',
        'template: qwen',
        'cutoff_len: 2048',
        'per_device_train_batch_size: 1',
      ].join('\n'),
    );
    expect(c.flags.objective).toBeUndefined();
    expect(c.warnings.some((w) => /^stage: rm keeps the lm_head/.test(w))).toBe(true);
  });
});
