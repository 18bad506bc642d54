// TRL's trainers under DeepSpeed ZeRO-3 on a non-quantized model build the LoRA adapters with
// get_peft_model(autocast_adapter_dtype=False): in the weights' dtype, not fp32 (huggingface/trl@v1.9.0
// trl/trainer/sft_trainer.py:1089-1097; profile zero3AdaptersInWeightDtype).
import { describe, expect, it } from 'vitest';
import { setupOf } from '../../src/core/memory/setup.js';
import { modelFacts, trainWork } from '../../src/core/time/index.js';
import { resolveModel } from '../../src/io/load-model.js';
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';
import { HF_LORA_ROW_FLAGS } from '../helpers/hf-lora-flags.js';

const arch = resolveModel('llama-3.1-8b');
const lora = (o: Partial<EstimateOptions>): EstimateOptions => ({
  ...defaultOptions('lora'),
  framework: 'deepspeed',
  gpus: 8,
  ...o,
});

describe('LoRA adapters under DeepSpeed ZeRO-3', () => {
  it('are 16-bit on a bf16 base at ZeRO-3 only, and on a k-bit base bf16 at every stage', () => {
    expect(setupOf(arch, lora({ zero: 3 }), {}).trainBytes).toBe(2);
    expect(setupOf(arch, lora({ zero: 2 }), {}).trainBytes).toBe(4);
    const q = { ...defaultOptions('qlora'), framework: 'deepspeed' as const, gpus: 8 };
    expect(setupOf(arch, { ...q, zero: 3 }, {}).trainBytes).toBe(2);
    expect(setupOf(arch, { ...q, zero: 2 }, {}).trainBytes).toBe(2);
    // The trainers pass the kwarg only with a DeepSpeed plugin: FSDP on the hf stack keeps fp32 adapters.
    expect(setupOf(arch, lora({ zero: 3, framework: 'hf' }), {}).trainBytes).toBe(4);
  });

  it("DeepSpeed's optimizer then steps an fp32 master of them with fp32 states", () => {
    const s = setupOf(arch, lora({ zero: 3 }), {});
    expect(s.masterPerParam).toBe(4);
    expect(s.states).toBe(2 * 4 * s.nTrain);
  });

  it('skip the cast of each adapted input to fp32 and back, as a run whose adapters stayed 16-bit', () => {
    const m = modelFacts(resolveModel('llama-2-7b'));
    const t = defaultTimeOptions(1);
    const flags = { ...HF_LORA_ROW_FLAGS, framework: 'deepspeed', gpus: 8 };
    const z3 = optionsFromFlags({ ...flags, zero: 3 });
    const z2 = optionsFromFlags({ ...flags, zero: 2 });
    const kept = trainWork(m, z3, { ...t, adaptersInWeightDtype: true });
    expect(trainWork(m, z3, t).adapterFwdBytes).toBe(kept.adapterFwdBytes);
    expect(trainWork(m, z2, t).adapterFwdBytes).toBeGreaterThan(
      trainWork(m, z2, { ...t, adaptersInWeightDtype: true }).adapterFwdBytes,
    );
  });
});
