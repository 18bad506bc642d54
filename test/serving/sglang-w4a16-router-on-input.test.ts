// Llama 4's MoE scales each token's expert input by its router weight (SGLang Llama4MoE:
// apply_router_weight_on_input=True). SGLang 0.5.23 serves a compressed-tensors int4 MoE through its Marlin method,
// whose apply_weights never passes that flag and weights the expert output instead: `estimate` refuses the
// combination with the engine's source, the planner never ranks it, and other weights of the model still run.
import { afterAll, describe, expect, it } from 'vitest';
import { engineRefusal, withEngineDefaults } from '../../src/core/engines/defaults.js';
import { plan } from '../../src/core/plan/index.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { closeJslpWorkers } from '../../src/solve/index.js';
import { inputOf } from './plan-input.js';

afterAll(() => closeJslpWorkers());

const scout = resolveModel('llama-4-scout-17b-16e');
const qwenMoe = resolveModel('qwen3-30b-a3b');

function refusal(arch: typeof scout, flags: Record<string, unknown>): string | null {
  const all = {
    method: 'inference',
    framework: 'sglang',
    seq: 8192,
    batch: 32,
    gpus: 4,
    tp: 4,
    ...flags,
  };
  return engineRefusal(arch, withEngineDefaults(optionsFromFlags(all), all), all);
}

describe('SGLang W4A16 MoE with the router weight on the input', () => {
  it("refuses Llama 4 Scout's int4 (compressed-tensors) checkpoint, citing the engine's source", () => {
    const why = refusal(scout, { weights: 'int4' });
    expect(why).toMatch(/sglang-w4a16-moe-router-weight-on-input/);
    expect(why).toMatch(/apply_router_weight_on_input/);
    expect(why).toMatch(/sglang\/0\.5\.23.*compressed_tensors_wNa16_moe\.py:444-496/);
    expect(why).toMatch(/models\/llama4\.py:127/);
  });

  it('runs the same model in bf16 and fp8, and int4 on vLLM', () => {
    expect(refusal(scout, { weights: 'bf16' })).toBeNull();
    expect(refusal(scout, { weights: 'fp8' })).toBeNull();
    expect(refusal(scout, { weights: 'int4', framework: 'vllm' })).toBeNull();
  });

  it('leaves an int4 MoE whose router weights the output (Qwen3-30B-A3B) to the Marlin path', () => {
    expect(refusal(qwenMoe, { weights: 'int4', gpus: 1, tp: 1 })).toBeNull();
  });

  it('never ranks it for 32 users of Scout on four H100', () => {
    const input = inputOf('serve-8b-64-users-24gb.yaml', (sc) => {
      sc.model = 'llama-4-scout-17b-16e';
      sc.job = { kind: 'inference', context: 8192, concurrency: 32, outputTokens: 100_000_000 };
      sc.hardware = {
        ...sc.hardware,
        owned: [],
        rent: { gpus: ['h100-sxm'], kinds: ['on-demand'] },
        counts: { min: 4, max: 4 },
      };
      sc.power = { ...sc.power, circuits: [] };
      sc.expect = undefined;
    });
    const ranked = plan({ ...input, top: 40 }).plans;
    const combos = new Set(ranked.map((p) => `${p.options.framework} ${p.options.weights}`));
    expect(combos.has('sglang int4')).toBe(false);
    expect([...combos].some((c) => c.startsWith('sglang '))).toBe(true);
  });
});
