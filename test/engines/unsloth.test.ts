// Unsloth launcher: args against the plan, script import order, pins, the one-GPU rule and --from round trip.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { forbiddenBy } from '../../src/core/engines/rules.js';
import { UNSLOTH_PINS, emitUnsloth } from '../../src/core/engines/unsloth/launch.js';
import { UNSLOTH_RULES } from '../../src/core/engines/unsloth/rules.js';
import { mergeFlags } from '../../src/core/from/index.js';
import { buildLaunch, launchBlocker, type LaunchInput } from '../../src/core/launch/index.js';
import { readFromConfig } from '../../src/io/from/read.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { launchInputOf } from '../helpers/launch.js';

const input = (flags: Record<string, unknown>, gpu = 'a100-80gb'): LaunchInput =>
  launchInputOf('llama-3.1-8b', gpu, { framework: 'unsloth', ...flags });

type Args = {
  from_pretrained: Record<string, unknown>;
  get_peft_model: Record<string, unknown> | null;
  sft_config: Record<string, unknown>;
};

function files(x: LaunchInput): Record<string, string> {
  const out = emitUnsloth(x);
  if (!out.ok) throw new Error(out.reason);
  return Object.fromEntries(out.files.map((f) => [f.path, f.content]));
}

describe('emitUnsloth', () => {
  const x = input({
    method: 'qlora',
    'double-quant': true,
    'lora-rank': 32,
    'lora-targets': 'q,k,v,o',
    batch: 2,
    seq: 4096,
    checkpointing: 'offload',
    optimizer: 'paged-adamw-8bit',
  });
  const f = files(x);
  const args = JSON.parse(f['unsloth-args.json']!) as Args;

  it('writes the plan into unsloth-args.json', () => {
    expect(args.from_pretrained).toMatchObject({
      model_name: 'meta-llama/Llama-3.1-8B',
      max_seq_length: 4096,
      load_in_4bit: true,
      load_in_8bit: false,
      full_finetuning: false,
      use_gradient_checkpointing: 'unsloth',
    });
    expect(args.get_peft_model).toMatchObject({
      r: 32,
      lora_alpha: 32, // Unsloth's notebooks write lora_alpha = r
      lora_dropout: 0,
      target_modules: ['q_proj', 'k_proj', 'v_proj', 'o_proj'],
      use_gradient_checkpointing: 'unsloth',
    });
    expect(args.sft_config).toMatchObject({
      per_device_train_batch_size: 2,
      gradient_accumulation_steps: 4,
      max_length: 4096,
      optim: 'paged_adamw_8bit',
      bf16: true,
      fp16: false,
      padding_free: false,
      // Unsloth's SFT notebooks (unslothai/notebooks@bdda2efc nb/Llama3.1_(8B)-Alpaca.ipynb).
      lr_scheduler_type: 'linear',
      weight_decay: 0.001,
    });
    expect(args.sft_config).not.toHaveProperty('max_seq_length');
    expect(args.sft_config).not.toHaveProperty('warmup_ratio');
  });

  it('writes plain checkpointing and 16-bit LoRA explicitly', () => {
    const a = JSON.parse(
      files(input({ method: 'lora', checkpointing: 'full', 'lora-targets': 'all-linear' }))[
        'unsloth-args.json'
      ]!,
    ) as Args;
    expect(a.from_pretrained.load_in_4bit).toBe(false);
    expect(a.get_peft_model?.use_gradient_checkpointing).toBe(true);
    expect(a.get_peft_model?.target_modules).toHaveLength(7);
    const none = JSON.parse(
      files(input({ method: 'full', checkpointing: 'none' }))['unsloth-args.json']!,
    ) as Args;
    expect(none.from_pretrained).toMatchObject({
      full_finetuning: true,
      use_gradient_checkpointing: false,
    });
    expect(none.get_peft_model).toBeNull();
    expect(none.sft_config.gradient_checkpointing).toBe(false);
  });

  it('imports unsloth before trl and transformers', () => {
    const py = f['train_unsloth.py']!;
    const first = (s: string) => py.indexOf(s);
    expect(first('from unsloth import FastLanguageModel')).toBeGreaterThan(-1);
    for (const later of ['from trl', 'import transformers', 'from transformers', 'from datasets'])
      if (first(later) >= 0) expect(first('from unsloth')).toBeLessThan(first(later));
    expect(f['launch.sh']).toContain('python train_unsloth.py unsloth-args.json');
    expect(f['launch.sh']).toContain('CUDA_VISIBLE_DEVICES');
  });

  it('pins exactly UNSLOTH_PINS', () => {
    const lines = f['requirements.txt']!.split('\n').filter((l) => l && !l.startsWith('#'));
    expect(lines).toEqual(Object.entries(UNSLOTH_PINS).map(([k, v]) => `${k}==${v}`));
  });
});

