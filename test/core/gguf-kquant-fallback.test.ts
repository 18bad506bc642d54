// llama.cpp stores a k-quant tensor whose row width (input features) is not a multiple of 256 in a fallback type
// (src/llama-quant.cpp tensor_type_fallback); gpt-oss GGUFs keep their routed experts in MXFP4.
import { describe, expect, it } from 'vitest';
import { ggufTensorBytes, valueBytes } from '../../src/core/model/dtypes.js';
import { ggufLinearBytes } from '../../src/core/model/native-weights.js';
import { linearReadBytes, modelFacts, weightBytes } from '../../src/core/time/model-facts.js';
import { resolveModel } from '../../src/io/load-model.js';
import { buildEstimate } from '../../src/core/estimate.js';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { optionsFromFlags } from '../../src/schema/flags.js';

const weightsOf = (model: string, weights: string): number => {
  const all = { method: 'inference', framework: 'llama.cpp', weights, seq: 600, batch: 1 };
  const o = withEngineDefaults(optionsFromFlags(all), all);
  return buildEstimate(resolveModel(model), o, findGpu('h100-sxm')).perGpu.breakdown.weights;
};

describe('GGUF k-quant fallback by row width', () => {
  it('a width that is a multiple of 256 keeps the file mix; another costs more bits', () => {
    expect(ggufTensorBytes('q4_k_m', 4096)).toBe(valueBytes('q4_k_m'));
    const off = ggufTensorBytes('q4_k_m', 2880);
    expect(off).toBeGreaterThan(5.5 / 8); // Q5_0 at least
    expect(off).toBeLessThan(8.5 / 8); // below Q8_0
    expect(ggufTensorBytes('q5_k_m', 2880)).toBeGreaterThan(valueBytes('q5_k_m'));
    expect(ggufTensorBytes('q6_k', 2880)).toBe(8.5 / 8);
  });

  it('Q8_0 (blocks of 32) never falls back; the output head goes straight to Q8_0', () => {
    expect(ggufTensorBytes('q8_0', 2880)).toBe(valueBytes('q8_0'));
    expect(ggufTensorBytes('q4_k_m', 2880, true)).toBe(8.5 / 8);
    expect(ggufTensorBytes('q4_k_m', 4096, true)).toBe(valueBytes('q4_k_m'));
  });

  it('a model whose widths are all multiples of 256 reads the file mix exactly', () => {
    const m = modelFacts(resolveModel('llama-2-7b'));
    expect(linearReadBytes(m, 'q4_k_m')).toBe(weightBytes('q4_k_m'));
    expect(linearReadBytes(m, 'int4')).toBe(weightBytes('int4'));
  });

  it('gpt-oss-20b (hidden 2880): experts stay MXFP4, the attention inputs fall back, o_proj (4096 wide) does not', () => {
    const arch = resolveModel('gpt-oss-20b');
    const ls = arch.groups.flatMap((g) => g.linears);
    const expert = ls.find((l) => l.copies > 1)!;
    expect(ggufLinearBytes(arch, expert, 'q4_k_m')).toBe(0.5 + 1 / 32);
    const dense = ls.filter((l) => l.copies === 1);
    const wide = dense.filter((l) => l.inFeatures % 256 === 0);
    const narrow = dense.filter((l) => l.inFeatures % 256 !== 0);
    expect(wide.length).toBeGreaterThan(0);
    expect(narrow.length).toBeGreaterThan(0);
    for (const l of wide) expect(ggufLinearBytes(arch, l, 'q4_k_m')).toBe(valueBytes('q4_k_m'));
    for (const l of narrow)
      expect(ggufLinearBytes(arch, l, 'q4_k_m')).toBe(ggufTensorBytes('q4_k_m', 2880));
  });
});

describe('GGUF weights in memory', () => {
  it('gpt-oss-20b Q4_K_M holds less than every linear at the mix would (MXFP4 experts) and more than MXFP4 + mix', () => {
    const arch = resolveModel('gpt-oss-20b');
    let mix = 0;
    let kept = 0;
    for (const g of arch.groups)
      for (const l of g.linears) {
        const n = g.count * l.inFeatures * l.outFeatures * l.copies;
        mix += n * valueBytes('q4_k_m');
        kept += n * (l.copies > 1 ? 0.5 + 1 / 32 : valueBytes('q4_k_m'));
      }
    // The experts' MXFP4 saves more than the fallback adds (embeddings, head and norms included).
    expect(weightsOf('gpt-oss-20b', 'q4_k_m')).toBeLessThan(mix);
    expect(weightsOf('gpt-oss-20b', 'q4_k_m')).toBeGreaterThan(kept); // q/k/v, embeddings and head fall back
  });

  it('Q8_0 is the same type at every width: gpt-oss-20b Q8_0 moves only by its MXFP4 experts', () => {
    expect(weightsOf('gpt-oss-20b', 'q8_0')).toBeLessThan(weightsOf('gpt-oss-20b', 'q4_k_m') * 1.2);
  });
});
