/**
 * axolotl's `rl:` configs: a preference / RL plan on the Hugging Face engines writes axolotl.yaml
 * with rl, its beta / reference / GRPO keys (trl:, vllm:) and a dataset its prompt strategies read (GRPO:
 * rewards.py beside it), and `--from axolotl.yaml` reads back the plan's options and bytes.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { buildEstimate } from '../../src/core/estimate.js';
import { mergeFlags } from '../../src/core/from/index.js';
import { buildLaunch, launchBlocker, type LaunchInput } from '../../src/core/launch/index.js';
import { readFromConfig } from '../../src/io/from/read.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { launchInputOf } from '../helpers/launch.js';

const tmp = mkdtempSync(join(tmpdir(), 'vramplan-axolotl-rl-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;

/** Launches `x`, reads axolotl.yaml back with --from: the same options and bytes; returns its files. */
function roundTrip(x: LaunchInput): Record<string, string> {
  expect(launchBlocker(x)).toBeNull();
  const bundle = buildLaunch(x);
  const dir = join(tmp, String(n++));
  mkdirSync(dir, { recursive: true });
  const files: Record<string, string> = {};
  for (const f of bundle.files) {
    writeFileSync(join(dir, f.path), f.content);
    files[f.path] = f.content;
  }
  expect(files['axolotl.yaml'], JSON.stringify(bundle.outputs)).toBeDefined();
  const c = readFromConfig(join(dir, 'axolotl.yaml'));
  expect(c.format).toBe('axolotl');
  expect(c.unknown).toEqual([]);
  // axolotl.yaml names no GPU count (`axolotl train` / accelerate.yaml give it).
  const flags = { ...mergeFlags(c, { gpus: x.options.gpus }), framework: x.options.framework };
  const back = withEngineDefaults(optionsFromFlags(flags), flags);
  expect(back).toEqual(x.options);
  expect(buildEstimate(x.arch, back, x.gpu).perGpu.deviceBytes).toBe(x.estimate.perGpu.deviceBytes);
  return files;
}

const hf = (flags: Record<string, unknown>): LaunchInput =>
  launchInputOf('llama-3.1-8b', 'h100-sxm', { framework: 'hf', ...flags });

describe('axolotl rl: configs written beside TRL train.py', () => {
  it('DPO (reference model or precomputed), KTO, ORPO and SimPO: rl, beta and a prompt strategy', () => {
    const cases: [Record<string, unknown>, Record<string, unknown>, string][] = [
      [
        { method: 'lora', objective: 'dpo', seq: 2048 },
        { rl: 'dpo', rl_beta: 0.1, precompute_ref_log_probs: false },
        'chatml.intel',
      ],
      [
        { method: 'qlora', objective: 'dpo', reference: 'precomputed' },
        { rl: 'dpo', precompute_ref_log_probs: true },
        'chatml.intel',
      ],
      [
        { method: 'lora', objective: 'kto', batch: 2 },
        { rl: 'kto', rl_beta: 0.1 },
        'chatml.argilla_chat',
      ],
      [
        { method: 'full', objective: 'orpo', gpus: 2, zero: 3 },
        { rl: 'orpo', rl_beta: 0.1, chat_template: 'chatml' },
        'chat_template.argilla',
      ],
      [
        { method: 'lora', objective: 'simpo' },
        { rl: 'simpo', simpo_gamma: 0.5, cpo_alpha: 0 },
        'chatml.intel',
      ],
    ];
    for (const [flags, keys, type] of cases) {
      const x = hf(flags);
      const f = roundTrip(x);
      const y = parse(f['axolotl.yaml']!) as Record<string, unknown>;
      expect(y).toMatchObject({ ...keys, sequence_len: x.options.seq });
      expect((y.datasets as Record<string, unknown>[])[0]!.type).toBe(type);
      expect(y).not.toHaveProperty('trl');
      expect(f['rewards.py']).toBeUndefined();
      // The keys come before the dataset (read top to bottom as axolotl's examples are).
      const text = f['axolotl.yaml']!;
      expect(text.indexOf('\nrl: ')).toBeLessThan(text.indexOf('\ndatasets:'));
    }
  });

  it('GRPO with transformers generate and with vLLM colocated: trl and vllm blocks, rewards.py', () => {
    const x = hf({
      method: 'lora',
      objective: 'grpo',
      rollout: 'vllm-colocate',
      'rollout-memory': 0.4,
      reference: 'model',
      generations: 8,
      'prompt-tokens': 512,
      'completion-tokens': 1024,
      batch: 8,
    });
    const f = roundTrip(x);
    const y = parse(f['axolotl.yaml']!) as Record<string, Record<string, unknown>>;
    expect(y.rl).toBe('grpo');
    expect(y.sequence_len).toBe(1536);
    expect(y.trl).toMatchObject({
      beta: 0.04,
      num_generations: 8,
      // The longest completion: ceil(1.47 x the mean 1024) = 1506.
      max_completion_length: 1506,
      use_vllm: true,
      vllm_mode: 'colocate',
      reward_funcs: ['rewards.placeholder_reward'],
    });
    // TRL's default generation batch: micro-batch 8 x 1 process x accumulation 4, whole groups of 8.
    expect(y.trl!.generation_batch_size).toBe(32);
    expect(y.vllm).toEqual({ gpu_memory_utilization: 0.4, tensor_parallel_size: 1 });
    expect((y.datasets as unknown as Record<string, unknown>[])[0]!.type).toBe(
      'rewards.prompt_transform',
    );
    expect(f['rewards.py']).toContain('def placeholder_reward(prompts, completions, **kwargs):');
    expect(f['rewards.py']).toContain('def prompt_transform(cfg, *args, **kwargs):');

    const plain = hf({ method: 'lora', objective: 'grpo', rollout: 'hf', batch: 8 });
    const g = parse(roundTrip(plain)['axolotl.yaml']!) as Record<string, Record<string, unknown>>;
    expect(g.trl).toMatchObject({ use_vllm: false, beta: 0 });
    expect(g.trl).not.toHaveProperty('vllm_mode');
    expect(g).not.toHaveProperty('vllm');
  });

  it("GRPO server mode: TRL's files only, axolotl says why", () => {
    const x = hf({
      method: 'lora',
      objective: 'grpo',
      rollout: 'vllm-server',
      gpus: 4,
      'rollout-gpus': 2,
    });
    const bundle = buildLaunch(x);
    expect(bundle.files.map((f) => f.path)).toContain('hf-args.json');
    expect(bundle.files.map((f) => f.path)).not.toContain('axolotl.yaml');
    const axolotl = bundle.outputs.find((o) => o.engine === 'axolotl');
    expect(axolotl && !axolotl.ok && axolotl.reason).toMatch(/vllm-serve/);
  });

  it("an axolotl GRPO config without a vllm block takes axolotl's 0.9 share (VllmConfig default)", () => {
    const dir = join(tmp, 'hand');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'grpo.yaml');
    writeFileSync(
      file,
      'base_model: Qwen/Qwen2.5-1.5B-Instruct\nrl: grpo\ntrl:\n  use_vllm: true\n  num_generations: 4\n  max_completion_length: 256\nsequence_len: 768\nmicro_batch_size: 4\n',
    );
    const c = readFromConfig(file);
    expect(c.flags).toMatchObject({
      objective: 'grpo',
      rollout: 'vllm-colocate',
      'rollout-memory': 0.9,
      generations: 4,
      'completion-tokens': 174, // the mean of a longest 256: floor(256 / 1.47)
      seq: 768,
    });
  });
});
