// transformers 5.14.1 raises when from_pretrained gets a BitsAndBytesConfig for a checkpoint whose config.json
// carries another quantization (get_hf_quantizer -> merge_quantization_configs: "The model is quantized with
// Mxfp4Config but you are passing a BitsAndBytesConfig config"), as it does for the openai/gpt-oss-* repositories
// the Hugging Face launch files load. The planner and `launch` leave those QLoRA plans out; `estimate` models them.
import { describe, expect, it } from 'vitest';
import { forbiddenBy } from '../../src/core/engines/rules.js';
import { ENGINE_PROFILES } from '../../src/core/engines/engines.js';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { runEstimate } from '../../src/commands/estimate-run.js';
import { plan } from '../../src/core/plan/index.js';
import { resolveModel } from '../../src/io/load-model.js';
import { parseScenario } from '../../src/io/load-scenario.js';
import { planInputOf } from '../../src/io/plan-scenario.js';
import { optionsFromFlags } from '../../src/schema/flags.js';

const HF = ['hf-trainer', 'hf-fsdp', 'hf-deepspeed'] as const;
const ID = 'transformers-bnb-on-quantized-checkpoint';

const refusal = (
  model: string,
  framework: (typeof HF)[number],
  method: string,
  weights?: string,
) => {
  const flags = { method, framework, attention: 'flash', ...(weights ? { weights } : {}) };
  const o = withEngineDefaults(optionsFromFlags(flags), flags);
  return forbiddenBy(ENGINE_PROFILES[framework].rules, {
    arch: resolveModel(model),
    options: o,
    dp: 1,
    accum: 1,
  });
};

const SCENARIO = `
name: gpt-oss-20b LoRA or QLoRA on one H100, Hugging Face engines
model: gpt-oss-20b
job: { kind: fine-tune, methods: [lora, qlora], seq: 2048, globalBatch: 16, datasetTokens: 10000000, epochs: 1 }
hardware: { owned: [{ gpu: h100-sxm, count: 1 }], counts: { min: 1, max: 1 } }
search: { engines: [hf-trainer, hf-fsdp, hf-deepspeed] }
rank: time
`;

describe('bitsandbytes weights on a checkpoint that ships another quantization', () => {
  it('forbids nf4 and int8 on gpt-oss (MXFP4) and on an FP8 checkpoint, not bf16 LoRA nor a float checkpoint', () => {
    for (const framework of HF) {
      expect(refusal('gpt-oss-20b', framework, 'qlora')?.id, framework).toBe(ID);
      expect(refusal('gpt-oss-20b', framework, 'lora', 'int8')?.id, framework).toBe(ID);
      expect(refusal('qwen3-235b-a22b-fp8', framework, 'qlora')?.id, framework).toBe(ID);
      expect(refusal('gpt-oss-20b', framework, 'lora')?.id, framework).not.toBe(ID);
      expect(refusal('llama-3.1-8b', framework, 'qlora')?.id, framework).not.toBe(ID);
    }
  });
  it('ranks no bitsandbytes plan of gpt-oss-20b on the Hugging Face engines', () => {
    const file = '/tmp/transformers-bnb-on-quantized-checkpoint.yaml';
    const r = plan({ ...planInputOf(file, parseScenario(file, SCENARIO)), top: 50 });
    expect(r.plans.length).toBeGreaterThan(0);
    for (const p of r.plans) expect(['nf4', 'fp4', 'int8']).not.toContain(p.options.weights);
  });
  it('still estimates the QLoRA (a 16-bit copy quantized at load runs it)', () => {
    const flags = { method: 'qlora', framework: 'hf-trainer', attention: 'flash', gpu: 'h100-sxm' };
    expect(() => runEstimate('gpt-oss-20b', flags, true)).not.toThrow();
  });
});
