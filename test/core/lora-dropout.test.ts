// LoRA dropout: one nn.Dropout per adapted linear (PEFT, torchtune, LitGPT), each saving its dropped copy of that
// linear's input (compute dtype) and a 1-byte mask; one copy for LitGPT's fused qkv linear; only where dropout > 0.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { buildEstimate } from '../../src/core/estimate.js';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags, type RawFlags } from '../../src/schema/flags.js';
import { FlagError } from '../../src/schema/flag-error.js';
import { EstimateOptionsSchema } from '../../src/schema/estimate.js';
import { loraDropoutOn } from '../../src/core/memory/lora-dropout.js';

const arch = resolveModel('llama-3-8b');
const SEQ = 1024;
const acts = (flags: RawFlags): number => {
  const o = withEngineDefaults(optionsFromFlags(flags), flags);
  return buildEstimate(arch, o).perGpu.breakdown.activations;
};
const base = { method: 'lora', seq: SEQ, checkpointing: 'none' } as const;
// Llama-3-8B: hidden 4096, 32 heads x 128 (o_proj's input 4096), MLP intermediate 14336, 32 layers; bf16 (2 bytes).
const H = 4096;
const I = 14_336;
const perLayer = (width: number) => (2 + 1) * width * SEQ;

describe('LoRA dropout copies per adapted linear', () => {
  for (const framework of ['hf', 'hf-trainer', 'torchtune'] as const) {
    it(`${framework}: 0 adds nothing; 0.05 on all linears adds q, k, v, o, gate, up (hidden) and down (intermediate)`, () => {
      const f = { ...base, framework, 'lora-targets': 'all-linear' };
      const off = acts({ ...f, 'lora-dropout': 0 });
      const on = acts({ ...f, 'lora-dropout': 0.05 });
      expect(on - off).toBe(32 * perLayer(6 * H + I));
    });
  }

  it('hf: down_proj alone holds an intermediate-sized copy', () => {
    const f = { ...base, framework: 'hf', 'lora-targets': 'down' };
    expect(acts({ ...f, 'lora-dropout': 0.1 }) - acts({ ...f, 'lora-dropout': 0 })).toBe(
      32 * perLayer(I),
    );
  });

  it('litgpt: the fused qkv linear runs one dropout for q, k and v', () => {
    const f = { ...base, framework: 'litgpt', 'lora-targets': 'q,k,v' };
    expect(acts({ ...f, 'lora-dropout': 0.05 }) - acts({ ...f, 'lora-dropout': 0 })).toBe(
      32 * perLayer(H),
    );
  });

  it('without --lora-dropout each profile counts its default: none on hf and unsloth, LitGPT 0.05', () => {
    const f = { ...base, 'lora-targets': 'q,v' };
    expect(acts({ ...f, framework: 'hf-trainer' })).toBe(
      acts({ ...f, framework: 'hf-trainer', 'lora-dropout': 0 }),
    );
    expect(acts({ ...f, framework: 'litgpt' })).toBe(
      acts({ ...f, framework: 'litgpt', 'lora-dropout': 0.05 }),
    );
    expect(acts({ ...f, framework: 'unsloth', checkpointing: 'full' })).toBe(
      acts({ ...f, framework: 'unsloth', checkpointing: 'full', 'lora-dropout': 0 }),
    );
  });

  it('under full checkpointing only the recomputed layer holds the copies', () => {
    // chunked loss: the backward-layer phase (not the fp32 logits) is the peak.
    const f = {
      ...base,
      framework: 'hf',
      'lora-targets': 'all-linear',
      checkpointing: 'full',
      'chunked-loss': true,
    };
    const d = acts({ ...f, 'lora-dropout': 0.05 }) - acts({ ...f, 'lora-dropout': 0 });
    expect(d).toBe(perLayer(6 * H + I));
  });

  it('dropout never lowers activation memory; checkpointing never raises it', () => {
    const targets = ['q,v', 'q,k,v,o', 'all-linear', 'gate,up,down'];
    const frameworks = ['hf', 'torchtune', 'litgpt', 'unsloth'];
    fc.assert(
      fc.property(
        fc.constantFrom(...targets),
        fc.constantFrom(...frameworks),
        fc.double({ min: 0, max: 0.99, noNaN: true }),
        fc.constantFrom('lora', 'qlora'),
        (t, framework, p, method) => {
          const f = { method, seq: 512, framework, 'lora-targets': t };
          const none = acts({ ...f, checkpointing: 'none', 'lora-dropout': p });
          expect(none).toBeGreaterThanOrEqual(
            acts({ ...f, checkpointing: 'none', 'lora-dropout': 0 }),
          );
          expect(acts({ ...f, checkpointing: 'full', 'lora-dropout': p })).toBeLessThanOrEqual(
            none,
          );
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('--lora-dropout', () => {
  it('takes 0 <= p < 1 and names field, value and range in one line', () => {
    expect(optionsFromFlags({ method: 'lora', 'lora-dropout': '0.1' }).loraDropout).toBe(0.1);
    for (const bad of [1, -0.1, 'x']) {
      const run = () => optionsFromFlags({ method: 'lora', 'lora-dropout': bad });
      expect(run).toThrow(FlagError);
      expect(run).toThrow(/^--lora-dropout: got .*; expected a number from 0 to below 1$/);
    }
    // A config's lora_dropout beside --method full: read on LoRA and QLoRA only.
    expect(optionsFromFlags({ method: 'full', 'lora-dropout': 0.1 }).loraDropout).toBeUndefined();
  });

  it('the options schema holds it to [0, 1)', () => {
    const o = optionsFromFlags({ method: 'lora' });
    expect(EstimateOptionsSchema.safeParse({ ...o, loraDropout: 0.05 }).success).toBe(true);
    expect(EstimateOptionsSchema.safeParse({ ...o, loraDropout: 1 }).success).toBe(false);
  });
});

describe('loraDropoutOn (memory and time read it alike)', () => {
  it('a given --lora-dropout wins; else the profile default or a calibration run that set it', () => {
    expect(loraDropoutOn({ loraDropout: 0 }, { loraDropout: true }, true)).toBe(false);
    expect(loraDropoutOn({ loraDropout: 0.05 }, { loraDropout: false })).toBe(true);
    expect(loraDropoutOn({}, { loraDropout: true })).toBe(true);
    expect(loraDropoutOn({}, { loraDropout: false })).toBe(false);
    expect(loraDropoutOn({}, { loraDropout: false }, true)).toBe(true);
  });
});
