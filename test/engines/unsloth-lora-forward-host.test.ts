/**
 * Unsloth's rewrite of PEFT's lora.Linear.forward (unslothai/unsloth-zoo@ce232d6c unsloth_zoo/compiler.py
 * patch_lora_forwards): the host time its profile prices is the measurement's (scripts/measure/
 * unsloth_lora_forward_host.py), in the arm Unsloth's rows run (a 16-bit layer under autocast, lora_dropout 0).
 */
import { describe, expect, it } from 'vitest';
import { UNSLOTH_GENERATE_LINEAR } from '../../src/core/engines/unsloth/lora-path.js';
import { readMeasured } from '../helpers/measured.js';

interface Mode {
  amp: boolean;
  lora_dropout: number;
  ops: Record<string, number | string[]>;
  unsloth_linear_layers: { min: number; median: number; max: number };
  unsloth_over_peft: { min: number; median: number; max: number };
}
const fixture = readMeasured('unsloth-lora-forward-host-cpu.json') as {
  versions: Record<string, string>;
  modes: Mode[];
};

describe("Unsloth's LoRA forward host time", () => {
  const amp = fixture.modes.find((m) => m.amp && m.lora_dropout === 0)!;

  it('was measured at the rows’ versions', () => {
    expect(fixture.versions.torch).toMatch(/^2\.8\.0/);
    expect(fixture.versions.transformers).toBe('4.56.2');
    expect(fixture.versions.peft).toBe('0.15.2');
  });

  it('prices the median of the amp arm’s rounds, inside their spread', () => {
    const m = amp.unsloth_linear_layers;
    expect(UNSLOTH_GENERATE_LINEAR.layers).toBeCloseTo(m.median, 2);
    expect(UNSLOTH_GENERATE_LINEAR.layers).toBeGreaterThanOrEqual(m.min);
    expect(UNSLOTH_GENERATE_LINEAR.layers).toBeLessThanOrEqual(m.max);
  });

  it('its kernels are the arm’s: two casts, the mm and the addmm on each of the seven linears', () => {
    const ops = amp.ops.unsloth_linear as string[];
    const kernels = ops.filter((op) => ['aten._to_copy', 'aten.mm', 'aten.addmm'].includes(op));
    expect(kernels.length / 7).toBe(UNSLOTH_GENERATE_LINEAR.kernels);
  });
});
