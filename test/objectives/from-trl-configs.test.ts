/**
 * preference and RL configs as users write them for TRL (verbatim copies of TRL's CLI docs,
 * huggingface/open-r1 GRPO recipes and alignment-handbook DPO/ORPO recipes; sources in
 * test/fixtures/from/SOURCES.txt) are read by --from with their objective, lengths, rollout and reference,
 * and keys TRL v1.9.0 reads otherwise (older names it drops) each get one warning.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildEstimate } from '../../src/core/estimate.js';
import { detectFormat, mergeFlags } from '../../src/core/from/index.js';
import { trainerOfPath, trlObjectiveOf } from '../../src/core/engines/hf/from/trl-objective.js';
import { readFromConfig } from '../../src/io/from/read.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';

const FIX = join(__dirname, '..', 'fixtures', 'from');
const read = (p: string) => readFromConfig(join(FIX, p));
const warned = (ws: string[], start: string) => ws.filter((w) => w.startsWith(start)).length;

const OPEN_R1 = 'open-r1/recipes';
const HANDBOOK = 'alignment-handbook/recipes';

describe('GRPO configs as users write them for TRL', () => {
  it('open-r1 Qwen2.5-1.5B demo: 16 generations, 512 + 1024 tokens, vLLM colocated (v1.9.0 default)', () => {
    const c = read(`${OPEN_R1}/Qwen2.5-1.5B-Instruct/grpo/config_demo.yaml`);
    expect(c.format).toBe('hf-args');
    expect(c.model).toBe('Qwen/Qwen2.5-1.5B-Instruct');
    expect(c.flags).toMatchObject({
      objective: 'grpo',
      generations: 16,
      'prompt-tokens': 512,
      // max_completion_length 1024 is the longest completion: the mean is floor(1024 / 1.47) = 696.
      'completion-tokens': 696,
      rollout: 'vllm-colocate',
      batch: 16,
      'grad-accum': 4,
      weights: 'bf16',
      compute: 'bf16',
      checkpointing: 'full',
      attention: 'flash',
    });
    expect(c.flags.reference).toBeUndefined(); // beta absent: 0.0 at v1.9.0, no reference model
    expect(c.flags.seq).toBeUndefined();
    expect(warned(c.warnings, 'max_prompt_length: not a GRPOConfig field')).toBe(1);
    expect(warned(c.warnings, 'vllm_mode: not set')).toBe(1);
    expect(warned(c.warnings, 'torch_dtype:')).toBe(1);
    // reward_funcs, scale_rewards, log_completions...: TRL / open-r1 keys, known and not memory.
    expect(c.unknown).toEqual([]);
    expect(c.ignored).toEqual(expect.arrayContaining(['reward_funcs', 'log_completions']));
  });

  it('open-r1 DeepSeek-R1-Distill demo: Liger, 2048-token completions', () => {
    const c = read(`${OPEN_R1}/DeepSeek-R1-Distill-Qwen-1.5B/grpo/config_demo.yaml`);
    expect(c.flags).toMatchObject({
      objective: 'grpo',
      generations: 16,
      'prompt-tokens': 512,
      'completion-tokens': 1393, // floor(2048 / 1.47)
      rollout: 'vllm-colocate',
      liger: true,
    });
    expect(c.unknown).toEqual([]);
  });

  it('open-r1 Codeforces: beta 0.0 (no reference), vLLM share 0.7, an older key (vllm_device) dropped', () => {
    const c = read(`${OPEN_R1}/Qwen2.5-Coder-7B-Instruct/grpo/config_codeforces.yaml`);
    expect(c.flags).toMatchObject({
      objective: 'grpo',
      generations: 16,
      'prompt-tokens': 2000,
      'completion-tokens': 5572, // floor(8192 / 1.47)
      rollout: 'vllm-colocate',
      'rollout-memory': 0.7,
      batch: 4,
      'grad-accum': 32,
    });
    expect(c.flags.reference).toBeUndefined();
    // vllm_device left GRPOConfig in huggingface/trl#3364; `trl grpo` v1.9.0 drops it.
    expect(c.unknown).toEqual(['vllm_device']);
    expect(c.ignored).toEqual(
      expect.arrayContaining(['scale_rewards', 'mask_truncated_completions']),
    );
  });

  it("TRL's CLI docs grpo_config.yaml: reward_funcs names GRPO; transformers generate by default", () => {
    const c = read('trl/docs/clis/grpo_config.yaml');
    expect(c.flags).toMatchObject({ objective: 'grpo', rollout: 'hf' });
    expect(c.warnings.some((w) => w.startsWith('objective:'))).toBe(false);
  });

  it('the estimate runs on each GRPO recipe with its options (model from the catalog)', () => {
    const arch = resolveModel('qwen2.5-1.5b');
    const gpu = findGpu('h100-sxm');
    const c = read(`${OPEN_R1}/Qwen2.5-1.5B-Instruct/grpo/config_demo.yaml`);
    const o = optionsFromFlags(mergeFlags(c, {}));
    expect(o).toMatchObject({
      objective: 'grpo',
      generations: 16,
      promptTokens: 512,
      completionTokens: 696,
      seq: 1208, // 512 + 696
      rollout: 'vllm-colocate',
      rolloutMemory: 0.3,
      reference: 'none',
    });
    expect(buildEstimate(arch, o, gpu).perGpu.deviceBytes).toBeGreaterThan(0);
  });
});

describe('DPO, ORPO and KTO configs as users write them for TRL', () => {
  it('alignment-handbook zephyr-7b-beta DPO full: DPO by its folder, reference model, max_length 1024', () => {
    const c = read(`${HANDBOOK}/zephyr-7b-beta/dpo/config_full.yaml`);
    expect(c.flags).toMatchObject({
      objective: 'dpo',
      seq: 1024,
      batch: 8,
      'grad-accum': 2,
      optimizer: 'adamw',
      checkpointing: 'full',
    });
    expect(c.flags.method).toBeUndefined();
    expect(warned(c.warnings, 'objective: read as DPO')).toBe(1);
    expect(warned(c.warnings, 'max_prompt_length: not in TRL v1.9.0')).toBe(1);
    const o = optionsFromFlags(mergeFlags(c, {}));
    expect(o).toMatchObject({ objective: 'dpo', reference: 'model', seq: 1024, method: 'full' });
  });

  it('alignment-handbook zephyr-7b-beta DPO QLoRA: nf4, rank 128, seven projections', () => {
    const c = read(`${HANDBOOK}/zephyr-7b-beta/dpo/config_qlora.yaml`);
    expect(c.flags).toMatchObject({
      objective: 'dpo',
      method: 'qlora',
      weights: 'nf4',
      'lora-rank': 128,
      'lora-targets': 'q,k,v,o,gate,up,down',
      optimizer: 'paged-adamw',
      seq: 1024,
    });
    // dataset_mixer / dataset_splits: alignment-handbook's older names, one line of unknown keys.
    expect(c.unknown).toEqual(['dataset_mixer', 'dataset_splits']);
  });

  it('alignment-handbook SmolLM3 APO: loss_type apo_zero names DPO, 24k tokens, no path needed', () => {
    const c = read(`${HANDBOOK}/smollm3/dpo/apo.yaml`);
    expect(c.flags).toMatchObject({ objective: 'dpo', seq: 24576, liger: true, batch: 1 });
    expect(warned(c.warnings, 'objective:')).toBe(0);
    expect(c.unknown).toEqual([]);
  });

  it('alignment-handbook zephyr-141b ORPO: ORPO by its folder, reference-free', () => {
    const c = read(`${HANDBOOK}/zephyr-141b-A35b/orpo/config_full.yaml`);
    expect(c.flags).toMatchObject({
      objective: 'orpo',
      seq: 2048,
      optimizer: 'adamw-8bit',
      weights: 'bf16',
    });
    expect(optionsFromFlags(mergeFlags(c, {})).reference).toBe('none');
    // The command line wins over the folder's name.
    expect(optionsFromFlags(mergeFlags(c, { objective: 'dpo' })).objective).toBe('dpo');
  });

  it("TRL's CLI docs dpo_config.yaml and kto_config.yaml: the trainer is only in the file's name", () => {
    expect(read('trl/docs/clis/dpo_config.yaml').flags.objective).toBe('dpo');
    expect(read('trl/docs/clis/kto_config.yaml').flags.objective).toBe('kto');
  });
});

describe('which trainer a TRL config is for', () => {
  it('keys first, then the path (file name before folders), then shared preference keys', () => {
    expect(trlObjectiveOf({ max_completion_length: 256 })).toBe('grpo');
    expect(trlObjectiveOf({ max_completion_length: 256, max_length: 1024, beta: 0.1 })).toBe('dpo');
    expect(trlObjectiveOf({ loss_type: ['sigmoid', 'sft'] })).toBe('dpo');
    expect(trlObjectiveOf({ loss_type: 'dr_grpo' })).toBe('grpo');
    expect(trlObjectiveOf({ loss_type: 'apo_zero_unpaired' })).toBe('kto');
    expect(trlObjectiveOf({ loss_type: 'simpo' })).toBe('simpo');
    expect(trlObjectiveOf({ num_generations: 8 }, undefined, 'runs/dpo/x.yaml')).toBe('grpo');
    // An older DPOConfig's completion limit: the file's name decides before the GRPO guess.
    const oldDpo = { beta: 0.1, max_prompt_length: 512, max_completion_length: 512 };
    expect(trlObjectiveOf(oldDpo, undefined, 'dpo.yaml')).toBe('dpo');
    expect(trlObjectiveOf(oldDpo, undefined, 'train.yaml')).toBe('grpo');
    expect(trlObjectiveOf({ beta: 0.1 }, undefined, 'runs/orpo/x.yaml')).toBe('orpo');
    expect(trlObjectiveOf({ packing: true }, undefined, 'runs/dpo/x.yaml')).toBe('sft');
    expect(trlObjectiveOf({ beta: 0.1 })).toBe('dpo');
    expect(trlObjectiveOf({ learning_rate: 1e-5 }, undefined, 'configs/train.yaml')).toBeNull();
    expect(trainerOfPath('exp-grpo/sft_config.yaml')).toBe('sft');
    expect(trainerOfPath('recipes/zephyr-141b-A35b/orpo/config_full.yaml')).toBe('orpo');
    expect(trainerOfPath('models/llama/config.yaml')).toBeNull();
    // Only the name and its folder: a project folder higher up does not name the trainer.
    expect(trainerOfPath('/home/me/dpo-experiments/configs/train.yaml')).toBeNull();
  });

  it('a GRPO or DPO config of TRL keys alone is recognised as TRL (hf-args)', () => {
    expect(detectFormat({ use_vllm: true, max_completion_length: 512, beta: 0.04 })).toBe(
      'hf-args',
    );
    expect(detectFormat({ reward_funcs: ['accuracy'] })).toBe('hf-args');
    expect(detectFormat({ max_prompt_length: 512, max_length: 1024, beta: 0.1 })).toBe('hf-args');
  });

  it("vramplan's own hf-args.json is not second-guessed: no warnings on its max_prompt_length", () => {
    const w: string[] = [];
    expect(trlObjectiveOf({ beta: 0.1 }, 'GRPOTrainer', 'dpo/hf-args.json', w)).toBe('grpo');
    expect(w).toEqual([]);
  });
});
