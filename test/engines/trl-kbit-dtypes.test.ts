// The TRL profiles' k-bit dtype flags against what TRL's trainers did to a bitsandbytes 4-bit model at the pinned
// versions (test/fixtures/trl-kbit-dtypes.json, written by scripts/probe-trl-kbit-dtypes.py): the non-quantized
// parameters keep the load dtype (no prepare_model_for_kbit_training) and the LoRA adapters are cast to bf16.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { setupOf } from '../../src/core/memory/setup.js';
import { optimizerStepBytes } from '../../src/core/time/optimizer-step.js';
import { HF_PINS } from '../../src/core/engines/hf/trainer.js';
import { resolveModel } from '../../src/io/load-model.js';
import { defaultOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

interface Case {
  trainer: string;
  load_dtype: string;
  after_init: Record<string, string[]>;
}
const fixture = JSON.parse(
  readFileSync(new URL('../fixtures/trl-kbit-dtypes.json', import.meta.url), 'utf8'),
) as {
  versions: Record<string, string>;
  cases: Case[];
  after_one_step: Record<string, { optimizer_state: Record<string, string[]>; optim: string }>;
};
const BYTES: Record<string, number> = { bfloat16: 2, float16: 2, float32: 4 };

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

  it("a QLoRA estimate on hf counts torch AdamW's states in the adapters' width, as one step left them", () => {
    // The probe's trainers stepped torch AdamW (optim adamw_torch), whose states are made like each parameter.
    const runs = Object.values(fixture.after_one_step).filter((r) =>
      r.optim.startsWith('adamw_torch'),
    );
    expect(runs.length).toBeGreaterThan(0);
    const widths = new Set(runs.flatMap((r) => Object.values(r.optimizer_state).flat()));
    const [dtype] = [...widths];
    expect(widths.size).toBe(1);
    expect(dtype !== undefined && dtype in BYTES).toBe(true);
    const width = BYTES[dtype ?? ''] ?? 0;
    const arch = resolveModel('llama-3.1-8b');
    const qlora = { ...defaultOptions('qlora'), framework: 'hf' as const };
    const q = setupOf(arch, qlora, {});
    expect(q.stateValueBytes).toBe(width);
    expect(q.states).toBe(2 * width * q.nTrain);
    // The foreach step's traffic reads and writes the same 16-bit states (6p + 14s).
    const t = { ...defaultTimeOptions(1), adamForeach: true };
    expect(optimizerStepBytes(qlora, t)).toBe(6 * q.trainBytes + 14 * width);
    // An fp32 master (--master-weights, DeepSpeed's optimizer) is what AdamW steps: fp32 states.
    const master = setupOf(arch, { ...qlora, masterWeights: true }, {});
    expect(master.states).toBe(2 * 4 * master.nTrain);
    const ds = setupOf(arch, { ...qlora, framework: 'deepspeed' }, {});
    expect(ds.states).toBe(2 * 4 * ds.nTrain);
    // fp32 adapters (a 16-bit base) keep fp32 states; bitsandbytes' 8-bit states are their own size.
    const lora = setupOf(arch, { ...defaultOptions('lora'), framework: 'hf' }, {});
    expect(lora.states).toBe(2 * 4 * lora.nTrain);
    const eight = setupOf(arch, { ...qlora, optimizer: 'adamw-8bit' }, {});
    expect(eight.states).toBeCloseTo(2 * (1 + 4 / 256) * eight.nTrain, 0);
  });
});
