// TRL's GRPO cannot sync packed 4-bit weights into vLLM (huggingface/trl#4973): QLoRA GRPO with a vLLM rollout
// is never ranked nor launched on the Hugging Face engines; Unsloth (adapters in vLLM, no merge) keeps it.
import { describe, expect, it } from 'vitest';
import { launchBlocker } from '../../src/core/launch/index.js';
import { TRL_GRPO_VLLM_4BIT, ruleInputOf } from '../../src/core/engines/hf/rules.js';
import { ENGINE_PROFILES } from '../../src/core/engines/engines.js';
import { planYaml } from '../helpers/plan.js';
import { launchInputOf } from '../helpers/launch.js';

const grpo = {
  objective: 'grpo',
  generations: '8',
  'completion-tokens': '512',
  'prompt-tokens': '256',
};
const input = (flags: Record<string, unknown>) =>
  launchInputOf('qwen2.5-3b', 'rtx-4090', { ...grpo, ...flags });

describe('trl-grpo-vllm-4bit', () => {
  it('fires on QLoRA with a colocated or served vLLM rollout, not on LoRA nor on generate', () => {
    const fires = (f: Record<string, unknown>) => TRL_GRPO_VLLM_4BIT.applies(ruleInputOf(input(f)));
    expect(fires({ method: 'qlora', rollout: 'vllm-colocate' })).toBe(true);
    expect(fires({ method: 'qlora', rollout: 'vllm-server', gpus: '2', 'rollout-gpus': '1' })).toBe(
      true,
    );
    expect(fires({ method: 'lora', rollout: 'vllm-colocate' })).toBe(false);
    expect(fires({ method: 'qlora', rollout: 'hf' })).toBe(false);
  });
  it('every Hugging Face engine carries it, and the launch is refused', () => {
    for (const e of ['hf-trainer', 'hf-fsdp', 'hf-deepspeed'] as const)
      expect(ENGINE_PROFILES[e].rules).toContain(TRL_GRPO_VLLM_4BIT);
    expect(launchBlocker(input({ method: 'qlora', rollout: 'vllm-colocate' }))).toContain(
      'rule trl-grpo-vllm-4bit',
    );
  });
  it('a QLoRA GRPO plan with a vLLM rollout is never on a Hugging Face engine', () => {
    const r = planYaml(
      'grpo-3b-4090.yaml',
      `name: grpo-3b-4090
model: qwen2.5-3b
job: { kind: fine-tune, objective: grpo, methods: [full, lora, qlora], globalBatch: 16, datasetTokens: 1000000, rl: { generations: 8, promptTokens: 256, completionTokens: 512 } }
hardware: { owned: [{ gpu: rtx-4090, count: 1 }], counts: { min: 1, max: 1 } }
rank: time
`,
      40,
    );
    expect(r.fits).toBe(true);
    const hfQloraVllm = r.plans.filter(
      (p) =>
        p.choices.engine.startsWith('hf-') &&
        p.choices.method === 'qlora' &&
        p.options.rollout !== 'hf',
    );
    expect(hfQloraVllm).toEqual([]);
  });
});
