// transformers serves a GGUF file by dequantizing it as it loads (from_pretrained gguf_file=...: load_gguf_checkpoint
// dequantizes every tensor on the host and casts it to the model's dtype, float32 under dtype "auto" for a .gguf
// checkpoint, transformers 5.14.1 modeling_utils.py:862-863): `--framework hf-generate --weights q4_k_m` is estimated
// as the float32 model with a note citing that, refused for a GGUF architecture transformers does not read
// (modeling_gguf_pytorch_utils.py:649-650), and never launched; the training engines still refuse GGUF weights.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import '../../src/core/engines/registry.js';
import { runEstimate } from '../../src/commands/estimate-run.js';
import { launchInputFromFlags } from '../../src/commands/launch-run.js';
import { resolveModel } from '../../src/io/load-model.js';
import { GGUF_DTYPES } from '../../src/schema/estimate.js';
import type { RawFlags } from '../../src/schema/flags.js';
import { stdoutOf } from '../helpers/published-configs.js';

interface Report {
  perGpu: { deviceBytes: number; breakdown: Record<string, number> };
  time?: { stepSeconds: number };
  warnings?: string[];
}

const LAUNCH = {
  gradAccum: undefined,
  powerLimit: undefined,
  sharding: undefined,
  out: '/tmp/unused',
  force: false,
};

const SERVE = { framework: 'hf-generate', method: 'inference', gpu: 'h100-sxm', batch: 4 };

const estimate = (model: string, flags: Record<string, string | number>): Report =>
  JSON.parse(
    stdoutOf(() => runEstimate(resolveModel(model), { ...SERVE, ...flags } as RawFlags, true)),
  ) as Report;

describe('hf-generate --weights <GGUF type>: the float model transformers dequantizes the file into', () => {
  it('is estimated as --weights fp32 --compute fp32, with a note citing the loader', () => {
    const gguf = estimate('llama-3.1-8b', { weights: 'q4_k_m' });
    const fp32 = estimate('llama-3.1-8b', { weights: 'fp32', compute: 'fp32' });
    expect(gguf.perGpu).toEqual(fp32.perGpu);
    expect(gguf.time!.stepSeconds).toBe(fp32.time!.stepSeconds);
    // 8.03B parameters in float32, not a 4.8-bit file.
    expect(gguf.perGpu.breakdown.weights! / 2 ** 30).toBeGreaterThan(29);
    expect(gguf.warnings!.join('\n')).toMatch(
      /--weights q4_k_m: transformers loads a GGUF file .*modeling_utils\.py:862-863.*estimated as --weights fp32 --compute fp32/,
    );
  });

  it('every GGUF type and supported architecture estimates as the same float32 model', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...GGUF_DTYPES),
        fc.constantFrom('llama-3.1-8b', 'qwen3-8b', 'qwen3-30b-a3b'),
        (weights, model) => {
          const gguf = estimate(model, { weights });
          expect(gguf.perGpu).toEqual(estimate(model, { weights: 'fp32', compute: 'fp32' }).perGpu);
        },
      ),
      { numRuns: 12 },
    );
  });

  it('an architecture transformers reads no GGUF file of is refused, citing its check', () => {
    expect(() => estimate('deepseek-v3', { weights: 'q4_k_m' })).toThrow(
      /model_type 'deepseek_v3'.*GGUF model with architecture \{architecture\} is not supported yet.*modeling_gguf_pytorch_utils\.py:649-650/,
    );
  });

  it('is not launched, and the training engines still refuse GGUF weights', () => {
    const flags = { ...SERVE, weights: 'q4_k_m' } as RawFlags;
    expect(() => launchInputFromFlags('llama-3.1-8b', flags, LAUNCH)).toThrow(
      /--framework hf-generate: vramplan writes no hf-generate launch files .*no q4_k_m weights/,
    );
    expect(() =>
      estimate('llama-3.1-8b', { method: 'lora', framework: 'hf', weights: 'q4_k_m' }),
    ).toThrow(/a GGUF type only with --framework vllm or sglang or llama\.cpp/);
  });
});
