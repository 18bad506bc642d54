/**
 * `--from`: published example configs (copies under test/fixtures/from, sources in each file's first line
 * or SOURCES.txt) read back as the options that matter: method, dtype, rank, targets, sequence,
 * micro-batch, ZeRO/FSDP and offload. Flags beside --from override the file.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { mergeFlags } from '../../src/core/from/index.js';
import { readFromConfig } from '../../src/io/from/read.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { userErrorOf } from '../helpers/errors.js';

const FIX = fileURLToPath(new URL('../fixtures/from/', import.meta.url));
const tmp = mkdtempSync(join(tmpdir(), 'vramplan-from-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A config written to the test's temporary folder, its path. */
function writeTmp(name: string, text: string): string {
  const f = join(tmp, name);
  writeFileSync(f, text);
  return f;
}

/** The file's options with `cli` flags on top, as `estimate --from` runs them. */
function optionsOf(rel: string, cli: Record<string, unknown> = {}) {
  const c = readFromConfig(join(FIX, rel));
  return { c, o: optionsFromFlags(mergeFlags(c, cli)), flags: mergeFlags(c, cli) };
}

describe('axolotl (published examples)', () => {
  it('llama-3/qlora.yml: QLoRA nf4, r32 all-linear, seq 4096, micro-batch 2, paged AdamW 32-bit', () => {
    const { c, o, flags } = optionsOf('axolotl/examples/llama-3/qlora.yml');
    expect(c.format).toBe('axolotl');
    expect(c.model).toBe('NousResearch/Meta-Llama-3-8B');
    expect(o).toMatchObject({
      method: 'qlora',
      weights: 'nf4',
      doubleQuant: true,
      loraRank: 32,
      loraAllLinear: true,
      seq: 4096,
      batch: 2,
      optimizer: 'paged-adamw',
      checkpointing: 'full',
      attention: 'flash',
      compute: 'bf16',
      zero: 0,
    });
    expect(flags['grad-accum']).toBe(4);
    expect(c.warnings.join('\n')).toMatch(/not used .*learning_rate/);
  });
  it('llama-3/lora-8b.yml: LoRA over 8-bit weights', () => {
    const { o } = optionsOf('axolotl/examples/llama-3/lora-8b.yml');
    expect(o).toMatchObject({ method: 'lora', weights: 'int8', loraRank: 32, seq: 4096 });
  });
  it('llama-3/fft-8b.yaml: full fine-tune in bf16, seq 8192, paged 8-bit AdamW', () => {
    const { o, flags } = optionsOf('axolotl/examples/llama-3/fft-8b.yaml');
    expect(o).toMatchObject({ method: 'full', weights: 'bf16', seq: 8192, batch: 1 });
    expect(o.optimizer).toBe('paged-adamw-8bit');
    expect(flags['grad-accum']).toBe(8);
  });
  it('llama-3/qlora-fsdp-70b.yaml: FSDP full_shard with parameter offload', () => {
    const { o } = optionsOf('axolotl/examples/llama-3/qlora-fsdp-70b.yaml', { gpus: 2 });
    expect(o).toMatchObject({ method: 'qlora', loraRank: 8, seq: 512, zero: 3 });
    expect(o.offload).toBe('optimizer+params');
    expect(o.framework).toBe('hf');
  });
  it('bigstral-ds-zero3.yaml: DeepSpeed JSON found from the repo root, stage 3, param offload', () => {
    const { c, o } = optionsOf('axolotl/examples/mistral/bigstral/bigstral-ds-zero3.yaml', {
      gpus: 8,
    });
    expect(c.deepspeedFile).toMatch(/zero3_bf16_cpuoffload_params\.json$/);
    expect(o).toMatchObject({ framework: 'deepspeed', zero: 3, offload: 'optimizer+params' });
    expect(o.masterWeights).toBe(true);
    expect(c.warnings.join('\n')).toMatch(/unfrozen_parameters/);
  });
});

