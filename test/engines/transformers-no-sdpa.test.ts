// transformers 5.14.1 has no SDPA attention for gpt-oss (GptOssPreTrainedModel._supports_sdpa = False, its
// attention sinks) and raises when attn_implementation "sdpa" is asked for, as hf-args.json and axolotl.yaml
// write it: the Hugging Face engines plan gpt-oss with flash or eager attention only. With no attn_implementation
// asked for it falls back to eager (get_correct_attn_implementation), so `estimate` without --attention runs that.
import { describe, expect, it } from 'vitest';
import { forbiddenBy } from '../../src/core/engines/rules.js';
import { ENGINE_PROFILES } from '../../src/core/engines/engines.js';
import { unaskedFallbacks, withEngineDefaults } from '../../src/core/engines/defaults.js';
import { runEstimate } from '../../src/commands/estimate-run.js';
import { plan } from '../../src/core/plan/index.js';
import { resolveModel } from '../../src/io/load-model.js';
import { parseScenario } from '../../src/io/load-scenario.js';
import { planInputOf } from '../../src/io/plan-scenario.js';
import { optionsFromFlags } from '../../src/schema/flags.js';

const HF = ['hf-trainer', 'hf-fsdp', 'hf-deepspeed'] as const;

const refusal = (model: string, framework: (typeof HF)[number], attention: string) => {
  const flags = { method: 'lora', framework, attention };
  const o = withEngineDefaults(optionsFromFlags(flags), flags);
  return forbiddenBy(ENGINE_PROFILES[framework].rules, {
    arch: resolveModel(model),
    options: o,
    dp: 1,
    accum: 1,
  });
};

const SCENARIO = `
name: gpt-oss-120b LoRA on 8x H100
model: gpt-oss-120b
job: { kind: fine-tune, methods: [lora], seq: 4096, globalBatch: 32, datasetTokens: 50000000, epochs: 1 }
hardware: { owned: [{ gpu: h100-sxm, count: 8 }], gpusPerNode: 8, counts: { min: 8, max: 8 } }
search: { engines: [hf-trainer, hf-fsdp, hf-deepspeed] }
rank: time
`;

describe('transformers refuses SDPA on gpt-oss', () => {
  it('forbids sdpa on gpt-oss on every Hugging Face engine, and nothing else', () => {
    for (const framework of HF) {
      expect(refusal('gpt-oss-20b', framework, 'sdpa')?.id).toBe('transformers-no-sdpa');
      expect(refusal('gpt-oss-20b', framework, 'flash')?.id).not.toBe('transformers-no-sdpa');
      expect(refusal('llama-3.1-8b', framework, 'sdpa')?.id).not.toBe('transformers-no-sdpa');
    }
  });
  it('plans gpt-oss-120b LoRA with no sdpa plan', () => {
    const file = '/tmp/transformers-no-sdpa.yaml';
    const r = plan({ ...planInputOf(file, parseScenario(file, SCENARIO)), top: 10 });
    expect(r.plans.length).toBeGreaterThan(0);
    for (const p of r.plans) expect(p.options.attention).not.toBe('sdpa');
  });
  it('estimates gpt-oss with eager attention where --attention is not given, and refuses an --attention sdpa asked for', () => {
    for (const framework of HF) {
      const flags = {
        method: 'full',
        framework,
        gpus: 8,
        ...(framework === 'hf-trainer' ? {} : { zero: 3 }),
      };
      const o = withEngineDefaults(optionsFromFlags(flags), flags);
      expect(o.attention).toBe('sdpa');
      const notes = unaskedFallbacks(resolveModel('gpt-oss-20b'), o, flags);
      expect(o.attention, framework).toBe('eager');
      expect(notes.join(' '), framework).toMatch(
        /falls back to eager attention.*rule transformers-no-sdpa/,
      );
      // Asked for: the library raises, and so does estimate.
      const asked = { ...flags, attention: 'sdpa' };
      const o2 = withEngineDefaults(optionsFromFlags(asked), asked);
      expect(unaskedFallbacks(resolveModel('gpt-oss-20b'), o2, asked)).toEqual([]);
      expect(o2.attention).toBe('sdpa');
      expect(() => runEstimate('gpt-oss-20b', asked, true)).toThrow(/transformers-no-sdpa/);
      // Other families keep SDPA.
      const l = withEngineDefaults(optionsFromFlags(flags), flags);
      expect(unaskedFallbacks(resolveModel('llama-3.1-8b'), l, flags)).toEqual([]);
      expect(l.attention).toBe('sdpa');
    }
  });
});
