// LoRA on a transformers 5 MoE's fused experts (PEFT target_parameters: lora.ParamWrapper) under FSDP, against what
// the pinned libraries did with a two-layer Qwen3-MoE built as the launch folder builds it, on CPU (gloo):
// test/fixtures/launch-libs/fsdp-param-wrapper.json, written by scripts/check-launch-libs/fsdp_param_wrapper.py.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildLaunch, launchBlocker } from '../../src/core/launch/index.js';
import { engineOf } from '../../src/core/engines/engine.js';
import { ENGINE_PROFILES } from '../../src/core/engines/engines.js';
import {
  BNB_FUSED_EXPERTS,
  FSDP1_PARAM_WRAPPER,
  FSDP2_BNB_4BIT,
  ruleInputOf,
} from '../../src/core/engines/hf/rules.js';
import { HF_PINS } from '../../src/core/engines/hf/trainer.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { launchInputOf } from '../helpers/launch.js';

interface Case {
  worldSize: number;
  quant: 'nf4' | 'none';
  /** 1 or 2; 0: DDP (the plain Trainer on several GPUs). */
  fsdpVersion: 0 | 1 | 2;
  useOrigParams: boolean;
  /** 'args': the launch folder's target_modules ('all-linear'); 'attention': q/k/v/o_proj only (no router adapter). */
  targetModules: 'args' | 'attention';
  result: 'ok' | 'error';
  raisedAt?: string;
  error?: string;
  /** Least cosine similarity of the experts' lora_B gradients to the same step without FSDP (ok cases). */
  minGradCosine?: number;
}

const fixture = JSON.parse(
  readFileSync(new URL('../fixtures/launch-libs/fsdp-param-wrapper.json', import.meta.url), 'utf8'),
) as {
  versions: Record<string, string>;
  expertParams: Record<string, { type: string; dtype: string }>;
  /** [module, parameter, rank] PEFT wrapped in layer 0. */
  paramWrappersLayer0: [string, string, number][];
  cases: Case[];
};

const moe = (flags: Record<string, unknown>) =>
  launchInputOf('qwen3-30b-a3b', 'a100-80gb-sxm', { 'lora-rank': 16, ...flags }, { gradAccum: 1 });

describe('LoRA on fused experts under FSDP (rule fsdp1-peft-param-wrapper)', () => {
  it('the fixture came from the pinned libraries', () => {
    for (const lib of ['torch', 'transformers', 'peft', 'accelerate', 'bitsandbytes'] as const)
      expect(fixture.versions[lib], lib).toBe(HF_PINS[lib]);
  });

  it('FSDP1 failed at the first forward in every setting; FSDP2 and DDP ran with the unsharded gradients', () => {
    expect(fixture.cases.length).toBeGreaterThanOrEqual(8);
    for (const c of fixture.cases) {
      const label = JSON.stringify(c);
      if (c.fsdpVersion === 1) {
        expect(c.result, label).toBe('error');
      } else {
        expect(c.result, label).toBe('ok');
        expect(c.minGradCosine, label).toBeGreaterThan(0.999);
      }
    }
    // At two ranks the failure is in ParamWrapper's own reads of its factors, the experts' included (attention-only
    // target_modules: no router adapter is reached first).
    const experts = fixture.cases.filter((c) => c.targetModules === 'attention');
    expect(experts.length).toBe(2);
    for (const c of experts)
      expect(c.raisedAt).toMatch(/peft\/tuners\/lora\/layer\.py.*get_delta_factors/);
    expect(fixture.paramWrappersLayer0.map(([m, p]) => `${m}.${p}`)).toEqual(
      expect.arrayContaining(['mlp.experts.base_layer.gate_up_proj', 'mlp.experts.down_proj']),
    );
    // Both use_orig_params settings, at one rank (NO_SHARD) and at two (FULL_SHARD, the plans' case).
    for (const ws of [1, 2])
      for (const orig of [false, true])
        expect(
          fixture.cases.some(
            (c) => c.fsdpVersion === 1 && c.worldSize === ws && c.useOrigParams === orig,
          ),
        ).toBe(true);
  });

  it('4-bit hf-fsdp plans (written as FSDP1) that adapt the experts are refused, launch included', () => {
    const x = moe({ framework: 'hf-fsdp', method: 'qlora', zero: '3', gpus: '2' });
    expect(engineOf(x.options)).toBe('hf-fsdp');
    expect(FSDP2_BNB_4BIT.applies(ruleInputOf(x))).toBe(true);
    expect(launchBlocker(x)).toContain('rule fsdp1-peft-param-wrapper');
    expect(buildLaunch(x).files.map((f) => f.path)).not.toContain('accelerate.yaml');
    expect(ENGINE_PROFILES['hf-fsdp'].rules).toContain(FSDP1_PARAM_WRAPPER);
  });

  it('the neighbours that ran are not refused: bf16 LoRA (FSDP2), QLoRA under DDP, QLoRA off the experts', () => {
    const bf16 = moe({ framework: 'hf-fsdp', method: 'lora', zero: '3', gpus: '2' });
    expect(FSDP1_PARAM_WRAPPER.applies(ruleInputOf(bf16))).toBe(false);
    expect(launchBlocker(bf16)).toBeNull();
    const ddp = moe({ framework: 'hf', method: 'qlora', gpus: '2' });
    expect(engineOf(ddp.options)).toBe('hf-trainer');
    expect(FSDP1_PARAM_WRAPPER.applies(ruleInputOf(ddp))).toBe(false);
    const attention = moe({
      framework: 'hf-fsdp',
      method: 'qlora',
      zero: '3',
      gpus: '2',
      'lora-targets': 'q,k,v,o',
    });
    expect(FSDP1_PARAM_WRAPPER.applies(ruleInputOf(attention))).toBe(false);
    const dense = launchInputOf('llama-3-8b', 'a100-80gb-sxm', {
      framework: 'hf-fsdp',
      method: 'qlora',
      zero: '3',
      gpus: '2',
    });
    expect(FSDP1_PARAM_WRAPPER.applies(ruleInputOf(dense))).toBe(false);
  });

  it('bitsandbytes left the fused experts in bf16 and TRL did not upcast them: the engine profile says so', () => {
    for (const name of ['gate_up_proj', 'down_proj']) {
      expect(fixture.expertParams[name]).toEqual({ type: 'Parameter', dtype: 'torch.bfloat16' });
    }
    expect(fixture.expertParams['q_proj']?.type).toBe('Params4bit');
    expect(FRAMEWORKS.hf.unquantizedExperts).toContain('nf4');
    expect(FRAMEWORKS.hf.kbitUpcastsToFp32).toBe(false);
    expect(BNB_FUSED_EXPERTS.says).not.toContain('fp32');
  });
});
