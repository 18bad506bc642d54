// The planner never ranks bitsandbytes 4-bit weights under DeepSpeed ZeRO-3 with CPU offload (rule
// deepspeed-zero3-4bit-offload: PEFT's DeepSpeed guide reports more GPU memory with that offload, not less),
// while 16-bit LoRA under ZeRO-3 offload (the guide's one-GPU recipe) stays a plan.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { plan } from '../../src/core/plan/index.js';
import { is4bit } from '../../src/core/launch/common.js';
import { resolveModel } from '../../src/io/load-model.js';
import { loadScenario, resolveHardware } from '../../src/io/load-scenario.js';

describe('4-bit weights under ZeRO-3 with CPU offload', () => {
  it('are not planned on DeepSpeed; 16-bit LoRA with ZeRO-3 offload still is', () => {
    const s = loadScenario(join(import.meta.dirname, '..', '..', 'scenarios', 'default.yaml'));
    const hw = resolveHardware(s);
    const arch = resolveModel(s.model);
    const r = plan({ scenario: s, arch, hardware: hw.options, circuits: hw.circuits, top: 1000 });
    const z3Offload = r.plans.filter(
      (p) =>
        p.choices.engine === 'hf-deepspeed' && p.options.zero === 3 && p.options.offload !== 'none',
    );
    expect(z3Offload.length).toBeGreaterThan(0);
    expect(z3Offload.filter((p) => is4bit(p.options))).toEqual([]);
    expect(z3Offload.some((p) => p.options.method === 'lora' && !is4bit(p.options))).toBe(true);
    // QLoRA itself stays planned (other engines, DeepSpeed without a ZeRO-3 offload).
    expect(r.plans.some((p) => is4bit(p.options))).toBe(true);
  });
});
