/**
 * A run's LoRA stack where it differs from the engine's defaults (set by `validate --throughput` from a row's
 * `lora_adapter_dtype` and `lora_dropout`): adapters kept in the weights' 16-bit dtype (PEFT before 0.12.0) skip
 * the cast of each adapted linear's input to fp32 and back; LoRA dropout above 0 adds nn.Dropout on that input,
 * forward and backward (engines/hf/lora-path.ts: fp32CastIn 6, dropoutIn 2.5 passes each way); without autocast the
 * fp32 adapters' branch computes in fp32 (fp32Branch); under torch.use_deterministic_algorithms the casts' and the
 * dropout's outputs are NaN-filled first (deterministicFill).
 */
import { describe, expect, it } from 'vitest';
import { modelFacts, trainWork } from '../../src/core/time/index.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';
import { HF_LORA_ROW_FLAGS } from '../helpers/hf-lora-flags.js';

const flags = HF_LORA_ROW_FLAGS;

describe('a run whose LoRA stack differs from the engine default', () => {
  const m = modelFacts(resolveModel('llama-2-7b'));
  const t = defaultTimeOptions(1);
  // q and v both read the hidden state: two adapted 16-bit inputs of `hidden` elements per token per layer.
  const inputs = 4 * 1024 * 2 * m.hidden * 2 * m.layers;

  it('drops the fp32 cast of the adapted inputs where the adapters stayed in the weights dtype', () => {
    const o = optionsFromFlags(flags);
    const cast = trainWork(m, o, t);
    const kept = trainWork(m, o, { ...t, adaptersInWeightDtype: true });
    expect(cast.adapterFwdBytes - kept.adapterFwdBytes).toBeCloseTo(6 * inputs, -3);
    expect(cast.adapterBwdBytes - kept.adapterBwdBytes).toBeCloseTo(6 * inputs, -3);
    expect(cast.adapterFwdOps - kept.adapterFwdOps).toBe(2 * 2 * m.layers);
  });

  it('adds the dropout pass on each adapted input, forward and backward', () => {
    const o = optionsFromFlags(flags);
    const plain = trainWork(m, o, t);
    const drop = trainWork(m, o, { ...t, loraDropout: true });
    expect(drop.adapterFwdBytes - plain.adapterFwdBytes).toBeCloseTo(2.5 * inputs, -3);
    expect(drop.adapterBwdBytes - plain.adapterBwdBytes).toBeCloseTo(2.5 * inputs, -3);
    expect(drop.adapterFwdOps - plain.adapterFwdOps).toBe(2 * m.layers);
  });

  it('leaves 4-bit adapters alone (their path never casts) and full fine-tunes alone', () => {
    const q = optionsFromFlags({ ...flags, method: 'qlora' });
    expect(trainWork(m, q, { ...t, adaptersInWeightDtype: true })).toEqual(trainWork(m, q, t));
    const full = optionsFromFlags({ ...flags, method: 'full' });
    expect(trainWork(m, full, { ...t, adaptersInWeightDtype: true, loraDropout: true })).toEqual(
      trainWork(m, full, t),
    );
  });

  it('runs the fp32 adapters branch in fp32 without autocast: wider output passes, same input passes', () => {
    const o = optionsFromFlags(flags);
    const auto = trainWork(m, o, t);
    const eager = trainWork(m, o, { ...t, noAutocast: true });
    // q and v outputs: attnWidth and kvWidth per token per layer, 16-bit passes.
    const outputs = 4 * 1024 * 2 * (m.attnWidth + m.kvWidth) * m.layers;
    // Input side: 1 + 6 (cast) = 7 under autocast, 5 in fp32 forward; 5 + 6 = 11 and 10 backward.
    expect(eager.adapterFwdBytes - auto.adapterFwdBytes).toBeCloseTo(
      (5 - 7) * inputs + (14 - 6) * outputs,
      -3,
    );
    expect(eager.adapterBwdBytes - auto.adapterBwdBytes).toBeCloseTo(
      (10 - 11) * inputs + (14 - 4) * outputs,
      -3,
    );
    expect(eager.adapterBwdOps - auto.adapterBwdOps).toBe(2 * m.layers);
  });

  it('leaves adapters kept in the weights dtype alone without autocast (no fp32 branch)', () => {
    const o = optionsFromFlags(flags);
    const kept = { ...t, adaptersInWeightDtype: true };
    expect(trainWork(m, o, { ...kept, noAutocast: true })).toEqual(trainWork(m, o, kept));
  });

  it('adds the deterministic fill of the casts and the dropout outputs, and none on a full fine-tune', () => {
    const o = optionsFromFlags(flags);
    const eager = { ...t, noAutocast: true, loraDropout: true };
    const plain = trainWork(m, o, eager);
    const filled = trainWork(m, o, { ...eager, deterministicFill: true });
    expect(filled.adapterFwdBytes).toBeGreaterThan(plain.adapterFwdBytes);
    expect(filled.adapterBwdBytes).toBeGreaterThan(plain.adapterBwdBytes);
    // Forward: the input cast and the dropout's fp32 output and mask fill 2 + 2.5 input passes per adapted linear.
    expect(filled.adapterFwdOps - plain.adapterFwdOps).toBe(2 * (2 + 2) * m.layers);
    const full = optionsFromFlags({ ...flags, method: 'full' });
    expect(trainWork(m, full, { ...eager, deterministicFill: true })).toEqual(
      trainWork(m, full, eager),
    );
  });
});
