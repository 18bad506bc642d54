// LitGPT launcher (litgpt 0.5.13): litgpt.yaml against the plan, launch.sh, pins, blocker and rules, and the
// launch folder read back with --from.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { engineFieldsInto, onEngine } from '../../src/core/engines/engines.js';
import { emitLitgpt, litgptBlocker } from '../../src/core/engines/litgpt/launch.js';
import { LITGPT_PINS, LITGPT_RULES } from '../../src/core/engines/litgpt/rules.js';
import { LITGPT_MODELS } from '../../src/core/engines/litgpt/models.js';
import { litgptWithScript, mapLitgpt } from '../../src/core/engines/litgpt/from.js';
import { ruleReason } from '../../src/core/engines/rules.js';
import { buildEstimate } from '../../src/core/estimate.js';
import { detectFormat, mergeFlags } from '../../src/core/from/index.js';
import { buildLaunch, launchBlocker, type LaunchInput } from '../../src/core/launch/index.js';
import { readFromConfig } from '../../src/io/from/read.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';

const gpu = findGpu('a100-80gb');

function input(
  model: string,
  flags: Record<string, unknown>,
  extra: Partial<LaunchInput> = {},
): LaunchInput {
  const arch = resolveModel(model);
  const options = onEngine(optionsFromFlags({ framework: 'litgpt', ...flags }), 'litgpt');
  return {
    arch,
    options,
    gpu,
    gradAccum: 4,
    powerLimitW: null,
    estimate: buildEstimate(arch, options, gpu),
    modelRef: arch.hfId ?? model,
    ...extra,
  };
}

type Files = Record<string, string>;
function files(x: LaunchInput): Files {
  const out = emitLitgpt(x);
  if (!out.ok) throw new Error(out.reason);
  return Object.fromEntries(out.files.map((f) => [f.path, f.content]));
}
type Yaml = Record<string, unknown> & {
  train: Record<string, unknown>;
  eval: Record<string, unknown>;
  optimizer: { class_path: string; init_args: Record<string, unknown> };
};
const yamlOf = (f: Files) => parse(f['litgpt.yaml']!) as Yaml;

describe('litgpt.yaml: single-GPU QLoRA (llama-3.1-8b)', () => {
  const x = input('llama-3.1-8b', {
    method: 'qlora',
    'double-quant': true,
    optimizer: 'paged-adamw',
    'lora-rank': 32,
    'lora-targets': 'all-linear',
    batch: 2,
    seq: 4096,
  });
  const f = files(x);
  const y = yamlOf(f);

  it('names the registry checkpoint, quantize mode and a -true precision', () => {
    expect(y.checkpoint_dir).toBe('checkpoints/meta-llama/Meta-Llama-3.1-8B');
    expect(y.quantize).toBe('bnb.nf4-dq');
    expect(y.precision).toBe('bf16-true');
    expect(y.devices).toBe(1);
    expect(y.num_nodes).toBe(1);
  });
  it('LoRA rank and every adapted projection', () => {
    expect(y.lora_r).toBe(32);
    expect(y.lora_alpha).toBe(64);
    for (const k of ['lora_query', 'lora_key', 'lora_value', 'lora_projection', 'lora_mlp'])
      expect(y[k], k).toBe(true);
    expect(y.lora_head).toBe(false);
  });
  it('micro and global batch (micro x accum x dp), sequence, optimizer', () => {
    expect(y.train.micro_batch_size).toBe(2);
    expect(y.train.global_batch_size).toBe(2 * 4 * 1);
    expect(y.train.max_seq_length).toBe(4096);
    expect(y.train.max_norm).toBeUndefined();
    expect(y.train.epochs).toBe(1);
    expect(y.eval.max_new_tokens).toBe(100);
    expect(y.optimizer.class_path).toBe('bitsandbytes.optim.PagedAdamW');
    expect(y.optimizer.init_args.lr).toBe(2e-4);
  });
  it('launch.sh downloads the converted checkpoint, then runs finetune_lora with the config', () => {
    const sh = f['launch.sh']!;
    expect(sh).toContain(
      '[ -f checkpoints/meta-llama/Meta-Llama-3.1-8B/lit_model.pth ] || litgpt download meta-llama/Meta-Llama-3.1-8B',
    );
    expect(sh).toContain(
      'litgpt finetune_lora checkpoints/meta-llama/Meta-Llama-3.1-8B --config litgpt.yaml',
    );
    expect(sh).not.toContain('NODE_RANK');
  });
  it('requirements.txt pins litgpt 0.5.13 with torch, lightning and bitsandbytes', () => {
    const pins = f['requirements.txt']!.split('\n').filter((l) => l && !l.startsWith('#'));
    expect(pins).toEqual([...LITGPT_PINS]);
    expect(pins).toContain('litgpt[extra]==0.5.13');
    expect(pins.some((p) => p.startsWith('torch=='))).toBe(true);
    expect(pins.some((p) => p.startsWith('lightning=='))).toBe(true);
    expect(pins.some((p) => p.startsWith('bitsandbytes=='))).toBe(true);
  });
});

