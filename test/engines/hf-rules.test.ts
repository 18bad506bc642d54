// The Hugging Face engines' behaviour rules (src/core/engines/hf/rules.ts) and the launch files they shape.
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildLaunch, launchBlocker, type LaunchInput } from '../../src/core/launch/index.js';
import { ENGINE_PROFILES } from '../../src/core/engines/engines.js';
import { engineOf } from '../../src/core/engines/engine.js';
import {
  BNB_OPTIMIZER_FSDP,
  DEEPSPEED_NO_LOCAL_RANK,
  FLASH_ATTN_WHEEL,
  FSDP1_ONE_GPU_OFFLOAD,
  FSDP2_BNB_4BIT,
  FSDP_SHARDED_SAVE,
  HF_DEEPSPEED_RULES,
  HF_FSDP_RULES,
  HF_TRAINER_RULES,
  INT8_SHARDED,
  PEFT_ZERO3_REENTRANT,
  ZERO3_4BIT_OFFLOAD,
  ZERO3_QUANT_STORAGE,
  ruleInputOf,
} from '../../src/core/engines/hf/rules.js';
import { HF_PINS } from '../../src/core/engines/hf/trainer.js';
import type { Rule } from '../../src/core/engines/rules.js';
import {
  accelerateSchema,
  axolotlSchema,
  deepspeedSchema,
  hfArgsSchema,
} from '../fixtures/engine-schemas/index.js';
import { launchInputOf } from '../helpers/launch.js';

const input = (flags: Record<string, unknown>, extra: Partial<LaunchInput> = {}): LaunchInput =>
  launchInputOf('llama-3-8b', 'a100-80gb-sxm', flags, extra);

const fires = (r: Rule, flags: Record<string, unknown>) => r.applies(ruleInputOf(input(flags)));

/** The bundle's files by path (a missing file reads as an empty string). */
function files(x: LaunchInput): (path: string) => string {
  const b = buildLaunch(x).files;
  return (path) => b.find((f) => f.path === path)?.content ?? '';
}

