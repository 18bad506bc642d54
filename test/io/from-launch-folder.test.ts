/**
 * `--from <folder>`: which files of a launch folder are read comes from the registered engines (each engine's
 * `launchFolder`), and what an engine takes from beside its config stays with that engine (accelerate.yaml is
 * the Hugging Face stack's). The config formats' own hooks: an inline DeepSpeed dict is mapped by the reader
 * of the file holding it and named by its key.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { scratchDir } from '../helpers/run-cli.js';
import { engineDefs } from '../../src/core/engines/registry.js';
import { launchConfigFiles, launchFolderReaderOf } from '../../src/core/from/launch-folder.js';
import { readFromConfig } from '../../src/io/from/read.js';
import { userErrorOf } from '../helpers/errors.js';

const scratch = scratchDir('vramplan-from-folder-');
afterAll(() => scratch.remove());
const folder = scratch.folder;

const ACCELERATE_FSDP = [
  'compute_environment: LOCAL_MACHINE',
  'distributed_type: FSDP',
  'num_machines: 1',
  'num_processes: 4',
  'fsdp_config:',
  '  fsdp_sharding_strategy: FULL_SHARD',
  '',
].join('\n');

describe('launch folders, by the registered engines', () => {
  it("the configs tried are every engine launcher's, in registration order; generate.py is not read back", () => {
    expect(launchConfigFiles()).toEqual([
      'hf-args.json',
      'axolotl.yaml',
      'torchtune.yaml',
      'torchtitan_vramplan.py',
      'litgpt.yaml',
      'unsloth-args.json',
      'serve.sh',
    ]);
    // A reader only where a launcher writes the folder; hf-generate's generate.py maps to no flags.
    expect(engineDefs().filter((d) => d.launchFolder && !d.launcher)).toEqual([]);
    expect(
      engineDefs()
        .filter((d) => d.launcher && !d.launchFolder)
        .map((d) => d.id),
    ).toEqual(['hf-generate']);
  });

  it('a folder holding none of them: one line listing them all, exit 1', () => {
    const dir = folder('empty', { 'notes.txt': 'nothing here\n' });
    const e = userErrorOf(() => readFromConfig(dir));
    expect(e.message).toBe(
      `${dir}: is a folder without a launch config (hf-args.json, axolotl.yaml, torchtune.yaml, torchtitan_vramplan.py, litgpt.yaml, unsloth-args.json or serve.sh); --from expects a config file (YAML or JSON) or a folder written by 'vramplan launch'`,
    );
    expect(e.exitCode).toBe(1);
  });

  it('serve.sh: every serving engine writes it and reads it alone; an unknown config name has no reader', () => {
    const serving = launchFolderReaderOf('serve.sh', 'vllm');
    expect(serving?.files).toEqual(['serve.sh']);
    expect(launchFolderReaderOf('serve.sh', 'sglang')).toBe(serving);
    expect(launchFolderReaderOf('serve.sh', 'llama.cpp')).toBe(serving);
    expect(launchFolderReaderOf('notes.txt', 'vllm')).toBeNull();
  });

  it('accelerate.yaml gives an hf-args.json folder its process count and FSDP stage', () => {
    const args = JSON.stringify({
      model_name_or_path: 'org/model',
      per_device_train_batch_size: 2,
    });
    const alone = readFromConfig(folder('hf-alone', { 'hf-args.json': args }));
    expect(alone.flags.gpus).toBeUndefined();
    const c = readFromConfig(
      folder('hf-fsdp', { 'hf-args.json': args, 'accelerate.yaml': ACCELERATE_FSDP }),
    );
    expect(c.format).toBe('hf-args');
    expect(c.flags).toMatchObject({ gpus: 4, zero: 3, batch: 2 });
  });

  it("accelerate.yaml is the Hugging Face stack's: beside unsloth-args.json it is not read", () => {
    const args = JSON.stringify({
      from_pretrained: { model_name: 'org/model', load_in_4bit: true },
      sft_config: { per_device_train_batch_size: 2 },
    });
    const alone = readFromConfig(folder('unsloth-alone', { 'unsloth-args.json': args }));
    const beside = readFromConfig(
      folder('unsloth-acc', { 'unsloth-args.json': args, 'accelerate.yaml': ACCELERATE_FSDP }),
    );
    expect(alone.format).toBe('unsloth');
    expect(beside.flags).toEqual(alone.flags);
    expect(beside.flags.gpus).toBeUndefined();
  });
});

describe('power-limit.sh beside the engine files', () => {
  const serve =
    '#!/usr/bin/env bash\nvllm serve org/model --port 8000 --max-model-len 4096 --max-num-seqs 8\n';
  const cap = (w: number, gpus: number) =>
    [
      '#!/usr/bin/env bash',
      'set -euo pipefail',
      'sudo nvidia-smi -pm 1',
      ...Array.from({ length: gpus }, (_, i) => `sudo nvidia-smi -i ${i} -pl ${w}`),
      '',
    ].join('\n');

  it("gives the folder the plan's power limit (nvidia-smi -pl), as estimate's --power-limit takes it", () => {
    const alone = readFromConfig(folder('serve-uncapped', { 'serve.sh': serve }));
    expect(alone.flags['power-limit']).toBeUndefined();
    const capped = readFromConfig(
      folder('serve-capped', { 'serve.sh': serve, 'power-limit.sh': cap(315, 2) }),
    );
    expect(capped.flags['power-limit']).toBe('315W');
    const args = JSON.stringify({
      model_name_or_path: 'org/model',
      per_device_train_batch_size: 2,
    });
    const trained = readFromConfig(
      folder('hf-capped', { 'hf-args.json': args, 'power-limit.sh': cap(262.5, 1) }),
    );
    expect(trained.flags['power-limit']).toBe('262.5W');
  });

  it('GPUs capped at different limits: not read (one limit per plan)', () => {
    const mixed = cap(300, 1) + 'sudo nvidia-smi -i 1 -pl 250\n';
    const c = readFromConfig(folder('serve-mixed', { 'serve.sh': serve, 'power-limit.sh': mixed }));
    expect(c.flags['power-limit']).toBeUndefined();
  });
});

describe('vramplan-plan.json beside serve.sh: the prompt length', () => {
  const serve =
    '#!/usr/bin/env bash\nvllm serve org/model --port 8000 --max-model-len 4096 --max-num-seqs 8\n';
  const plan = (flags: Record<string, unknown>) =>
    JSON.stringify({
      schema: 'vramplan-plan/1',
      model: {
        id: 'llama-3.1-8b',
        hfId: 'meta-llama/Llama-3.1-8B',
        ref: 'meta-llama/Llama-3.1-8B',
      },
      engine: 'vllm',
      flags,
      gradAccum: 1,
      gpusPerNode: 1,
      powerLimitW: null,
      pins: {},
      estimate: {
        allocatedBytes: 1,
        reservedBytes: 1,
        deviceBytes: 1,
        tokensPerStep: 4096,
        stepSeconds: null,
        tokensPerSecondPerGpu: null,
        ttftSeconds: 0.1,
        tpotSeconds: 0.01,
        concurrency: 8,
      },
    });

  it("the folder and its serve.sh take the plan's prompt tokens, with a note", () => {
    const dir = folder('serve-planned', {
      'serve.sh': serve,
      'vramplan-plan.json': plan({ method: 'inference', 'prompt-tokens': 1024 }),
    });
    for (const c of [readFromConfig(dir), readFromConfig(`${dir}/serve.sh`)]) {
      expect(c.flags['prompt-tokens']).toBe(1024);
      expect(c.warnings.filter((w) => w.startsWith('prompt tokens: 1,024'))).toHaveLength(1);
    }
  });

  it('a plan at the default prompt, one that is not the schema, or not JSON: nothing taken', () => {
    const at = (name: string, text: string) =>
      readFromConfig(folder(name, { 'serve.sh': serve, 'vramplan-plan.json': text }));
    expect(
      at('serve-default', plan({ method: 'inference' })).flags['prompt-tokens'],
    ).toBeUndefined();
    const other = at('serve-other', JSON.stringify({ flags: { 'prompt-tokens': 1024 } }));
    expect(other.flags['prompt-tokens']).toBeUndefined();
    const broken = at('serve-broken', '{ not json');
    expect(broken.flags['prompt-tokens']).toBeUndefined();
    expect(broken.warnings).toContain("vramplan-plan.json: not JSON; the plan's flags not read");
  });
});

describe('DeepSpeed named by a config', () => {
  it('train_batch_size over micro-batch x accumulation gives the GPU count DeepSpeed asserts', () => {
    const ds = (total: unknown) =>
      JSON.stringify({
        train_batch_size: total,
        train_micro_batch_size_per_gpu: 2,
        gradient_accumulation_steps: 2,
        zero_optimization: { stage: 3 },
      });
    expect(readFromConfig(scratch.file('ds-16.json', ds(16))).flags).toMatchObject({
      gpus: 4,
      batch: 2,
      'grad-accum': 2,
      zero: 3,
    });
    expect(readFromConfig(scratch.file('ds-auto.json', ds('auto'))).flags.gpus).toBeUndefined();
    expect(readFromConfig(scratch.file('ds-odd.json', ds(6))).flags.gpus).toBeUndefined();
    const axolotl = [
      'base_model: meta-llama/Llama-3.1-8B',
      'micro_batch_size: 2',
      'gradient_accumulation_steps: 2',
      'deepspeed: ds-16.json',
      '',
    ].join('\n');
    expect(readFromConfig(scratch.file('axolotl-ds.yaml', axolotl)).flags.gpus).toBe(4);
  });

  it("TrainingArguments' inline deepspeed dict: mapped, its keys named under 'deepspeed'", () => {
    const f = scratch.file(
      'inline-ds.json',
      JSON.stringify({
        model_name_or_path: 'org/model',
        per_device_train_batch_size: 2,
        deepspeed: { zero_optimization: { stage: 3 }, my_note: 1 },
      }),
    );
    const c = readFromConfig(f);
    expect(c.flags).toMatchObject({ zero: 3, batch: 2 });
    expect(c.unknown).toContain('deepspeed:my_note');
  });
});
