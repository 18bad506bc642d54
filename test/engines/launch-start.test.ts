// Launch folders that start: each file read the way its engine reads it (the FSDP save and its merge, the
// multi-node alternatives, GRPO's recipe values, axolotl's own environment, the README of each kind).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildLaunch, type LaunchInput } from '../../src/core/launch/index.js';
import { renderLaunchReadme } from '../../src/ui/launch-readme.js';
import { launchInputOf } from '../helpers/launch.js';

const tmp = mkdtempSync(join(tmpdir(), 'vramplan-launch-start-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const filesOf = (x: LaunchInput): Record<string, string> =>
  Object.fromEntries(buildLaunch(x).files.map((f) => [f.path, f.content]));

describe('FSDP full fine-tunes with CPU offload save sharded, then merge', () => {
  const offloaded = launchInputOf('llama-3.1-70b', 'h100-sxm', {
    method: 'full',
    zero: '3',
    offload: 'optimizer+params',
    gpus: '8',
    checkpointing: 'full',
  });

  it('accelerate.yaml and axolotl.yaml: SHARDED_STATE_DICT (no rank-0 gather of model and optimizer)', () => {
    const f = filesOf(offloaded);
    const acc = parse(f['accelerate.yaml']!) as { fsdp_config: Record<string, unknown> };
    expect(acc.fsdp_config.fsdp_offload_params).toBe(true);
    expect(acc.fsdp_config.fsdp_state_dict_type).toBe('SHARDED_STATE_DICT');
    const ax = parse(f['axolotl.yaml']!) as { fsdp_config: Record<string, unknown> };
    expect(ax.fsdp_config.state_dict_type).toBe('SHARDED_STATE_DICT');
    // Without offload the Trainer's save_model path stays FULL_STATE_DICT (rule fsdp-sharded-save).
    const onGpu = filesOf({ ...offloaded, options: { ...offloaded.options, offload: 'none' } });
    const acc2 = parse(onGpu['accelerate.yaml']!) as { fsdp_config: Record<string, unknown> };
    expect(acc2.fsdp_config.fsdp_state_dict_type).toBe('FULL_STATE_DICT');
    expect(onGpu['launch.sh']).not.toContain('merge-weights');
  });

  it('launch.sh merges the last checkpoint where the Trainer wrote its FSDP shards', () => {
    const sh = filesOf(offloaded)['launch.sh']!;
    // Run the script with accelerate stubbed: it records its arguments. The Trainer saved checkpoints 50 and
    // 200 (Trainer._save_optimizer_and_scheduler -> save_fsdp_model: <checkpoint>/pytorch_model_fsdp_0).
    const dir = join(tmp, 'fsdp');
    for (const step of [50, 200])
      mkdirSync(join(dir, 'outputs', `checkpoint-${step}`, 'pytorch_model_fsdp_0'), {
        recursive: true,
      });
    writeFileSync(join(dir, 'launch.sh'), sh);
    const bin = join(tmp, 'bin');
    mkdirSync(bin, { recursive: true });
    for (const tool of ['accelerate', 'python'])
      writeFileSync(join(bin, tool), `#!/usr/bin/env bash\necho "${tool} $*" >> calls.txt\n`, {
        mode: 0o755,
      });
    const r = spawnSync('bash', [join(dir, 'launch.sh')], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` },
    });
    expect(r.status, r.stderr).toBe(0);
    const calls = spawnSync('cat', [join(dir, 'calls.txt')], { encoding: 'utf8' })
      .stdout.trim()
      .split('\n');
    expect(calls[0]).toMatch(
      /^accelerate launch --config_file accelerate\.yaml train\.py hf-args\.json$/,
    );
    expect(calls[1]).toBe(
      'accelerate merge-weights outputs/checkpoint-200/pytorch_model_fsdp_0 outputs',
    );
    // The config and tokenizer saved beside the merged weights, from the model hf-args.json names.
    expect(calls[2]).toMatch(
      /^python -c import json; .*AutoConfig\.from_pretrained\(m\)\.save_pretrained\("outputs"\)/,
    );
  });
});

describe('multi-node alternatives run what the plan runs', () => {
  it('two-node FSDP: no torchrun line (it would run plain DDP); DeepSpeed keeps its launcher alternatives', () => {
    const fsdp = filesOf(
      launchInputOf(
        'llama-3.1-8b',
        'h100-sxm',
        { method: 'full', zero: '3', gpus: '16' },
        { gpusPerNode: 8 },
      ),
    )['launch.sh']!;
    expect(fsdp).toContain('accelerate launch --config_file accelerate.yaml --machine_rank');
    expect(fsdp).not.toMatch(/torchrun/);
    const ds = filesOf(
      launchInputOf(
        'llama-3.1-8b',
        'h100-sxm',
        { method: 'full', zero: '3', gpus: '16', framework: 'deepspeed' },
        { gpusPerNode: 8 },
      ),
    )['launch.sh']!;
    expect(ds).toMatch(/# torchrun --nnodes 2 --nproc_per_node 8/);
  });
});

describe('GRPO writes its recipe values', () => {
  const grpo = (method: string) =>
    launchInputOf('qwen2.5-7b', 'h100-sxm', {
      method,
      objective: 'grpo',
      'lora-targets': 'all-linear',
      gpus: '1',
      ...(method === 'full' ? { optimizer: 'adamw-8bit', checkpointing: 'full' } : {}),
    });

  it("learning rate: TRL's GRPO rates, GRPOConfig's 1e-6 full and ten times it (1e-5) for adapters", () => {
    // TRL v1.9.0 docs/source/peft_integration.md, "Recommended learning rates": GRPO 1.0e-6 full, 1.0e-5 LoRA.
    const lora = filesOf(grpo('lora'));
    const args = JSON.parse(lora['hf-args.json']!) as {
      grpo_config: Record<string, unknown>;
      lora_config: Record<string, unknown>;
    };
    expect(args.grpo_config.learning_rate).toBe(1e-5);
    expect(args.lora_config.target_modules).toBe('all-linear');
    expect(lora['axolotl.yaml']).toMatch(/^learning_rate: 0\.00001$/m);
    const full = JSON.parse(filesOf(grpo('full'))['hf-args.json']!) as {
      grpo_config: Record<string, unknown>;
    };
    expect(full.grpo_config.learning_rate).toBe(1e-6);
    // DeepSpeed's optimizer block carries the same rate.
    const ds = filesOf(
      launchInputOf('qwen2.5-1.5b', 'rtx-4090', {
        method: 'lora',
        objective: 'grpo',
        framework: 'deepspeed',
        zero: '2',
        gpus: '1',
      }),
    )['deepspeed.json']!;
    const opt = (JSON.parse(ds) as { optimizer?: { params: { lr: number } } }).optimizer;
    expect(opt?.params.lr).toBe(1e-5);
  });
});

describe('axolotl installs apart, on its own pins', () => {
  it('requirements-axolotl.txt pins axolotl (the deepspeed extra with DeepSpeed) and a torch inside its range', () => {
    const f = filesOf(launchInputOf('llama-3.1-8b', 'h100-sxm', { method: 'lora', gpus: '1' }));
    const req = f['requirements-axolotl.txt']!.split('\n').filter((l) => l && !l.startsWith('#'));
    expect(req).toEqual(['axolotl==0.19.0', 'torch==2.12.1']);
    expect(f['axolotl.yaml']).toContain('requirements-axolotl.txt');
    const ds = filesOf(
      launchInputOf('llama-3.1-8b', 'h100-sxm', {
        method: 'full',
        zero: '2',
        gpus: '4',
        framework: 'deepspeed',
      }),
    )['requirements-axolotl.txt']!;
    expect(ds).toContain('axolotl[deepspeed]==0.19.0');
  });
});

describe('each README carries only the rows of its kind', () => {
  it('a serving README: no optimizer, accumulation, recompute or learning-rate rows', () => {
    const x = launchInputOf('llama-3.1-8b', 'h100-sxm', {
      method: 'inference',
      framework: 'vllm',
      batch: '16',
      seq: '4096',
    });
    const readme = renderLaunchReadme(x, buildLaunch(x));
    for (const training of [
      '| optimizer |',
      'gradient accumulation',
      'activation checkpointing',
      'Learning rate',
      'chunked loss',
      '| sharding |',
      'trainable',
    ])
      expect(readme).not.toContain(training);
    expect(readme).toContain('| sequences at once x context | 16 x 4096 tokens |');
    expect(readme).toContain('| KV cache | model dtype |');
  });

  it('a training README keeps them; torchtitan and LitGPT say which file to edit (not train.py)', () => {
    const x = launchInputOf('llama-3.1-8b', 'h100-sxm', {
      method: 'full',
      weights: 'fp32',
      zero: '3',
      gpus: '8',
      framework: 'torchtitan',
    });
    const readme = renderLaunchReadme(x, buildLaunch(x));
    expect(readme).toContain('| optimizer |');
    expect(readme).toContain('torchtitan_vramplan.py');
    expect(readme).not.toContain('train.py');
  });
});
