// A serving plan's technique names the kernel its quantized weights run through (choices.quantFormat): Marlin
// for AWQ int4 and for FP8 weight-only on Ampere, CUTLASS for W8A8; a GGUF type names its own.
import { afterAll, describe, expect, it } from 'vitest';
import { plan } from '../../src/core/plan/index.js';
import { closeJslpWorkers } from '../../src/solve/index.js';
import { techniqueOf } from '../../src/ui/plan-text.js';
import { inputOf } from '../serving/plan-input.js';

afterAll(() => closeJslpWorkers());

describe("a serving plan's technique", () => {
  it('names the kernel of its quantized weights', () => {
    const r = plan({
      ...inputOf('serve-8b-64-users-24gb.yaml', (s) => {
        s.hardware = { ...s.hardware, owned: [{ gpu: 'a100-80gb-sxm', count: 1 }] };
        s.power = { ...s.power, circuits: [] };
        s.expect = undefined;
      }),
      top: 60,
    });
    const text = (w: string) => r.plans.find((p) => p.choices.weights === w)!;
    expect(techniqueOf(text('int4'))).toMatch(/^inference int4 marlin, /);
    // Ampere has no FP8 tensor cores: vLLM runs FP8 weight-only through Marlin.
    expect(techniqueOf(text('fp8'))).toMatch(/^inference fp8 marlin, /);
    expect(techniqueOf(text('int8'))).toMatch(/^inference int8 cutlass, /);
    const bf16 = r.plans.find((p) => p.choices.weights === 'bf16');
    if (bf16) expect(techniqueOf(bf16)).toMatch(/^inference bf16, /);
  });
});
