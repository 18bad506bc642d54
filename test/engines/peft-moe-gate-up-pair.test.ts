// PEFT 0.21.2 fuses a v4-style gate/up LoRA pair into a transformers 5 MoE's experts.gate_up_proj and raises when
// only one of the two is targeted (utils/transformers_weight_conversion.py `_convert_peft_config_moe`): the hf
// engines refuse that target list on the remapped model types (rule peft-moe-gate-up-pair). Unsloth sets
// target_parameters itself and its wrapper skips PEFT's remap then: it runs gate or up alone.
import { describe, expect, it } from 'vitest';
import { launchBlocker } from '../../src/core/launch/index.js';
import { ENGINE_PROFILES } from '../../src/core/engines/engines.js';
import { PEFT_MOE_GATE_UP_PAIR, ruleInputOf } from '../../src/core/engines/hf/rules.js';
import { UNSLOTH_MEMORY } from '../../src/core/engines/unsloth/memory.js';
import { HF_MEMORY } from '../../src/core/engines/hf/memory.js';
import { launchInputOf } from '../helpers/launch.js';

const lora = (model: string, targets: string, framework = 'hf') =>
  launchInputOf(model, 'a100-80gb-sxm', {
    method: 'lora',
    'lora-rank': 16,
    'lora-targets': targets,
    framework,
  });

describe('PEFT remap of gate and up on a transformers 5 MoE (rule peft-moe-gate-up-pair)', () => {
  it('refuses a remapped MoE with gate or up alone, on every hf engine, launch included', () => {
    for (const targets of ['q,v,gate', 'q,v,up', 'up'])
      expect(
        PEFT_MOE_GATE_UP_PAIR.applies(ruleInputOf(lora('qwen3-30b-a3b', targets))),
        targets,
      ).toBe(true);
    expect(launchBlocker(lora('qwen3-30b-a3b', 'q,v,gate'))).toContain(
      'rule peft-moe-gate-up-pair',
    );
    for (const engine of ['hf-trainer', 'hf-fsdp', 'hf-deepspeed'] as const)
      expect(ENGINE_PROFILES[engine].rules, engine).toContain(PEFT_MOE_GATE_UP_PAIR);
  });

  it('runs both or neither, a dense model, and a MoE PEFT does not remap (gpt-oss)', () => {
    for (const targets of ['q,v', 'q,v,gate,up', 'q,k,v,o,gate,up,down', 'down'])
      expect(
        PEFT_MOE_GATE_UP_PAIR.applies(ruleInputOf(lora('qwen3-30b-a3b', targets))),
        targets,
      ).toBe(false);
    expect(launchBlocker(lora('qwen3-30b-a3b', 'q,v,gate,up'))).toBeNull();
    expect(PEFT_MOE_GATE_UP_PAIR.applies(ruleInputOf(lora('llama-3-8b', 'q,v,gate')))).toBe(false);
    expect(PEFT_MOE_GATE_UP_PAIR.applies(ruleInputOf(lora('gpt-oss-20b', 'q,v,gate')))).toBe(false);
  });

  it('Unsloth skips the remap (target_parameters set): no rule, gate alone launches', () => {
    expect(HF_MEMORY.peftV5Remap).toBe(true);
    expect(UNSLOTH_MEMORY.peftV5Remap).toBeUndefined();
    expect(ENGINE_PROFILES.unsloth.rules).not.toContain(PEFT_MOE_GATE_UP_PAIR);
    const x = lora('qwen3-30b-a3b', 'q,v,gate', 'unsloth');
    expect(PEFT_MOE_GATE_UP_PAIR.applies(ruleInputOf(x))).toBe(false);
    expect(launchBlocker(x) ?? '').not.toContain('peft-moe-gate-up-pair');
  });
});
