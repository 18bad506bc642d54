// Every emitted engine file parses back and matches the engine's known keys, for several plans.
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildLaunch, type LaunchInput } from '../../src/core/launch/index.js';
import { renderLaunchReadme } from '../../src/ui/launch-readme.js';
import {
  accelerateSchema,
  axolotlSchema,
  deepspeedSchema,
  hfArgsSchema,
  torchtuneSchema,
} from '../fixtures/engine-schemas/index.js';
import { launchInputOf } from '../helpers/launch.js';

const input = launchInputOf;

const SCHEMAS = {
  'deepspeed.json': (s: string) => deepspeedSchema.parse(JSON.parse(s)),
  'hf-args.json': (s: string) => hfArgsSchema.parse(JSON.parse(s)),
  'accelerate.yaml': (s: string) => accelerateSchema.parse(parse(s)),
  'torchtune.yaml': (s: string) => torchtuneSchema.parse(parse(s)),
  'axolotl.yaml': (s: string) => axolotlSchema.parse(parse(s)),
} as const;

/** Parse every file of the bundle with its schema; returns the parsed objects by path. */
function parsed(x: LaunchInput): Record<string, unknown> {
  const b = buildLaunch(x);
  const out: Record<string, unknown> = {};
  for (const f of b.files) {
    const check = SCHEMAS[f.path as keyof typeof SCHEMAS];
    out[f.path] = check ? check(f.content) : f.content;
  }
  return out;
}

const get = <T>(m: Record<string, unknown>, p: string) => m[p] as T;
type HfArgs = ReturnType<typeof hfArgsSchema.parse>;
type Ds = ReturnType<typeof deepspeedSchema.parse>;
type Acc = ReturnType<typeof accelerateSchema.parse>;
type Tune = ReturnType<typeof torchtuneSchema.parse>;
type Axo = ReturnType<typeof axolotlSchema.parse>;

describe('launch: single-GPU QLoRA (llama-2-7b on an RTX 4090)', () => {
  const x = input(
    'llama-2-7b',
    'rtx-4090',
    {
      method: 'qlora',
      'double-quant': true,
      'lora-targets': 'all-linear',
      checkpointing: 'full',
      optimizer: 'paged-adamw-8bit',
      batch: '2',
    },
    { powerLimitW: 300 },
  );
  const m = parsed(x);

  it('writes Trainer/PEFT/bnb args with real key names and no DeepSpeed config', () => {
    expect(m['deepspeed.json']).toBeUndefined();
    const a = get<HfArgs>(m, 'hf-args.json');
    expect(a.bnb_config).toEqual({
      load_in_4bit: true,
      bnb_4bit_quant_type: 'nf4',
      bnb_4bit_use_double_quant: true,
      bnb_4bit_compute_dtype: 'bfloat16',
    });
    expect(a.lora_config?.target_modules).toBe('all-linear');
    expect(a.sft_config.optim).toBe('paged_adamw_8bit');
    expect(a.sft_config.gradient_checkpointing).toBe(true);
    expect(a.sft_config.per_device_train_batch_size).toBe(2);
    expect(a.sft_config.gradient_accumulation_steps).toBe(4);
    expect(get<Acc>(m, 'accelerate.yaml').distributed_type).toBe('NO');
  });

  it('writes an axolotl qlora config, and with --framework torchtune a torchtune QLoRA config only', () => {
    expect(m['torchtune.yaml']).toBeUndefined();
    const tune = parsed({ ...x, options: { ...x.options, framework: 'torchtune' } });
    expect(Object.keys(tune).sort()).toEqual([
      'power-limit.sh',
      'requirements.txt',
      'torchtune.yaml',
    ]);
    expect(get<Tune>(tune, 'torchtune.yaml').model._component_).toBe(
      'torchtune.models.llama2.qlora_llama2_7b',
    );
    const ax = get<Axo>(m, 'axolotl.yaml');
    expect(ax.adapter).toBe('qlora');
    expect(ax.load_in_4bit).toBe(true);
    expect(ax.lora_target_linear).toBe(true);
  });

  it('writes one nvidia-smi -pl line per GPU and a README with the breakdown and slowdown', () => {
    expect(String(m['power-limit.sh'])).toContain('sudo nvidia-smi -i 0 -pl 300');
    const readme = renderLaunchReadme(x, buildLaunch(x));
    expect(readme).toContain('## Memory per GPU');
    expect(readme).toContain('## Expected speed (vramplan time model)');
    expect(readme).toMatch(/tokens\/s per GPU .*bound by/);
    expect(readme).toContain('4-bit dequantization');
  });
});

