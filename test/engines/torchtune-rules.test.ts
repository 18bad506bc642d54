// torchtune 0.6.1 rules (src/core/engines/torchtune/rules.ts): each fires on the configuration it names and
// not on its neighbour; the launcher refuses with the rule's sentence; pins and components are the cited ones.
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildEstimate } from '../../src/core/estimate.js';
import { buildLaunch, launchBlocker, type LaunchInput } from '../../src/core/launch/index.js';
import { ruleReason, type Rule, type RuleInput } from '../../src/core/engines/rules.js';
import { TORCHTUNE_RULES } from '../../src/core/engines/torchtune/rules.js';
import { TORCHTUNE_PROFILE } from '../../src/core/engines/torchtune/profile.js';
import { TORCHTUNE_BNB_PIN, TORCHTUNE_PINS } from '../../src/core/engines/torchtune/launch.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';

// Every builder/component below is in the __all__ (or module) of torchtune v0.6.1 (commit a6290a5b):
// torchtune/models/{llama2,code_llama2,llama3,llama3_1,llama3_2,llama3_3,mistral,gemma,gemma2,phi3}/__init__.py.
const TUNE_061 = new Set([
  ...['7b', '13b', '70b'].flatMap((s) => [`llama2_${s}`, `lora_llama2_${s}`, `qlora_llama2_${s}`]),
  ...['7b', '13b', '70b'].flatMap((s) => [
    `code_llama2_${s}`,
    `lora_code_llama2_${s}`,
    `qlora_code_llama2_${s}`,
  ]),
  ...['8b', '70b'].flatMap((s) => [`llama3_${s}`, `lora_llama3_${s}`, `qlora_llama3_${s}`]),
  ...['8b', '70b', '405b'].flatMap((s) => [
    `llama3_1_${s}`,
    `lora_llama3_1_${s}`,
    `qlora_llama3_1_${s}`,
  ]),
  ...['1b', '3b'].flatMap((s) => [`llama3_2_${s}`, `lora_llama3_2_${s}`, `qlora_llama3_2_${s}`]),
  'llama3_3_70b',
  'lora_llama3_3_70b',
  'qlora_llama3_3_70b',
  'mistral_7b',
  'lora_mistral_7b',
  'qlora_mistral_7b',
  ...['2b', '7b'].flatMap((s) => [`gemma_${s}`, `lora_gemma_${s}`, `qlora_gemma_${s}`]),
  ...['2b', '9b', '27b'].flatMap((s) => [`gemma2_${s}`, `lora_gemma2_${s}`, `qlora_gemma2_${s}`]),
  'phi3_mini',
  'lora_phi3_mini',
  'qlora_phi3_mini',
  'llama2_tokenizer',
  'llama3_tokenizer',
  'mistral_tokenizer',
  'gemma_tokenizer',
  'phi3_mini_tokenizer',
  'FullModelHFCheckpointer', // torchtune/training/__init__.py
  'alpaca_cleaned_dataset', // torchtune/datasets/__init__.py
  'get_cosine_schedule_with_warmup', // torchtune/training/lr_schedulers.py
  'CEWithChunkedOutputLoss', // torchtune/modules/loss/__init__.py
  'DiskLogger', // torchtune/training/metric_logging.py
]);
// Classes outside torchtune the configs name: torch 2.6 and bitsandbytes / torchao optimizers.
const OTHER = new Set([
  'torch.optim.AdamW',
  'torch.optim.SGD',
  'torch.optim.Adafactor',
  'torch.nn.CrossEntropyLoss',
  'bitsandbytes.optim.AdamW8bit',
  'bitsandbytes.optim.PagedAdamW',
  'bitsandbytes.optim.PagedAdamW8bit',
  'torchao.optim.AdamW8bit',
  'torchao.prototype.low_bit_optim.CPUOffloadOptimizer', // torchao 0.10.0 prototype/low_bit_optim/__init__.py
]);

function input(model: string, flags: Record<string, unknown>, gradAccum = 1): LaunchInput {
  const arch = resolveModel(model);
  const f = { framework: 'torchtune', ...flags };
  const options = withEngineDefaults(optionsFromFlags(f), f);
  const gpu = findGpu('a100-80gb-sxm');
  return {
    arch,
    options,
    gpu,
    gradAccum,
    powerLimitW: null,
    estimate: buildEstimate(arch, options, gpu),
    modelRef: arch.hfId ?? model,
  };
}
const ruleIn = (x: LaunchInput): RuleInput => ({
  arch: x.arch,
  options: x.options,
  dp: x.options.gpus / (x.options.tp * x.options.pp * x.options.cp),
  accum: x.gradAccum,
});
const rule = (id: string): Rule => {
  const r = TORCHTUNE_RULES.find((x) => x.id === id);
  if (!r) throw new Error(id);
  return r;
};