describe('unsloth blocker and rules', () => {
  it('write a 2-GPU plan (torchrun) and refuse GRPO fast_inference under FSDP2', () => {
    const x = input({ method: 'lora', gpus: 2 });
    expect(
      forbiddenBy(UNSLOTH_RULES, { arch: x.arch, options: x.options, dp: 2, accum: 1 }),
    ).toBeNull();
    expect(launchBlocker(x)).toBeNull();
    const grpo = input({
      method: 'lora',
      gpus: 2,
      zero: 3,
      objective: 'grpo',
      rollout: 'vllm-colocate',
    });
    const rule = forbiddenBy(UNSLOTH_RULES, {
      arch: grpo.arch,
      options: grpo.options,
      dp: 2,
      accum: 1,
    });
    expect(rule?.id).toBe('unsloth-fast-inference-no-fsdp2');
    expect(rule?.source).toMatch(/loader_utils\.py:204-211/);
    expect(launchBlocker(grpo)).toContain('unsloth-fast-inference-no-fsdp2');
    expect(buildLaunch(grpo).outputs[0]).toMatchObject({ engine: 'unsloth', ok: false });
  });
  it('refuse an int8 LoRA with the fast_inference vLLM rollout, not a 16-bit one', () => {
    const at = (weights: string, rollout: string) => {
      const x = input({ method: 'lora', weights, objective: 'grpo', rollout });
      return forbiddenBy(UNSLOTH_RULES, { arch: x.arch, options: x.options, dp: 1, accum: 1 });
    };
    const rule = at('int8', 'vllm-colocate');
    expect(rule?.id).toBe('unsloth-fast-inference-no-int8');
    expect(rule?.source).toMatch(/loader_utils\.py:3945-3964/);
    expect(at('bf16', 'vllm-colocate')).toBeNull();
    expect(at('int8', 'hf')?.id).not.toBe('unsloth-fast-inference-no-int8');
  });
  it('accept a 1-GPU QLoRA plan and refuse fp4 and inference', () => {
    expect(launchBlocker(input({ method: 'qlora' }))).toBeNull();
    expect(launchBlocker(input({ method: 'qlora', weights: 'fp4' }))).toContain(
      'unsloth-4bit-is-nf4',
    );
    expect(launchBlocker(input({ method: 'inference' }))).toContain('inference');
  });
  it('every rule cites a source at a commit or tag', () => {
    // At a commit or tag, or in the pinned release's wheel (its source past 2026.8.19 is not on GitHub here), or
    // for advice (what vramplan writes, scope writer) the Unsloth guide that gives it.
    for (const r of UNSLOTH_RULES)
      expect(r.source).toMatch(
        r.scope === 'writer'
          ? /^https:\/\/unsloth\.ai\/docs\/\S+/
          : /\/blob\/(v[\d.]+|[0-9a-f]{40})\/|^https:\/\/pypi\.org\/project\/unsloth\/2026\.10\.9\/ \(wheel\) unsloth\//,
      );
  });
});

describe('unsloth launch folder → --from → the same options', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'vramplan-unsloth-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  const KEYS = [
    'method',
    'weights',
    'compute',
    'doubleQuant',
    'optimizer',
    'loraRank',
    'loraTargets',
    'loraAllLinear',
    'batch',
    'seq',
    'checkpointing',
    'gpus',
    'framework',
  ] as const;
  const CASES: Record<string, unknown>[] = [
    {
      method: 'qlora',
      'double-quant': true,
      'lora-rank': 32,
      'lora-targets': 'all-linear',
      batch: 2,
      seq: 4096,
      checkpointing: 'offload',
      optimizer: 'paged-adamw-8bit',
    },
    { method: 'lora', 'lora-targets': 'q,k,v,o', batch: 4, seq: 1024, checkpointing: 'full' },
    { method: 'lora', weights: 'int8', 'lora-rank': 8 },
    { method: 'full', checkpointing: 'offload', optimizer: 'adamw-8bit' },
  ];
  CASES.forEach((flags, i) => {
    it(JSON.stringify(flags), () => {
      const x = input(flags);
      const bundle = buildLaunch(x);
      expect(bundle.files.map((f) => f.path)).toContain('unsloth-args.json');
      const dir = join(tmp, `case-${i}`);
      mkdirSync(dir, { recursive: true });
      for (const f of bundle.files) writeFileSync(join(dir, f.path), f.content);
      const c = readFromConfig(dir);
      expect(c.format).toBe('unsloth');
      const merged = mergeFlags(c, {});
      const back = optionsFromFlags(merged);
      const pick = (o: typeof back) => Object.fromEntries(KEYS.map((k) => [k, o[k]]));
      expect(pick(back)).toEqual(pick(x.options));
      expect(merged['grad-accum']).toBe(4);
      expect(c.unknown).toEqual([]);
      expect(resolveModel(c.model!).id).toBe('llama-3.1-8b');
    });
  });
});