describe('litgpt.yaml: multi-GPU plans', () => {
  it('2-GPU LoRA: devices 2, no quantize, global batch over both ranks, attention-only targets', () => {
    const x = input('llama-2-7b', {
      method: 'lora',
      gpus: 2,
      zero: 3,
      checkpointing: 'full',
      'lora-targets': 'q,k,v,o',
      batch: 4,
      seq: 1024,
    });
    const y = yamlOf(files(x));
    expect(y.checkpoint_dir).toBe('checkpoints/meta-llama/Llama-2-7b-hf');
    expect(y.quantize).toBeUndefined();
    expect(y.precision).toBe('bf16-true');
    expect(y.devices).toBe(2);
    expect(y.train.global_batch_size).toBe(4 * 4 * 2);
    expect(y.lora_projection).toBe(true);
    expect(y.lora_mlp).toBe(false);
    expect(y.optimizer.class_path).toBe('torch.optim.AdamW');
  });
  it('full fine-tune over fp32 weights: bf16-mixed, finetune_full, no LoRA keys', () => {
    const f = files(
      input('qwen2.5-7b', {
        method: 'full',
        weights: 'fp32',
        gpus: 4,
        zero: 3,
        checkpointing: 'full',
        optimizer: 'sgd-momentum',
      }),
    );
    const y = yamlOf(f);
    expect(y.precision).toBe('bf16-mixed');
    expect(y.devices).toBe(4);
    expect(Object.keys(y).filter((k) => k.startsWith('lora_') || k === 'quantize')).toEqual([]);
    expect(y.optimizer).toEqual({
      class_path: 'torch.optim.SGD',
      init_args: { lr: 2e-5, momentum: 0.9 },
    });
    expect(f['launch.sh']).toContain(
      'litgpt finetune_full checkpoints/Qwen/Qwen2.5-7B --config litgpt.yaml',
    );
  });
  it('two machines: devices per node, num_nodes, NODE_RANK/MASTER_ADDR in launch.sh', () => {
    const f = files(
      input(
        'llama-3.1-70b',
        { method: 'full', gpus: 16, zero: 3, checkpointing: 'full' },
        { gpusPerNode: 8 },
      ),
    );
    const y = yamlOf(f);
    expect(y.devices).toBe(8);
    expect(y.num_nodes).toBe(2);
    expect(y.train.global_batch_size).toBe(1 * 4 * 16);
    expect(f['launch.sh']).toContain('NODE_RANK');
    expect(f['launch.sh']).toContain('MASTER_PORT=${MASTER_PORT:-29500}');
  });
});

