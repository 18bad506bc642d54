// The TRL profiles' k-bit dtype flags against what TRL's trainers did to a bitsandbytes 4-bit model at the pinned
// versions (test/fixtures/trl-kbit-dtypes.json, written by scripts/probe-trl-kbit-dtypes.py): the non-quantized
// parameters keep the load dtype (no prepare_model_for_kbit_training) and the LoRA adapters are cast to bf16.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { setupOf } from '../../src/core/memory/setup.js';
import { HF_PINS } from '../../src/core/engines/hf/trainer.js';
import { resolveModel } from '../../src/io/load-model.js';
import { defaultOptions } from '../../src/schema/estimate.js';

interface Case {
  trainer: string;
  load_dtype: string;
  after_init: Record<string, string[]>;
}
const fixture = JSON.parse(
  readFileSync(new URL('../fixtures/trl-kbit-dtypes.json', import.meta.url), 'utf8'),
) as { versions: Record<string, string>; cases: Case[] };

// The trainers the TRL profiles stand for (SFT, and the DPO/GRPO objectives they run).
const STABLE = ['SFTTrainer', 'DPOTrainer', 'GRPOTrainer'];
const cases = fixture.cases.filter(
  (c) => STABLE.includes(c.trainer) && c.load_dtype === 'bfloat16',
);
const frozen = (c: Case) =>
  Object.entries(c.after_init)
    .filter(([k]) => k !== 'lora' && k !== 'quantized_linear')
    .flatMap(([, v]) => v);

describe('TRL k-bit dtypes at the pinned versions', () => {
  it('the fixture was taken at the versions HF_PINS installs', () => {
    for (const lib of ['transformers', 'trl', 'peft', 'bitsandbytes', 'accelerate'] as const)
      expect(fixture.versions[lib], lib).toBe(HF_PINS[lib]);
    expect(new Set(cases.map((c) => c.trainer))).toEqual(new Set(STABLE));
    // A fused-expert MoE among them: transformers 5's unquantized 3-D experts (profile unquantizedExperts).
    expect(cases.some((c) => c.after_init.experts !== undefined)).toBe(true);
  });

  it.each(['hf', 'deepspeed'] as const)(
    '%s: kbitUpcastsToFp32 and kbitTrainableBf16 match it',
    (id) => {
      const fw = FRAMEWORKS[id];
      const upcast = cases.some((c) => frozen(c).includes('float32'));
      const loraBf16 = cases.every((c) => c.after_init.lora?.join() === 'bfloat16/trainable');
      expect(fw.kbitUpcastsToFp32).toBe(upcast);
      expect(fw.kbitTrainableBf16 === true).toBe(loraBf16);
    },
  );

  it('a QLoRA estimate on hf counts 16-bit adapters and 16-bit embeddings / norms', () => {
    const arch = resolveModel('llama-3.1-8b');
    const q = setupOf(arch, { ...defaultOptions('qlora'), framework: 'hf' }, {});
    const lora = setupOf(arch, { ...defaultOptions('lora'), framework: 'hf' }, {});
    expect(q.trainBytes).toBe(2);
    expect(lora.trainBytes).toBe(FRAMEWORKS.hf.fp32Adapters ? 4 : 2);
  });
});
