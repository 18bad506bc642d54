// llama.cpp stores a k-quant tensor whose row width (input features) is not a multiple of 256 in a fallback type
// (src/llama-quant.cpp tensor_type_fallback); gpt-oss GGUFs keep their routed experts in MXFP4.
import { describe, expect, it } from 'vitest';
import { ggufTensorBytes, valueBytes } from '../../src/core/model/dtypes.js';
import { ggufLinearBytes } from '../../src/core/model/native-weights.js';
import { linearReadBytes, modelFacts, weightBytes } from '../../src/core/time/model-facts.js';
import { resolveModel } from '../../src/io/load-model.js';

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
