// TRL's trainers under DeepSpeed ZeRO-3 on a non-quantized model build the LoRA adapters with
// get_peft_model(autocast_adapter_dtype=False): in the weights' dtype, not fp32 (huggingface/trl@v1.9.0
// trl/trainer/sft_trainer.py:1089-1097; profile zero3AdaptersInWeightDtype). At ZeRO 0-2 the model is not built under
// ZeRO-Init, and DeepSpeed's engine casts every floating parameter, the fp32 adapters PEFT made included, to the bf16
// it trains in (deepspeedai/DeepSpeed@v0.19.8 deepspeed/runtime/engine.py _cast_module_mixed_precision; profile
// castsParamsToComputeDtype).
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

describe('LoRA adapters under DeepSpeed', () => {
  it('are 16-bit on a bf16 base and on a k-bit base at every stage, fp32 where DeepSpeed trains in fp32', () => {
    for (const zero of [0, 2, 3] as const)
      expect(setupOf(arch, lora({ zero }), {}).trainBytes).toBe(2);
    // Without bf16/fp16 enabled the engine casts nothing: PEFT's fp32 adapters stay.
    expect(setupOf(arch, lora({ zero: 2, compute: 'fp32' }), {}).trainBytes).toBe(4);
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
    for (const o of [z3, z2]) {
      const kept = trainWork(m, o, { ...t, adaptersInWeightDtype: true });
      expect(trainWork(m, o, t).adapterFwdBytes).toBe(kept.adapterFwdBytes);
    }
    // Plain HF (PEFT's fp32 adapters, no engine cast) still pays it.
    const hf = optionsFromFlags({ ...HF_LORA_ROW_FLAGS, framework: 'hf' });
    expect(trainWork(m, hf, t).adapterFwdBytes).toBeGreaterThan(
      trainWork(m, hf, { ...t, adaptersInWeightDtype: true }).adapterFwdBytes,
    );
  });
});