/** id → [a configuration it names, its neighbour]. */
const CASES: Record<string, [LaunchInput, LaunchInput]> = {
  'torchtune-no-builder': [
    input('qwen2.5-7b', { method: 'lora' }),
    input('llama-3.1-8b', { method: 'lora' }),
  ],
  'torchtune-no-fp16': [
    input('llama-3.1-8b', { method: 'lora', compute: 'fp16' }),
    input('llama-3.1-8b', { method: 'lora', compute: 'bf16' }),
  ],
  'torchtune-bnb-optimizer-fsdp2': [
    input('llama-3.1-8b', { method: 'lora', optimizer: 'paged-adamw-8bit', gpus: 2, zero: 3 }),
    input('llama-3.1-8b', { method: 'lora', optimizer: 'paged-adamw-8bit' }),
  ],
  'torchtune-optimizer-in-bwd-accum': [
    input('llama-3.1-8b', { method: 'full', 'optimizer-in-backward': true }, 4),
    input('llama-3.1-8b', { method: 'full', 'optimizer-in-backward': true }, 1),
  ],
  'torchtune-cpu-offload-adamw': [
    input('llama-3.1-8b', { method: 'full', optimizer: 'sgd', zero: 0, offload: 'optimizer' }),
    input('llama-3.1-8b', { method: 'full', optimizer: 'adamw', zero: 0, offload: 'optimizer' }),
  ],
  'torchtune-optimizer-in-bwd-lora': [
    input('llama-3.1-8b', { method: 'lora', 'optimizer-in-backward': true }),
    input('llama-3.1-8b', { method: 'full', 'optimizer-in-backward': true }),
  ],
};

describe('torchtune 0.6.1 rules', () => {
  it('are the profile rules, each with a source and versions', () => {
    expect(TORCHTUNE_PROFILE.rules).toBe(TORCHTUNE_RULES);
    for (const r of TORCHTUNE_RULES) {
      expect(r.source).toMatch(/^https:\/\/github\.com\//);
      expect(r.versions).not.toBe('');
    }
  });
  for (const [id, [on, off]] of Object.entries(CASES))
    it(`${id} fires on its configuration and not on the neighbour`, () => {
      expect(rule(id).applies(ruleIn(on))).toBe(true);
      expect(rule(id).applies(ruleIn(off))).toBe(false);
      const b = buildLaunch(on);
      const out = b.outputs.find((o) => o.engine === 'torchtune');
      expect(out?.ok === false && out.reason).toBe(ruleReason(rule(id)));
      expect(buildLaunch(off).files.map((f) => f.path)).toContain('torchtune.yaml');
    });
  it('launchBlocker returns the rule sentence (accum taken as 1)', () => {
    const [on] = CASES['torchtune-bnb-optimizer-fsdp2']!;
    expect(launchBlocker(on)).toBe(ruleReason(rule('torchtune-bnb-optimizer-fsdp2')));
    const [accum] = CASES['torchtune-optimizer-in-bwd-accum']!;
    expect(launchBlocker(accum)).toBeNull();
  });
  it('torchao AdamW8bit (stochastic rounding) is allowed on the distributed recipe', () => {
    const x = input('llama-3.1-8b', { method: 'full', optimizer: 'adamw-8bit', gpus: 2, zero: 3 });
    expect(rule('torchtune-bnb-optimizer-fsdp2').applies(ruleIn(x))).toBe(false);
    const y = parse(buildLaunch(x).files[0]!.content) as { optimizer: { _component_: string } };
    expect(y.optimizer._component_).toBe('torchao.optim.AdamW8bit');
  });
});

describe('torchtune launch folder', () => {
  it('pins torchtune 0.6.1 with torch 2.6.0 and torchao 0.10.0 in its own environment', () => {
    expect(TORCHTUNE_PINS).toEqual([
      'torch==2.6.0',
      'torchao==0.10.0',
      'torchdata==0.11.0',
      'torchtune==0.6.1',
    ]);
    const req = buildLaunch(
      input('llama-3.1-8b', { method: 'lora', optimizer: 'paged-adamw-8bit' }),
    ).files.find((f) => f.path === 'requirements.txt')!.content;
    expect(req).toMatch(/torchtune environment/);
    expect(req).toMatch(/2026-11-26/);
    expect(req).toContain(TORCHTUNE_BNB_PIN);
    expect(req).toContain('torchao==0.10.0');
  });
  const plans: [string, Record<string, unknown>][] = [
    ['llama-3.1-8b', { method: 'full' }],
    ['llama-3.1-8b', { method: 'full', gpus: 4, zero: 3 }],
    ['llama-2-7b', { method: 'qlora', 'chunked-loss': true }],
    ['gemma-2-9b', { method: 'lora', gpus: 2, zero: 3 }],
    ['llama-3.3-70b-instruct', { method: 'qlora', gpus: 4, zero: 3 }],
    ['codellama-7b', { method: 'lora', optimizer: 'adamw-8bit' }],
  ];
  for (const [model, flags] of plans)
    it(`${model} ${JSON.stringify(flags)}: every _component_ exists in 0.6.1`, () => {
      const b = buildLaunch(input(model, flags));
      const yaml = b.files.find((f) => f.path === 'torchtune.yaml');
      expect(yaml, JSON.stringify(b.outputs)).toBeDefined();
      const comps = [...yaml!.content.matchAll(/_component_: (\S+)/g)].map((m) => m[1]!);
      expect(comps.length).toBeGreaterThan(5);
      for (const c of comps) {
        const known = c.startsWith('torchtune.')
          ? TUNE_061.has(c.split('.').at(-1)!)
          : OTHER.has(c);
        expect(known, c).toBe(true);
      }
      const cfg = parse(yaml!.content) as Record<string, unknown>;
      expect(cfg.clip_grad_norm).toBeNull();
      if (flags.method === 'full') expect(cfg.optimizer_in_bwd).toBe(false);
      else expect(cfg).not.toHaveProperty('optimizer_in_bwd');
    });
});