describe('LLaMA-Factory (published examples)', () => {
  it('train_full/qwen3_full_sft.yaml + ds_z3_config.json: full, ZeRO-3, fp32 master', () => {
    const { c, o, flags } = optionsOf('llamafactory/examples/train_full/qwen3_full_sft.yaml', {
      gpus: 4,
    });
    expect(c.format).toBe('llamafactory');
    expect(c.model).toBe('Qwen/Qwen3-4B-Instruct-2507');
    expect(o).toMatchObject({ method: 'full', weights: 'bf16', compute: 'bf16', zero: 3 });
    expect(o).toMatchObject({ framework: 'deepspeed', masterWeights: true, seq: 2048, batch: 1 });
    // disable_gradient_checkpointing is false by default: LLaMA-Factory checkpoints.
    expect(o.checkpointing).toBe('full');
    expect(flags['grad-accum']).toBe(2);
    // ds_z3_config.json sets overlap_comm false: its gradient reduces run in series with backward.
    expect(c.warnings.join('\n')).toMatch(/zero_optimization\.overlap_comm: false reduces/);
    // Its reduce_bucket_size 'auto' is the hidden size squared: more, smaller reduce-scatters than DeepSpeed's 5e8.
    expect(c.warnings.join('\n')).toMatch(/zero_optimization\.reduce_bucket_size: 'auto'/);
  });
  it('train_lora/qwen3_lora_sft.yaml: LoRA r8 on all linear layers, fp32 nowhere', () => {
    const { o } = optionsOf('llamafactory/examples/train_lora/qwen3_lora_sft.yaml');
    expect(o).toMatchObject({ method: 'lora', loraRank: 8, loraAllLinear: true, weights: 'bf16' });
  });
  it('train_lora/qwen3_lora_sft_ds3.yaml: LoRA under ZeRO-3', () => {
    const { o } = optionsOf('llamafactory/examples/train_lora/qwen3_lora_sft_ds3.yaml', {
      gpus: 2,
    });
    expect(o).toMatchObject({
      method: 'lora',
      zero: 3,
      framework: 'deepspeed',
      masterWeights: false,
    });
  });
  it('train_qlora/qwen3_lora_sft_otfq.yaml: 4-bit bnb → QLoRA nf4 with double quantization', () => {
    const { o } = optionsOf('llamafactory/examples/train_qlora/qwen3_lora_sft_otfq.yaml');
    expect(o).toMatchObject({ method: 'qlora', weights: 'nf4', doubleQuant: true, loraRank: 8 });
  });
});

describe('LLaMA-Factory v1 (published examples/v1)', () => {
  it('train_lora_sft.yaml: LoRA r16 on all linear layers under FSDP2', () => {
    const { c, o } = optionsOf('llamafactory/examples/v1/train_lora/train_lora_sft.yaml', {
      gpus: 2,
    });
    expect(c.format).toBe('llamafactory');
    expect(c.model).toBe('Qwen/Qwen3-4B');
    expect(o).toMatchObject({
      method: 'lora',
      loraRank: 16,
      loraAllLinear: true,
      zero: 3,
      seq: 2048,
    });
  });
  it('quantization.yaml: 4-bit bnb → QLoRA nf4', () => {
    const { o } = optionsOf('llamafactory/examples/v1/train_qlora/quantization.yaml');
    expect(o).toMatchObject({ method: 'qlora', weights: 'nf4' });
  });
  it('train_full_deepspeed.yaml: the DeepSpeed file from the repo root', () => {
    const { c, o } = optionsOf('llamafactory/examples/v1/train_full/train_full_deepspeed.yaml', {
      gpus: 4,
    });
    expect(c.deepspeedFile).toMatch(/ds_z3_config\.json$/);
    expect(o).toMatchObject({
      method: 'full',
      zero: 3,
      framework: 'deepspeed',
      masterWeights: true,
    });
  });
});

