// torchtune's distributed (FSDP2) recipes run 8-bit AdamW as torchao's AdamW8bit (torchtune v0.6.1
// docs/source/tutorials/memory_optimizations.rst:168-171), whose uint8 states and fp32 per-256-element scales are
// DTensors sharded like the parameters (torchao v0.10.0 optim/adam.py _new_buffer, optim/subclass_8bit.py): estimated,
// launched with that component and read back by --from. bitsandbytes' paged classes stay one-GPU.
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildEstimate } from '../../src/core/estimate.js';
import { engineRefusal, withEngineDefaults } from '../../src/core/engines/defaults.js';
import { buildLaunch, type LaunchInput } from '../../src/core/launch/index.js';
import { mapTorchtune } from '../../src/core/engines/torchtune/from.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { torchtuneSchema } from '../fixtures/engine-schemas/index.js';
import { qualityOf } from '../../src/core/plan/quality.js';
import { loadScenario } from '../../src/io/load-scenario.js';
import { planScenarioObject } from '../../src/io/plan-scenario.js';

const llama = resolveModel('llama-3.1-8b');
const gpu = findGpu('h100-sxm');
// torchao v0.10.0 OptimState8bit.zeros: 1-byte codes per value for m and v, one fp32 scale per 256 values.
const STATE_BYTES = 2 * (1 + 4 / 256);

function on(flags: Record<string, unknown>) {
  const all = { framework: 'torchtune', optimizer: 'adamw-8bit', gpu: 'h100-sxm', ...flags };
  const o = withEngineDefaults(optionsFromFlags(all), all);
  return { o, refusal: engineRefusal(llama, o, all), e: () => buildEstimate(llama, o, gpu) };
}

function written(flags: Record<string, unknown>) {
  const p = on(flags);
  const x: LaunchInput = {
    arch: llama,
    options: p.o,
    gpu,
    gradAccum: 1,
    powerLimitW: null,
    estimate: p.e(),
    modelRef: llama.hfId ?? 'llama-3.1-8b',
  };
  const yaml = buildLaunch(x).files.find((f) => f.path === 'torchtune.yaml');
  expect(yaml).toBeDefined();
  return torchtuneSchema.parse(parse(yaml!.content));
}

const optimizerBytes = (e: ReturnType<typeof buildEstimate>) =>
  e.phases.reduce((m, p) => Math.max(m, p.parts.optimizer ?? 0), 0);

describe('torchtune adamw-8bit on several GPUs: torchao AdamW8bit under FSDP2', () => {
  for (const [method, gpus] of [
    ['lora', 2],
    ['qlora', 4],
    ['full', 8],
  ] as const)
    it(`${method} on ${gpus} GPUs is estimated: optimizer bytes per GPU are the sharded 8-bit states and scales`, () => {
      const p = on({ method, gpus, zero: 3 });
      expect(p.refusal).toBeNull();
      const e = p.e();
      for (const v of [e.perGpu.deviceBytes, ...Object.values(e.perGpu.breakdown)])
        expect(Number.isFinite(v) && v >= 0).toBe(true);
      expect(e.time!.stepSeconds).toBeGreaterThan(0);
      const expected = (STATE_BYTES * e.params.trainable) / gpus;
      expect(Math.abs(optimizerBytes(e) / expected - 1)).toBeLessThan(0.01);
    });

  it('launch writes torchao.prototype.low_bit_optim.AdamW8bit on several GPUs; one GPU keeps bitsandbytes', () => {
    const many = written({ method: 'lora', gpus: 2, zero: 3 });
    expect(many.optimizer._component_).toBe('torchao.prototype.low_bit_optim.AdamW8bit');
    expect(written({ method: 'lora', gpus: 1 }).optimizer._component_).toBe(
      'bitsandbytes.optim.AdamW8bit',
    );
    // Pure-bf16 full fine-tunes keep torchao's stochastic-rounding class on any GPU count.
    const full = written({ method: 'full', weights: 'bf16', gpus: 2, zero: 3 });
    expect(full.optimizer._component_).toBe('torchao.optim.AdamW8bit');
    expect(full.optimizer.bf16_stochastic_round).toBe(true);
  });

  it('--from reads the written component back as adamw-8bit', () => {
    const cfg = written({ method: 'lora', gpus: 2, zero: 3 }) as Record<string, unknown>;
    expect(mapTorchtune(cfg).flags.optimizer).toBe('adamw-8bit');
  });

  it('paged 8-bit AdamW has no torchao class: still refused over FSDP2', () => {
    expect(on({ method: 'lora', gpus: 2, zero: 3, optimizer: 'paged-adamw-8bit' }).refusal).toMatch(
      /no paged-adamw-8bit under sharding/,
    );
  });
});

describe('the quality of a pure-bf16 full fine-tune stepped by 8-bit AdamW over FSDP2', () => {
  it('is near, below fp32-master AdamW (exact): 8-bit moments and bf16 stochastic rounding', () => {
    const q = qualityOf(on({ method: 'full', weights: 'bf16', gpus: 8, zero: 3 }).o);
    expect(q.tier).toBe('near');
    expect(q.items.map((x) => x.technique)).toEqual(
      expect.arrayContaining(['adamw-8bit', 'bf16 weights, stochastic rounding']),
    );
    const master = on({ method: 'full', weights: 'fp32', optimizer: 'adamw', gpus: 8, zero: 3 });
    expect(qualityOf(master.o).tier).toBe('exact');
  });

  it('70b-full-zero3-8x asks for exact quality and plans it first; under near the 8-bit plan is first', async () => {
    const path = 'scenarios/70b-full-zero3-8x.yaml';
    const s = loadScenario(path);
    const exact = await planScenarioObject(path, s, { top: 1 });
    expect(exact.plans[0]!.quality.tier).toBe('exact');
    const near = await planScenarioObject(path, { ...s, quality: 'near' }, { top: 1 });
    expect(near.plans[0]!.quality.tier).toBe('near');
    expect(near.plans[0]!.choices.optimizer).toBe('adamw-8bit');
    expect(near.plans[0]!.choices.engine).toBe('torchtune');
  }, 120_000);
});
