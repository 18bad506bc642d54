/**
 * DPO and GRPO launched by Unsloth (unsloth-args.json `trainer` + TRL config block, train_unsloth.py) and LoRA
 * DPO by torchtune (lora_dpo_* recipes): launch → --from gives the same options and bytes, and launching the
 * read-back options writes the same files.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { buildEstimate } from '../../src/core/estimate.js';
import { mergeFlags } from '../../src/core/from/index.js';
import { buildLaunch, launchBlocker, type LaunchInput } from '../../src/core/launch/index.js';
import { readFromConfig } from '../../src/io/from/read.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { launchInputOf } from '../helpers/launch.js';

const tmp = mkdtempSync(join(tmpdir(), 'vramplan-rl-engines-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;

function launch(x: LaunchInput): { files: Record<string, string>; dir: string } {
  const bundle = buildLaunch(x);
  expect(bundle.files.length, JSON.stringify(bundle.outputs)).toBeGreaterThan(0);
  const dir = join(tmp, String(n++));
  mkdirSync(dir, { recursive: true });
  const files: Record<string, string> = {};
  for (const f of bundle.files) {
    writeFileSync(join(dir, f.path), f.content);
    files[f.path] = f.content;
  }
  return { files, dir };
}

/** launch → --from → the same options and bytes; launching those options again writes the same files. */
function roundTrip(x: LaunchInput, format: string): Record<string, string> {
  expect(launchBlocker(x)).toBeNull();
  const { files, dir } = launch(x);
  const c = readFromConfig(dir);
  expect(c.format).toBe(format);
  expect(c.unknown).toEqual([]);
  const flags = mergeFlags(c, {});
  const back = withEngineDefaults(optionsFromFlags(flags), flags);
  expect(back).toEqual(x.options);
  expect(buildEstimate(x.arch, back, x.gpu).perGpu.deviceBytes).toBe(x.estimate.perGpu.deviceBytes);
  const again = launch({ ...x, options: back, estimate: buildEstimate(x.arch, back, x.gpu) });
  expect(again.files).toEqual(files);
  return files;
}

const unsloth = (flags: Record<string, unknown>): LaunchInput =>
  launchInputOf('llama-3.1-8b', 'a100-80gb', { framework: 'unsloth', ...flags });