describe('torchtune (published recipe configs)', () => {
  it('llama3_1/8B_lora_single_device.yaml: LoRA r8 on q,v,o + MLP, bf16, batch 2', () => {
    const { c, o } = optionsOf('torchtune/recipes/configs/llama3_1/8B_lora_single_device.yaml');
    expect(c.model).toBe('llama-3.1-8b');
    expect(o).toMatchObject({ method: 'lora', framework: 'torchtune', loraRank: 8, batch: 2 });
    expect(o.loraTargets).toEqual(['q', 'v', 'o', 'gate', 'up', 'down']);
    expect(o).toMatchObject({ checkpointing: 'full', chunkedLoss: true, weights: 'bf16' });
    expect(c.warnings.join('\n')).toMatch(/max_seq_len: null/);
  });
  it('llama3_1/8B_full_single_device.yaml: full bf16, paged 8-bit AdamW stepped in backward', () => {
    const { o } = optionsOf('torchtune/recipes/configs/llama3_1/8B_full_single_device.yaml');
    expect(o).toMatchObject({ method: 'full', weights: 'bf16', optimizer: 'paged-adamw-8bit' });
    expect(o.optimizerInBackward).toBe(true);
  });
  it('llama3_1/8B_qlora_single_device.yaml: QLoRA nf4', () => {
    const { o } = optionsOf('torchtune/recipes/configs/llama3_1/8B_qlora_single_device.yaml');
    expect(o).toMatchObject({ method: 'qlora', weights: 'nf4' });
  });
  it('llama3_1/70B_lora.yaml on 8 GPUs: FSDP FULL_SHARD (ZeRO-3); --seq overrides', () => {
    const { c, o } = optionsOf('torchtune/recipes/configs/llama3_1/70B_lora.yaml', {
      gpus: 8,
      seq: 4096,
    });
    expect(c.model).toBe('llama-3.1-70b');
    expect(o).toMatchObject({ zero: 3, gpus: 8, seq: 4096, loraRank: 16 });
  });
  it('qwen2_5/1.5B_lora_single_device.yaml maps the Qwen2.5 builder', () => {
    expect(
      optionsOf('torchtune/recipes/configs/qwen2_5/1.5B_lora_single_device.yaml').c.model,
    ).toBe('qwen2.5-1.5b');
  });
});

describe('TrainingArguments / TRL JSON, DeepSpeed JSON, Accelerate YAML', () => {
  it('TRL SFT QLoRA JSON', () => {
    const { c, o } = optionsOf('trl/sft-qlora.json');
    expect(c.format).toBe('hf-args');
    expect(o).toMatchObject({ method: 'qlora', weights: 'nf4', doubleQuant: true, loraRank: 16 });
    expect(o).toMatchObject({ batch: 4, seq: 2048, optimizer: 'paged-adamw-8bit' });
    expect(o.loraTargets).toEqual(['q', 'k', 'v', 'o']);
  });
  it('Trainer fsdp "full_shard auto_wrap offload"', () => {
    const { o } = optionsOf('trl/trainer-fsdp.json', { gpus: 8 });
    expect(o).toMatchObject({ zero: 3, offload: 'optimizer+params', weights: 'bf16', seq: 4096 });
  });
  it('DeepSpeed JSON alone: stage 2 with optimizer offload; flags give the rest', () => {
    const { c, o } = optionsOf('llamafactory/examples/deepspeed/ds_z2_offload_config.json', {
      gpus: 2,
      method: 'full',
    });
    expect(c.format).toBe('deepspeed');
    expect(c.model).toBeNull();
    expect(o).toMatchObject({ zero: 2, offload: 'optimizer', framework: 'deepspeed' });
    expect(o.masterWeights).toBe(true);
  });
  it("ZeRO-2 without overlap_comm: DeepSpeed's default below stage 3 is false, named as a serial reduce", () => {
    // DeepSpeed's own ZeRO-Offload example config (blogs/zenflow-corebinding zo_config.json) leaves the key out;
    // runtime/zero/config.py overlap_comm_valid sets it to stage == 3.
    const zero = (stage: number, extra = '') =>
      readFromConfig(
        writeTmp(
          `ds-z${stage}${extra === '' ? '' : '-set'}.json`,
          `{"bf16": {"enabled": true}, "zero_optimization": {"stage": ${stage}${extra}}}`,
        ),
      ).warnings.join('\n');
    expect(zero(2)).toMatch(/zero_optimization\.overlap_comm unset is false below stage 3/);
    expect(zero(3)).not.toMatch(/overlap_comm/);
    expect(zero(2, ', "overlap_comm": true')).not.toMatch(/overlap_comm/);
  });
  it('Accelerate FSDP2: 8 processes, reshard after forward (ZeRO-3), activation checkpointing', () => {
    const { c, o } = optionsOf('accelerate/fsdp2.yaml');
    expect(c.format).toBe('accelerate');
    expect(o).toMatchObject({ gpus: 8, zero: 3, checkpointing: 'full', compute: 'bf16' });
  });
  it('Accelerate DeepSpeed plugin: 16 processes on 2 machines, ZeRO-2 + optimizer offload', () => {
    const { flags, o } = optionsOf('accelerate/deepspeed-zero2.yaml');
    expect(o).toMatchObject({ gpus: 16, zero: 2, offload: 'optimizer', framework: 'deepspeed' });
    expect(flags['gpus-per-node']).toBe(8);
    expect(flags['grad-accum']).toBe(4);
  });
});