describe('launch: 8-GPU ZeRO-3 full fine-tuning with offload (llama-2-70b on A100 80GB)', () => {
  const x = input('llama-2-70b', 'a100-80gb-sxm', {
    zero: '3',
    offload: 'optimizer+params',
    gpus: '8',
    checkpointing: 'full',
    framework: 'deepspeed',
  });
  const m = parsed(x);

  it('writes a DeepSpeed ZeRO-3 config with CPU offload that DeepSpeed owns the optimizer of', () => {
    const d = get<Ds>(m, 'deepspeed.json');
    expect(d.zero_optimization.stage).toBe(3);
    expect(d.zero_optimization.offload_optimizer?.device).toBe('cpu');
    expect(d.zero_optimization.offload_param?.device).toBe('cpu');
    expect(d.bf16.enabled).toBe(true);
    expect(d.optimizer?.type).toBe('AdamW');
    // train_batch_size = micro 1 x accum 4 x dp 8
    expect(d.train_batch_size).toBe(32);
  });

  it('points Accelerate and the Trainer at it', () => {
    const acc = get<Acc>(m, 'accelerate.yaml');
    expect(acc.distributed_type).toBe('DEEPSPEED');
    expect(acc.num_processes).toBe(8);
    expect(acc.deepspeed_config).toEqual({
      deepspeed_config_file: 'deepspeed.json',
      zero3_init_flag: true,
    });
    expect(get<HfArgs>(m, 'hf-args.json').sft_config.deepspeed).toBe('deepspeed.json');
    expect(String(m['launch.sh'])).toContain('torchrun --standalone --nproc_per_node 8');
  });

  it('writes torchtune distributed full fine-tuning with FSDP CPU offload (--framework torchtune)', () => {
    expect(m['torchtune.yaml']).toBeUndefined();
    const t = get<Tune>(
      parsed({ ...x, options: { ...x.options, framework: 'torchtune' } }),
      'torchtune.yaml',
    );
    expect(t.model._component_).toBe('torchtune.models.llama2.llama2_70b');
    expect(t.fsdp_cpu_offload).toBe(true);
    expect(t.fsdp_reshard_after_forward).toBe(true);
  });
});

describe('launch: FSDP', () => {
  // --framework hf with ZeRO is Accelerate FSDP (core/engines/engine.ts).
  // axolotl's sharded 4-bit loader always double-quantizes (hf/rules.ts axolotl-sharded-load-double-quant).
  const x = input('llama-3-8b', 'a100-80gb-sxm', {
    zero: '3',
    gpus: '4',
    method: 'qlora',
    'double-quant': true,
  });
  const m = parsed(x);

  it('writes an FSDP Accelerate config with the decoder layer class and no DeepSpeed file', () => {
    expect(m['deepspeed.json']).toBeUndefined();
    const acc = get<Acc>(m, 'accelerate.yaml');
    expect(acc.distributed_type).toBe('FSDP');
    expect(acc.mixed_precision).toBe('bf16');
    expect(acc.fsdp_config?.fsdp_transformer_layer_cls_to_wrap).toBe('LlamaDecoderLayer');
    // 4-bit weights run on FSDP1 (hf/rules.ts fsdp2-bnb-4bit): FULL_SHARD is ZeRO-3.
    expect(acc.fsdp_config?.fsdp_reshard_after_forward).toBe('FULL_SHARD');
    expect(get<Axo>(m, 'axolotl.yaml').fsdp_version).toBe(1);
  });

  it('stores 4-bit weights in the compute dtype so FSDP can flatten them', () => {
    // NF4 loads through axolotl's qlora_sharded_model_loading (no train.py args): the Trainer's file is fp4's.
    expect(m['hf-args.json']).toBeUndefined();
    const fp4 = (compute: string) =>
      parsed({ ...x, options: { ...x.options, weights: 'fp4', compute } as typeof x.options });
    expect(get<HfArgs>(fp4('bf16'), 'hf-args.json').bnb_config).toMatchObject({
      bnb_4bit_quant_storage: 'bfloat16',
    });
    // axolotl too: its own default would be bfloat16 whatever the compute dtype.
    expect(get<Axo>(m, 'axolotl.yaml').bnb_config_kwargs?.bnb_4bit_quant_storage).toBe('bfloat16');
    const fp16 = parsed({ ...x, options: { ...x.options, compute: 'fp16' } });
    expect(get<Axo>(fp16, 'axolotl.yaml').bnb_config_kwargs?.bnb_4bit_quant_storage).toBe(
      'float16',
    );
    expect(get<HfArgs>(fp4('fp16'), 'hf-args.json').bnb_config).toMatchObject({
      bnb_4bit_quant_storage: 'float16',
    });
  });

  it('skips FSDP for optimizer-only offload instead of writing a wrong config', () => {
    const y = input('llama-3-8b', 'a100-80gb-sxm', { zero: '2', gpus: '4', offload: 'optimizer' });
    const b = buildLaunch(y);
    expect(b.files.map((f) => f.path)).not.toContain('accelerate.yaml');
    expect(b.outputs.find((o) => o.engine === 'Hugging Face Accelerate')).toMatchObject({
      ok: false,
    });
  });
});