describe('hf rules: each fires on the configuration it names and not on a neighbour', () => {
  const fsdpQlora = { zero: '3', gpus: '4', method: 'qlora' };
  const ds = { framework: 'deepspeed', gpus: '4' };
  it.each<[string, Rule, Record<string, unknown>, Record<string, unknown>]>([
    ['fsdp2-bnb-4bit', FSDP2_BNB_4BIT, fsdpQlora, { zero: '3', gpus: '4', method: 'lora' }],
    [
      'bnb-optimizer-fsdp',
      BNB_OPTIMIZER_FSDP,
      { zero: '3', gpus: '4', optimizer: 'adamw-8bit' },
      { zero: '3', gpus: '4', optimizer: 'adamw' },
    ],
    [
      'bnb-int8-sharded (FSDP)',
      INT8_SHARDED,
      { zero: '3', gpus: '4', method: 'lora', weights: 'int8' },
      { gpus: '4', method: 'lora', weights: 'int8' },
    ],
    [
      'bnb-int8-sharded (ZeRO-3)',
      INT8_SHARDED,
      { ...ds, zero: '3', method: 'lora', weights: 'int8' },
      { ...ds, zero: '2', method: 'lora', weights: 'int8' },
    ],
    [
      'deepspeed-no-local-rank',
      DEEPSPEED_NO_LOCAL_RANK,
      { ...ds, zero: '2' },
      { zero: '2', gpus: '4' },
    ],
    [
      'fsdp1-one-gpu-offload',
      FSDP1_ONE_GPU_OFFLOAD,
      { zero: '3', gpus: '1', method: 'qlora', offload: 'optimizer+params' },
      { zero: '3', gpus: '2', method: 'qlora', offload: 'optimizer+params' },
    ],
    ['fsdp-sharded-save', FSDP_SHARDED_SAVE, { zero: '2', gpus: '4' }, { gpus: '4' }],
    ['flash-attn-wheel', FLASH_ATTN_WHEEL, { attention: 'flash' }, { attention: 'sdpa' }],
    [
      'peft-zero3-reentrant',
      PEFT_ZERO3_REENTRANT,
      { ...ds, zero: '3', method: 'lora', checkpointing: 'full' },
      { ...ds, zero: '3', method: 'full', checkpointing: 'full' },
    ],
    [
      'zero3-fsdp-quant-storage',
      ZERO3_QUANT_STORAGE,
      { ...ds, zero: '3', method: 'qlora' },
      { ...ds, zero: '2', method: 'qlora' },
    ],
    [
      'deepspeed-zero3-4bit-offload',
      ZERO3_4BIT_OFFLOAD,
      { ...ds, gpus: '1', zero: '3', method: 'qlora', offload: 'optimizer+params' },
      { ...ds, gpus: '1', zero: '3', method: 'lora', offload: 'optimizer+params' },
    ],
  ])('%s', (_id, rule, on, off) => {
    expect(fires(rule, on)).toBe(true);
    expect(fires(rule, off)).toBe(false);
  });

  it('every rule cites a source, a pip specifier and a library', () => {
    for (const r of [...HF_TRAINER_RULES, ...HF_FSDP_RULES, ...HF_DEEPSPEED_RULES]) {
      expect(r.source).toMatch(/^https:\/\/github\.com\//);
      expect(r.versions).toMatch(/^[<>=]/);
      expect(r.id).toMatch(/^[a-z0-9-]+$/);
    }
  });

  it('the profiles carry the rules', () => {
    expect(ENGINE_PROFILES['hf-fsdp'].rules).toContain(BNB_OPTIMIZER_FSDP);
    expect(ENGINE_PROFILES['hf-deepspeed'].rules).toContain(DEEPSPEED_NO_LOCAL_RANK);
    expect(ENGINE_PROFILES['hf-trainer'].rules).toContain(FLASH_ATTN_WHEEL);
  });
});

describe('hf rules: forbid rules block the launch (and so the planner)', () => {
  it('bitsandbytes optimizers under FSDP are refused with the rule', () => {
    const x = input({ zero: '3', gpus: '4', optimizer: 'paged-adamw-8bit' });
    expect(engineOf(x.options)).toBe('hf-fsdp');
    expect(launchBlocker(x)).toContain('rule bnb-optimizer-fsdp');
    expect(buildLaunch(x).files.map((f) => f.path)).not.toContain('accelerate.yaml');
    // The neighbour: the same optimizer under DDP launches.
    expect(launchBlocker(input({ gpus: '4', optimizer: 'paged-adamw-8bit' }))).toBeNull();
  });

  it('a 4-bit FSDP1 plan on one GPU offloading its parameters is refused (NO_SHARD keeps them on the GPU)', () => {
    const x = input({ zero: '3', gpus: '1', method: 'qlora', offload: 'optimizer+params' });
    expect(engineOf(x.options)).toBe('hf-fsdp');
    expect(launchBlocker(x)).toContain('rule fsdp1-one-gpu-offload');
    // The neighbours: the same plan on two GPUs (FULL_SHARD frees after forward), and bf16 LoRA (FSDP2).
    expect(
      launchBlocker(
        input({
          zero: '3',
          gpus: '2',
          method: 'qlora',
          offload: 'optimizer+params',
          'double-quant': true,
        }),
      ),
    ).toBeNull();
    expect(
      launchBlocker(input({ zero: '3', gpus: '1', method: 'lora', offload: 'optimizer+params' })),
    ).toBeNull();
  });

  it("NF4 without double quantization on axolotl's sharded loader is refused; its dq twin, one GPU and fp4 run", () => {
    const sharded = { zero: '3', gpus: '4', method: 'qlora' };
    expect(launchBlocker(input(sharded))).toContain('rule axolotl-sharded-load-double-quant');
    expect(launchBlocker(input({ ...sharded, 'double-quant': true }))).toBeNull();
    // One rank loads whole (no sharded loader), and the loader takes NF4 only.
    expect(launchBlocker(input({ ...sharded, gpus: '1' }))).toBeNull();
    expect(launchBlocker(input({ ...sharded, weights: 'fp4' }))).toBeNull();
  });

  it('4-bit weights under ZeRO-3 with CPU offload are refused; without offload, or bf16 LoRA offloaded, they run', () => {
    const z3 = { framework: 'deepspeed', zero: '3', gpus: '1' };
    for (const offload of ['optimizer', 'optimizer+params'])
      expect(launchBlocker(input({ ...z3, method: 'qlora', offload }))).toContain(
        'rule deepspeed-zero3-4bit-offload',
      );
    expect(launchBlocker(input({ ...z3, method: 'qlora', offload: 'none' }))).toBeNull();
    expect(launchBlocker(input({ ...z3, method: 'lora', offload: 'optimizer+params' }))).toBeNull();
  });

  it('LLM.int8 weights under ZeRO-3 are refused with the rule', () => {
    const x = input({
      framework: 'deepspeed',
      zero: '3',
      gpus: '4',
      method: 'lora',
      weights: 'int8',
    });
    expect(launchBlocker(x)).toContain('rule bnb-int8-sharded');
  });
});

describe('hf launch files at the pinned releases', () => {
  it('DDP LoRA: hf-args parses, warmup_steps is a ratio, train.py imports peft, pins are new', () => {
    const f = files(input({ gpus: '2', method: 'lora', attention: 'flash' }));
    const a = hfArgsSchema.parse(JSON.parse(f('hf-args.json')));
    expect(a.sft_config.warmup_steps).toBe(0.03);
    expect(a.model_init_kwargs.attn_implementation).toBe('kernels-community/flash-attn2');
    expect(f('train.py')).toContain('from peft import LoraConfig');
    expect(f('requirements.txt')).toContain(`transformers==${HF_PINS.transformers}`);
    expect(f('requirements.txt')).toContain(`trl==${HF_PINS.trl}`);
    expect(f('requirements.txt')).toContain(`peft==${HF_PINS.peft}`);
    expect(f('requirements.txt')).toContain(`kernels==${HF_PINS.kernels}`);
    expect(f('requirements.txt')).not.toContain('flash-attn');
    accelerateSchema.parse(parse(f('accelerate.yaml')));
    expect(axolotlSchema.parse(parse(f('axolotl.yaml'))).attn_implementation).toBe(
      'kernels-community/flash-attn2',
    );
  });

  it('FSDP QLoRA: FSDP1 with FULL_STATE_DICT, bf16 quant storage', () => {
    const f = files(input({ zero: '3', gpus: '4', method: 'qlora', 'double-quant': true }));
    const acc = accelerateSchema.parse(parse(f('accelerate.yaml')));
    expect(acc.fsdp_config).toMatchObject({
      fsdp_version: 1,
      fsdp_reshard_after_forward: 'FULL_SHARD',
      fsdp_state_dict_type: 'FULL_STATE_DICT',
      fsdp_use_orig_params: false,
    });
    // NF4 loads through axolotl's qlora_sharded_model_loading, so train.py's args are written for fp4 only.
    expect(f('hf-args.json')).toBe('');
    const fp4 = files(input({ zero: '3', gpus: '4', method: 'qlora', weights: 'fp4' }));
    const a = hfArgsSchema.parse(JSON.parse(fp4('hf-args.json')));
    expect(a.bnb_config).toMatchObject({ bnb_4bit_quant_storage: 'bfloat16' });
    const axo = axolotlSchema.parse(parse(f('axolotl.yaml')));
    expect((parse(f('axolotl.yaml')) as Record<string, unknown>).qlora_sharded_model_loading).toBe(
      true,
    );
    expect(axo.fsdp_version).toBe(1);
    expect(axo.fsdp_config?.state_dict_type).toBe('FULL_STATE_DICT');
    const hf = buildLaunch(
      input({ zero: '3', gpus: '4', method: 'qlora', 'double-quant': true }),
    ).outputs.find((o) => o.engine === 'Hugging Face Accelerate');
    expect(hf?.ok && hf.notes.join('\n')).toContain('rule fsdp2-bnb-4bit');
  });

  it('bitsandbytes weights on a fused-expert MoE: the Trainer and axolotl notes say the experts stay unquantized', () => {
    const moe = (flags: Record<string, unknown>) =>
      buildLaunch(launchInputOf('qwen3-30b-a3b', 'h100-sxm', { 'lora-rank': 16, ...flags }))
        .outputs.filter((o) => o.ok && /Trainer|axolotl/.test(o.engine))
        .map((o) => (o.ok ? o.notes.join('\n') : ''));
    const noted = moe({ method: 'qlora' });
    expect(noted.length).toBeGreaterThan(0);
    for (const n of noted) expect(n).toContain('rule bnb-fused-experts-unquantized');
    for (const n of moe({ method: 'lora', weights: 'bf16' }))
      expect(n).not.toContain('bnb-fused-experts-unquantized');
    const dense = buildLaunch(input({ method: 'qlora' })).outputs.filter((o) => o.ok);
    for (const o of dense) expect(o.ok && o.notes.join('\n')).not.toContain('bnb-fused-experts');
  });

  it('FSDP full fine-tune: FSDP2, no peft import, no peft requirement', () => {
    const f = files(input({ zero: '3', gpus: '4' }));
    const acc = accelerateSchema.parse(parse(f('accelerate.yaml')));
    expect(acc.fsdp_config?.fsdp_version).toBe(2);
    expect(acc.fsdp_config?.fsdp_state_dict_type).toBe('FULL_STATE_DICT');
    expect(f('train.py')).not.toContain('peft');
    expect(f('requirements.txt')).not.toContain('peft');
  });

  it('ZeRO-3 full with offload: deepspeed.json parses, no peft', () => {
    const f = files(
      input({
        framework: 'deepspeed',
        zero: '3',
        gpus: '8',
        offload: 'optimizer+params',
        checkpointing: 'full',
      }),
    );
    const d = deepspeedSchema.parse(JSON.parse(f('deepspeed.json')));
    expect(d.zero_optimization.offload_param).toEqual({ device: 'cpu', pin_memory: true });
    hfArgsSchema.parse(JSON.parse(f('hf-args.json')));
    axolotlSchema.parse(parse(f('axolotl.yaml')));
    expect(f('train.py')).not.toContain('from peft');
    expect(f('requirements.txt')).toContain(`deepspeed==${HF_PINS.deepspeed}`);
  });

  it('ZeRO-3 LoRA with checkpointing: use_reentrant true (TRL forces it)', () => {
    const f = files(
      input({
        framework: 'deepspeed',
        zero: '3',
        gpus: '4',
        method: 'lora',
        checkpointing: 'full',
      }),
    );
    const a = hfArgsSchema.parse(JSON.parse(f('hf-args.json')));
    expect(a.sft_config.gradient_checkpointing_kwargs).toEqual({ use_reentrant: true });
  });

  it('multi-node DeepSpeed: the deepspeed launcher lines carry --no_local_rank', () => {
    const f = files(input({ framework: 'deepspeed', zero: '2', gpus: '16' }, { gpusPerNode: 8 }));
    deepspeedSchema.parse(JSON.parse(f('deepspeed.json')));
    accelerateSchema.parse(parse(f('accelerate.yaml')));
    expect(f('launch.sh')).toContain('deepspeed --hostfile hostfile --no_local_rank');
    expect(f('hostfile')).toContain('--no_local_rank');
  });
});