describe('Unsloth GRPO and DPO launch', () => {
  it('GRPO QLoRA with the shared-weights vLLM rollout', () => {
    const x = unsloth({
      method: 'qlora',
      'double-quant': true,
      'lora-rank': 32,
      objective: 'grpo',
      rollout: 'vllm-colocate',
      'rollout-memory': 0.5,
      generations: 8,
      'prompt-tokens': 256,
      'completion-tokens': 768,
      batch: 8,
    });
    const f = roundTrip(x, 'unsloth');
    const args = JSON.parse(f['unsloth-args.json']!) as Record<string, Record<string, unknown>>;
    expect(args.trainer).toBe('grpo');
    expect(args.sft_config).toBeUndefined();
    expect(args.from_pretrained).toMatchObject({
      fast_inference: true,
      gpu_memory_utilization: 0.5,
      max_lora_rank: 32,
      // vLLM's max_model_len: the prompt 256 and the longest completion ceil(1.47 x 768) = 1129.
      max_seq_length: 1385,
      load_in_4bit: true,
    });
    const g = args.grpo_config!;
    expect(g).toMatchObject({
      num_generations: 8,
      max_prompt_length: 256,
      max_completion_length: 1129,
      use_vllm: true,
      vllm_mode: 'colocate',
      beta: 0,
    });
    for (const k of ['max_length', 'padding_free', 'packing']) expect(g).not.toHaveProperty(k);
    const py = f['train_unsloth.py']!;
    expect(py.indexOf('from unsloth import')).toBeLessThan(py.indexOf('from trl import'));
    expect(py).toContain('from trl import GRPOConfig, GRPOTrainer');
    expect(py).toContain('PLACEHOLDER REWARD');
    expect(py).toContain('reward_funcs=[placeholder_reward]');
    // vllm 0.19.1 (Unsloth's GRPO CI pin) with the torch it pins, not 0.10.2 (transformers 4.x only).
    expect(f['requirements.txt']).toContain('vllm==0.19.1\n');
    expect(f['requirements.txt']).toContain('torch==2.10.0\n');
    // vllm 0.19.1 excludes transformers 5.5.0 exactly (its wheel metadata): the 5.5 line's 5.5.4.
    expect(f['requirements.txt']).toContain('transformers==5.5.4\n');
    expect(f['requirements.txt']).not.toContain('transformers==5.5.0');
    expect(f['requirements.txt']).not.toContain('torch==2.12.0');
  });

  it('GRPO LoRA with a reference (beta 0.04) and transformers generate', () => {
    const x = unsloth({
      method: 'lora',
      objective: 'grpo',
      reference: 'model',
      rollout: 'hf',
      generations: 4,
      'completion-tokens': 512,
      'prompt-tokens': 512,
      batch: 4,
    });
    const f = roundTrip(x, 'unsloth');
    const args = JSON.parse(f['unsloth-args.json']!) as Record<string, Record<string, unknown>>;
    expect(args.grpo_config).toMatchObject({ beta: 0.04, use_vllm: false });
    expect(args.from_pretrained).not.toHaveProperty('fast_inference');
    expect(f['requirements.txt']).not.toContain('vllm');
  });

  it('DPO LoRA and full, with the reference from the model or precomputed', () => {
    for (const flags of [
      { method: 'lora', objective: 'dpo', batch: 2, seq: 2048 },
      { method: 'qlora', 'double-quant': true, objective: 'dpo', reference: 'precomputed' },
      { method: 'full', objective: 'dpo', optimizer: 'adamw-8bit', seq: 1024 },
    ]) {
      const x = unsloth(flags);
      const f = roundTrip(x, 'unsloth');
      const args = JSON.parse(f['unsloth-args.json']!) as Record<string, Record<string, unknown>>;
      expect(args.trainer).toBe('dpo');
      expect(args.dpo_config).toMatchObject({
        beta: 0.1,
        precompute_ref_log_probs: x.options.reference === 'precomputed',
        max_length: x.options.seq,
        // TRL 0.24.0 DPOConfig's max_prompt_length=512 would cut every prompt to its last 512 tokens.
        max_prompt_length: null,
      });
      expect(args.dpo_config).not.toHaveProperty('packing');
      const py = f['train_unsloth.py']!;
      expect(py).toContain('from trl import DPOConfig, DPOTrainer');
      expect(py).toContain('ref_model=None');
    }
  });

  it('ORPO and KTO (TRL 0.24.0 ORPOTrainer / KTOTrainer): LoRA and full, read back the same', () => {
    for (const flags of [
      { method: 'lora', objective: 'orpo', batch: 2, seq: 2048 },
      { method: 'full', objective: 'orpo', optimizer: 'adamw-8bit', seq: 1024 },
      { method: 'qlora', 'double-quant': true, objective: 'kto', batch: 4 },
      { method: 'lora', objective: 'kto', reference: 'precomputed', batch: 2 },
      { method: 'full', objective: 'kto', optimizer: 'adamw-8bit', batch: 2, seq: 1024 },
    ]) {
      const x = unsloth(flags);
      const f = roundTrip(x, 'unsloth');
      const args = JSON.parse(f['unsloth-args.json']!) as Record<string, Record<string, unknown>>;
      const name = String(flags.objective);
      const block = args[`${name}_config`]!;
      expect(args.trainer).toBe(name);
      expect(args.sft_config).toBeUndefined();
      expect(block).toMatchObject({ beta: 0.1, max_length: x.options.seq });
      // ORPOConfig / KTOConfig (TRL 0.24.0) take neither padding_free nor packing.
      expect(block).not.toHaveProperty('padding_free');
      expect(block).not.toHaveProperty('packing');
      // They cut the prompt only where prompt + completion pass max_length: TRL's default is left.
      expect(block).not.toHaveProperty('max_prompt_length');
      const py = f['train_unsloth.py']!;
      const cls = name.toUpperCase();
      expect(py).toContain(`from trl import ${cls}Config, ${cls}Trainer`);
      expect(py).toContain(`${cls}Config(**args["${name}_config"])`);
      expect(py.indexOf('from unsloth import')).toBeLessThan(py.indexOf('from trl import'));
      if (name === 'orpo') {
        expect(block).not.toHaveProperty('precompute_ref_log_probs');
        expect(py).not.toContain('ref_model');
      } else {
        expect(block.precompute_ref_log_probs).toBe(x.options.reference === 'precomputed');
        expect(py).toContain('ref_model=None');
        expect(py).toContain('trl-lib/kto-mix-14k');
      }
      expect(f['launch.sh']).toContain(`Unsloth ${cls}Trainer (TRL) on one GPU`);
    }
  });

  it('refuses server mode, full fine-tunes with fast_inference, and KTO on a micro-batch of one', () => {
    const full = unsloth({ method: 'full', objective: 'grpo', rollout: 'vllm-colocate' });
    expect(launchBlocker(full)).toMatch(/fast_inference/);
    const kto = unsloth({ method: 'lora', objective: 'kto', batch: 1 });
    expect(launchBlocker(kto)).toMatch(/KTOTrainer needs a micro-batch of at least 2/);
  });
});

const tune = (flags: Record<string, unknown>): LaunchInput =>
  launchInputOf('llama-3.1-8b', 'a100-80gb', { framework: 'torchtune', ...flags });