describe('launch: LoRA target module names per architecture', () => {
  const modules = (model: string, targets: string) =>
    get<HfArgs>(
      parsed(input(model, 'a100-80gb-sxm', { method: 'lora', 'lora-targets': targets })),
      'hf-args.json',
    ).lora_config?.target_modules;

  it('gpt_neox uses query_key_value / dense / dense_h_to_4h / dense_4h_to_h', () => {
    expect(modules('gpt-neox-20b', 'q,k,v,o,up,down')).toEqual([
      'query_key_value',
      'dense',
      'dense_h_to_4h',
      'dense_4h_to_h',
    ]);
  });
  it('falcon uses the fused query_key_value', () => {
    expect(modules('falcon-7b', 'q,v')).toEqual(['query_key_value']);
  });
  it('gpt_bigcode uses c_attn / attn.c_proj / c_fc / mlp.c_proj', () => {
    expect(modules('starcoder', 'q,o,up,down')).toEqual([
      'c_attn',
      'attn.c_proj',
      'c_fc',
      'mlp.c_proj',
    ]);
  });
  it('phi uses q/k/v_proj, dense, fc1, fc2; opt uses out_proj; llama uses gate_proj', () => {
    expect(modules('phi-2', 'q,k,v,o,up,down')).toEqual([
      'q_proj',
      'k_proj',
      'v_proj',
      'dense',
      'fc1',
      'fc2',
    ]);
    expect(modules('opt-1.3b', 'q,v,o')).toEqual(['q_proj', 'v_proj', 'out_proj']);
    expect(modules('llama-2-7b', 'q,k,v,o,gate,up,down')).toEqual([
      'q_proj',
      'k_proj',
      'v_proj',
      'o_proj',
      'gate_proj',
      'up_proj',
      'down_proj',
    ]);
  });
  it('bloom uses query_key_value; gpt-j uses out_proj and fc_in', () => {
    expect(modules('bloom-7b1', 'q,o')).toEqual(['query_key_value', 'dense']);
    expect(modules('gpt-j-6b', 'o,up')).toEqual(['out_proj', 'fc_in']);
  });
});

describe('launch: plans an engine cannot express are skipped with a reason', () => {
  it('Adam-mini under ZeRO: no DeepSpeed config, no Trainer args', () => {
    const b = buildLaunch(
      input('llama-2-7b', 'a100-80gb-sxm', {
        zero: '2',
        gpus: '2',
        optimizer: 'adam-mini',
        framework: 'deepspeed',
      }),
    );
    expect(b.files.map((f) => f.path)).not.toContain('deepspeed.json');
    const ds = b.outputs.find((o) => o.engine === 'DeepSpeed');
    expect(ds?.ok === false && ds.reason).toMatch(/Adam-mini/);
  });
  it('optimizer-in-backward: torchtune only', () => {
    const hf = buildLaunch(input('llama-2-7b', 'a100-80gb-sxm', { 'optimizer-in-backward': true }));
    expect(hf.files).toEqual([]);
    const b = buildLaunch(
      // One micro-batch per step: the recipe raises for optimizer_in_bwd with accumulation (rule torchtune-optimizer-in-bwd-accum).
      input(
        'llama-2-7b',
        'a100-80gb-sxm',
        { 'optimizer-in-backward': true, framework: 'torchtune' },
        { gradAccum: 1 },
      ),
    );
    expect(b.files.map((f) => f.path)).toEqual(['torchtune.yaml', 'requirements.txt']);
    expect(parse(b.files[0]!.content).optimizer_in_bwd).toBe(true);
  });
  it('int4 base weights: no bitsandbytes config', () => {
    const b = buildLaunch(input('llama-2-7b', 'rtx-4090', { method: 'qlora', weights: 'int4' }));
    expect(b.files.map((f) => f.path)).not.toContain('hf-args.json');
  });
  it('8-bit AdamW with ZeRO-Offload: skipped (no CPU implementation)', () => {
    const b = buildLaunch(
      input('llama-2-7b', 'a100-80gb-sxm', {
        zero: '2',
        gpus: '2',
        offload: 'optimizer',
        optimizer: 'adamw-8bit',
      }),
    );
    expect(b.files).toEqual([]);
  });
});
