// What DeepSpeed steps on the host under ZeRO-Offload through the Trainer (hf-deepspeed): AdamW and Lion with its
// own vectorized CPU kernels, SGD, Adafactor and bitsandbytes' 8-bit AdamW as the Trainer's client optimizer (on the
// host with zero_force_ds_cpu_optimizer false); paged optimizers (CUDA managed memory) stay refused.
import { describe, expect, it } from 'vitest';
import { buildEstimate } from '../../src/core/estimate.js';
import { engineRefusal, withEngineDefaults } from '../../src/core/engines/defaults.js';
import { ENGINE_PROFILES } from '../../src/core/engines/engines.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { optionsFromFlags } from '../../src/schema/flags.js';

const llama = resolveModel('llama-3.1-8b');

function onDeepSpeed(optimizer: string, offload = 'optimizer') {
  const all = {
    framework: 'hf-deepspeed',
    method: 'full',
    optimizer,
    zero: 3,
    gpus: 4,
    offload,
    gpu: 'h100-sxm',
  };
  const o = withEngineDefaults(optionsFromFlags(all), all);
  return {
    refusal: engineRefusal(llama, o, all),
    e: () => buildEstimate(llama, o, findGpu('h100-sxm')),
  };
}

describe('hf-deepspeed: host-side optimizer steps under ZeRO-Offload', () => {
  it('Lion is estimated as DeepSpeedCPULion: the vectorized host step of AdamW, the same device bytes', () => {
    const lion = onDeepSpeed('lion');
    expect(lion.refusal).toBeNull();
    const adamw = onDeepSpeed('adamw').e();
    const e = lion.e();
    expect(e.time!.stepSeconds).toBeCloseTo(adamw.time!.stepSeconds, 6);
    expect(e.perGpu.allocatedBytes).toBe(adamw.perGpu.allocatedBytes);
    // Estimated, not written: the launcher's set is unchanged.
    expect(ENGINE_PROFILES['hf-deepspeed'].offloadOptimizers).not.toContain('lion');
  });
  it('SGD, Adafactor and 8-bit AdamW are estimated as client optimizers stepping on the host (slower)', () => {
    const adamw = onDeepSpeed('adamw').e();
    for (const opt of ['sgd', 'sgd-momentum', 'adafactor', 'adamw-8bit']) {
      const r = onDeepSpeed(opt);
      expect(r.refusal, opt).toBeNull();
      expect(r.e().time!.stepSeconds, opt).toBeGreaterThan(adamw.time!.stepSeconds);
    }
  });
  it("paged optimizers stay refused, citing DeepSpeed's offload check and bitsandbytes' paged states", () => {
    for (const opt of ['paged-adamw-8bit', 'paged-adamw']) {
      const why = onDeepSpeed(opt).refusal!;
      expect(why, opt).toMatch(new RegExp(`--optimizer: got '${opt}'`));
      expect(why, opt).toMatch(/deepspeed 0\.19\.8 runtime\/engine\.py/);
      expect(why, opt).toMatch(/zero_force_ds_cpu_optimizer/);
      expect(why, opt).toMatch(/get_paged/);
      expect(why, opt).not.toMatch(/\n/);
    }
    // Without offload the same optimizer runs on the GPU.
    expect(onDeepSpeed('paged-adamw-8bit', 'none').refusal).toBeNull();
    // Adam-mini is no Trainer optimizer at all: the optimizer's own refusal and source, offloaded or not.
    for (const offload of ['none', 'optimizer'])
      expect(onDeepSpeed('adam-mini', offload).refusal, offload).toMatch(
        /no adam-mini optimizer .*transformers\/training_args\.py/,
      );
  });
});