describe('flags beside --from win', () => {
  it('--method full drops the file quantized weights; --batch and --zero override', () => {
    const { o } = optionsOf('axolotl/examples/llama-3/qlora.yml', {
      method: 'full',
      batch: 7,
    });
    expect(o).toMatchObject({ method: 'full', weights: 'bf16', batch: 7, seq: 4096 });
  });
});

describe('bad files', () => {
  const write = (name: string, text: string) => {
    const f = join(tmp, name);
    writeFileSync(f, text);
    return f;
  };
  it('broken YAML names the file and line; exit 1 (bad input)', () => {
    const e = userErrorOf(() => readFromConfig(write('broken.yaml', 'base_model: x\n  bad: [\n')));
    expect(e.message).toMatch(/broken\.yaml: invalid YAML/);
    expect(e.exitCode).toBe(1);
  });
  it('wrong type names the key, the value and what is allowed', () => {
    const f = write('a.yml', 'base_model: x\nadapter: lora\nlora_r: many\n');
    expect(userErrorOf(() => readFromConfig(f)).message).toBe(
      `${f}: lora_r: got 'many'; expected an integer >= 1`,
    );
  });
  it('a typo of a memory key is an error with the key it likely meant', () => {
    const f = write('t.yml', 'base_model: x\nmicro_batch_sise: 4\n');
    expect(userErrorOf(() => readFromConfig(f)).message).toMatch(
      /micro_batch_sise: unknown axolotl YAML key; did you mean 'micro_batch_size'\?/,
    );
  });
  it('other unknown keys are listed in the warnings', () => {
    const f = write('u.yml', 'base_model: x\nmy_private_note: 3\n');
    expect(readFromConfig(f).warnings.join('\n')).toMatch(
      /unknown keys, not used: my_private_note/,
    );
  });
  it('a missing DeepSpeed file is an error naming the key and path', () => {
    const f = write('ds.yml', 'base_model: x\ndeepspeed: nowhere/zero9.json\n');
    expect(userErrorOf(() => readFromConfig(f)).message).toMatch(
      /ds\.yml: deepspeed: 'nowhere\/zero9\.json' not found/,
    );
  });
  it('a config of no known tool lists the formats', () => {
    const f = write('x.yaml', 'hello: world\n');
    expect(userErrorOf(() => readFromConfig(f)).message).toMatch(/cannot tell which tool.*axolotl/);
  });
});