describe('litgptBlocker and LITGPT_RULES', () => {
  const plan = (model: string, flags: Record<string, unknown>) => {
    const x = input(model, flags);
    return { arch: x.arch, options: x.options };
  };
  const rule = (id: string) => LITGPT_RULES.find((r) => r.id === id)!;

  it('a model outside the registry is refused, naming why', () => {
    const why = launchBlocker(plan('opt-1.3b', { method: 'lora' }));
    expect(why).toMatch(/^LitGPT 0\.5\.13 does not run model_type 'opt': .*litgpt\/config\.py/);
    const out = buildLaunch(input('opt-1.3b', { method: 'lora' }));
    expect(out.outputs[0]).toMatchObject({ engine: 'litgpt', ok: false });
    expect(out.files.map((f) => f.path)).not.toContain('litgpt.yaml');
  });
  it('2-GPU QLoRA is refused with the single-device quantize rule', () => {
    const p = plan('llama-2-7b', {
      method: 'qlora',
      gpus: 2,
      zero: 3,
      checkpointing: 'full',
      optimizer: 'paged-adamw',
    });
    expect(launchBlocker(p)).toBe(ruleReason(rule('litgpt-quantize-one-device')));
    expect(launchBlocker(p)).toBe(launchBlocker(p));
  });
  it('every forbid rule makes the blocker return its sentence', () => {
    const cases: Record<string, Record<string, unknown>> = {
      'litgpt-int8-needs-fp16': { method: 'lora', weights: 'int8', optimizer: 'paged-adamw' },
      'litgpt-quantize-paged-adamw': { method: 'qlora', optimizer: 'adamw' },
      'litgpt-multi-gpu-full-shard': { method: 'full', gpus: 2, checkpointing: 'full' },
      'litgpt-multi-gpu-checkpointing': { method: 'full', gpus: 2, zero: 3 },
      'litgpt-one-gpu-no-checkpointing': { method: 'lora', checkpointing: 'full' },
      'litgpt-lora-mlp-together': { method: 'lora', 'lora-targets': 'q,v,gate' },
      'litgpt-no-embedding-lora': { method: 'lora', 'lora-targets': 'q,v,embed' },
      'litgpt-full-unchunked-head': { method: 'full', 'chunked-loss': true },
    };
    const forbids = LITGPT_RULES.filter(
      (r) =>
        r.effect === 'forbid' &&
        r.id !== 'litgpt-quantize-one-device' &&
        r.id !== 'litgpt-architecture',
    ).map((r) => r.id);
    expect(Object.keys(cases).sort()).toEqual(forbids.sort());
    for (const [id, flags] of Object.entries(cases)) {
      const p = plan('llama-3.1-8b', flags);
      // The engine's fields run its own loss kernel (unchunked on a full fine-tune): a plan file's options
      // that say chunked reach the rule unchanged.
      if (id === 'litgpt-full-unchunked-head') {
        expect(p.options.chunkedLoss).toBe(false);
        p.options = { ...p.options, chunkedLoss: true };
      }
      expect(launchBlocker(p), id).toBe(ruleReason(rule(id)));
    }
  });
  it('plans LitGPT runs as written pass', () => {
    expect(launchBlocker(plan('llama-3.1-8b', { method: 'lora' }))).toBeNull();
    expect(
      launchBlocker(
        plan('llama-3.1-8b', {
          method: 'lora',
          weights: 'int8',
          compute: 'fp16',
          optimizer: 'paged-adamw',
        }),
      ),
    ).toBeNull();
    expect(
      launchBlocker(
        plan('mistral-7b-v0.1', { method: 'full', gpus: 8, zero: 3, checkpointing: 'full' }),
      ),
    ).toBeNull();
  });
  it('other limits: TP, offload, unmapped optimizer, flash attention switch', () => {
    expect(litgptBlocker(plan('llama-3.1-8b', { method: 'full', gpus: 2, tp: 2 }))).toMatch(
      /tensor/,
    );
    expect(
      litgptBlocker(
        plan('llama-3.1-8b', { method: 'full', gpus: 2, zero: 3, offload: 'optimizer+params' }),
      ),
    ).toMatch(/cpu_offload/);
    expect(litgptBlocker(plan('llama-3.1-8b', { method: 'lora', optimizer: 'lion' }))).toMatch(
      /lion/,
    );
  });
  it('rules carry versions and a source at the v0.5.13 commit or the pinned lightning tag', () => {
    for (const r of LITGPT_RULES) {
      expect(r.id).toMatch(/^litgpt-[a-z0-9-]+$/);
      expect(r.versions).toMatch(/^==\d/);
      expect(r.source).toMatch(/26857050fe3ff627cd714fe92f5838f51a3d5efa|be98784a1a03581b/);
      expect(r.says.endsWith('.')).toBe(false);
    }
  });
  it('the registry table covers the catalog ids it names', () => {
    for (const hfId of LITGPT_MODELS.keys()) expect(resolveModel(hfId).hfId).toBe(hfId);
  });
});