describe('torchtune LoRA DPO launch', () => {
  it('one GPU: lora_dpo_single_device with DPOLoss and the paired dataset', () => {
    const x = tune({
      method: 'lora',
      objective: 'dpo',
      batch: 4,
      seq: 1024,
      checkpointing: 'full',
    });
    const f = roundTrip(x, 'torchtune');
    const y = f['torchtune.yaml']!;
    expect(y).toContain('tune run lora_dpo_single_device --config ./torchtune.yaml');
    expect(y).toMatch(/loss:\n {2}_component_: torchtune\.rlhf\.loss\.DPOLoss\n {2}beta: 0\.1/);
    expect(y).toContain('_component_: torchtune.datasets.stack_exchange_paired_dataset');
    expect(y).toContain('save_adapter_weights_only: false');
    for (const k of ['enable_activation_offloading', 'clip_grad_norm', 'packed'])
      expect(y).not.toContain(k);
  });

  it('several GPUs: lora_dpo_distributed (FSDP keys, no compile); QLoRA too', () => {
    const x = tune({ method: 'lora', objective: 'dpo', gpus: 4, zero: 3, seq: 2048 });
    const y = roundTrip(x, 'torchtune')['torchtune.yaml']!;
    expect(y).toContain('tune run --nproc_per_node 4 lora_dpo_distributed');
    expect(y).toContain('fsdp_reshard_after_forward: true');
    expect(y).not.toContain('compile');
    const q = tune({ method: 'qlora', 'double-quant': true, objective: 'dpo' });
    expect(roundTrip(q, 'torchtune')['torchtune.yaml']).toContain('qlora_llama3_1_8b');
  });

  it('full DPO on several GPUs: full_dpo_distributed with a ref_checkpointer on the original weights', () => {
    const x = tune({
      method: 'full',
      objective: 'dpo',
      gpus: 4,
      zero: 3,
      seq: 1024,
      checkpointing: 'offload',
    });
    const y = roundTrip(x, 'torchtune')['torchtune.yaml']!;
    expect(y).toContain(
      'tune run --nproc_per_node 4 full_dpo_distributed --config ./torchtune.yaml',
    );
    expect(y).toMatch(
      /\nref_checkpointer:\n {2}_component_: torchtune\.training\.FullModelHFCheckpointer/,
    );
    // The reference loads what the policy starts from.
    const block = (name: string) =>
      y.slice(y.indexOf(`\n${name}:\n`) + name.length + 3).split(/\n\S/)[0];
    expect(block('ref_checkpointer')).toBe(block('checkpointer'));
    expect(y).toMatch(/loss:\n {2}_component_: torchtune\.rlhf\.loss\.DPOLoss\n {2}beta: 0\.1/);
    expect(y).toContain('_component_: torchtune.datasets.stack_exchange_paired_dataset');
    // full_dpo_distributed.py reads these (L142-L163, L271), unlike the LoRA DPO recipes.
    for (const k of [
      'enable_activation_offloading: true',
      'clip_grad_norm: null',
      'optimizer_in_bwd: false',
      'compile: false',
      'fsdp_reshard_after_forward: true',
    ])
      expect(y).toContain(k);
    expect(y).not.toContain('save_adapter_weights_only');
    expect(y).not.toContain('lora_');
  });

  it('writes full DPO on one GPU as full_dpo_distributed in one process (no single-device recipe)', () => {
    const x = tune({ method: 'full', objective: 'dpo', seq: 1024 });
    expect(launchBlocker(x)).toBeNull();
    const y = roundTrip(x, 'torchtune')['torchtune.yaml']!;
    // full_dpo_distributed.py:33-34 at v0.6.1: "can be run on a single node (1 to 8 GPUs)".
    expect(y).toContain(
      'tune run --nproc_per_node 1 full_dpo_distributed --config ./torchtune.yaml',
    );
    expect(y).toMatch(/\nref_checkpointer:\n/);
    expect(y).not.toContain('shards the reference copy');
  });

  it('refuses LoRA offload and precomputed references', () => {
    expect(launchBlocker(tune({ method: 'full', objective: 'dpo', gpus: 2, zero: 3 }))).toBeNull();
    expect(
      launchBlocker(
        tune({ method: 'full', objective: 'dpo', gpus: 2, zero: 3, reference: 'precomputed' }),
      ),
    ).toMatch(/ref_checkpointer/);
    expect(
      launchBlocker(tune({ method: 'lora', objective: 'dpo', checkpointing: 'offload' })),
    ).toMatch(/enable_activation_offloading/);
    expect(
      launchBlocker(tune({ method: 'lora', objective: 'dpo', reference: 'precomputed' })),
    ).toMatch(/adapters disabled/);
  });
});