describe('litgpt launch folder → --from → the same options', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'vramplan-litgpt-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  const KEYS = [
    'method',
    'weights',
    'compute',
    'masterWeights',
    'doubleQuant',
    'optimizer',
    'loraRank',
    'loraTargets',
    'loraAllLinear',
    'batch',
    'seq',
    'checkpointing',
    'chunkedLoss',
    'optimizerInBackward',
    'zero',
    'offload',
    'gpus',
    'framework',
  ] as const;
  const CASES: [Record<string, unknown>, Partial<LaunchInput>][] = [
    [
      {
        method: 'qlora',
        'double-quant': true,
        optimizer: 'paged-adamw',
        'lora-rank': 32,
        'lora-targets': 'all-linear',
        batch: 2,
        seq: 4096,
        'chunked-loss': true,
      },
      {},
    ],
    [
      {
        method: 'lora',
        'lora-targets': 'q,v,o,lm_head',
        gpus: 2,
        zero: 3,
        checkpointing: 'full',
        'chunked-loss': true,
        batch: 4,
        seq: 1024,
      },
      {},
    ],
    [
      {
        method: 'lora',
        weights: 'int8',
        compute: 'fp16',
        optimizer: 'paged-adamw',
        'chunked-loss': true,
      },
      {},
    ],
    [{ method: 'full', weights: 'fp32', gpus: 4, zero: 3, checkpointing: 'full' }, {}],
    [{ method: 'full', optimizer: 'sgd-momentum', seq: 512 }, {}],
    [{ method: 'full', gpus: 16, zero: 3, checkpointing: 'full' }, { gpusPerNode: 8 }],
  ];
  CASES.forEach(([flags, extra], i) => {
    it(JSON.stringify(flags), () => {
      const x = input('llama-3.1-8b', flags, extra);
      const bundle = buildLaunch(x);
      expect(bundle.engine).toBe('litgpt');
      const dir = join(tmp, `case-${i}`);
      for (const f of bundle.files) {
        mkdirSync(dirname(join(dir, f.path)), { recursive: true });
        writeFileSync(join(dir, f.path), f.content);
      }
      const c = readFromConfig(dir);
      expect(c.format).toBe('litgpt');
      const merged = mergeFlags(c, {});
      const back = optionsFromFlags(merged);
      const pick = (o: typeof back) => Object.fromEntries(KEYS.map((k) => [k, o[k]]));
      expect(pick(back)).toEqual(pick(x.options));
      expect(merged['grad-accum']).toBe(4);
      expect(resolveModel(c.model!).id).toBe('llama-3.1-8b');
      // The file alone reads the same (the method is in its keys).
      expect(
        pick(optionsFromFlags(mergeFlags(readFromConfig(join(dir, 'litgpt.yaml')), {}))),
      ).toEqual(pick(x.options));
    });
  });
  it('detects LitGPT configs and rejects keys setup() does not take', () => {
    const y = yamlOf(files(input('llama-3.1-8b', { method: 'lora' })));
    expect(detectFormat(y)).toBe('litgpt');
    expect(mapLitgpt({ ...y, lora_rank: 8 }).unknown).toEqual(['lora_rank']);
  });
  it("launch.sh's finetune_full wins over the yaml's LoRA keys", () => {
    const m = mapLitgpt(yamlOf(files(input('llama-3.1-8b', { method: 'lora' }))));
    const flags = litgptWithScript(
      m.flags,
      'litgpt finetune_full checkpoints/x --config litgpt.yaml',
    );
    expect(flags.method).toBe('full');
    expect(flags['lora-rank']).toBeUndefined();
  });
});

describe("litgpt.yaml: AdamW rate, weight decay and warmup from LitGPT's own recipes", () => {
  // fixture: config_hub/finetune/llama-3.1-8b/*.yaml at v0.5.13, read from the tag
  const RECIPES = (
    JSON.parse(
      readFileSync(new URL('../fixtures/litgpt/v0.5.13-recipes.json', import.meta.url), 'utf8'),
    ) as {
      recipes: Record<
        string,
        { optimizer: string; lr: number; weight_decay: number; lr_warmup_steps: number }
      >;
    }
  ).recipes;
  for (const [flags, recipe] of [
    [{ method: 'lora' }, 'lora.yaml'],
    [{ method: 'qlora' }, 'qlora.yaml'],
    [{ method: 'full', gpus: 4, zero: 3, checkpointing: 'full' }, 'full.yaml'],
  ] as const)
    it(`${flags.method}: ${recipe}`, () => {
      const f = files(input('llama-3.1-8b', flags));
      const r = RECIPES[recipe]!;
      const y = yamlOf(f);
      // the plan's AdamW (QLoRA plans the paged bitsandbytes one) at the recipe's rate
      expect(y.optimizer.class_path.endsWith('AdamW')).toBe(r.optimizer.endsWith('AdamW'));
      expect(y.optimizer.init_args).toMatchObject({ lr: r.lr, weight_decay: r.weight_decay });
      expect(y.train.lr_warmup_steps).toBe(r.lr_warmup_steps);
      expect(f['litgpt.yaml']).toContain(`LitGPT's own ${recipe}`);
    });
});

describe("LitGPT's own loss on a shared scratch copy", () => {
  it("leaves the next engine the configuration's chunked-loss setting, not LitGPT's", () => {
    const base = optionsFromFlags({ method: 'lora' });
    expect(base.chunkedLoss).toBe(false);
    const scratch = { ...base };
    engineFieldsInto(scratch, 'litgpt', base);
    expect(scratch.chunkedLoss).toBe(true); // finetune_lora's 128-token lm_head chunks
    engineFieldsInto(scratch, 'hf-trainer', base);
    expect(scratch.chunkedLoss).toBe(false);
    expect(onEngine(base, 'hf-trainer').chunkedLoss).toBe(false);
  });
});
