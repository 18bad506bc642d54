// llama.cpp's low-bit GGUF mixes (Q2_K, Q3_K_M, IQ1_S, IQ2_XXS, IQ2_M, IQ3_XXS, IQ3_M): block bytes from
// ggml/src/ggml-common.h, the per-tensor types of src/llama-quant.cpp (ggml-org/llama.cpp@007dbbf3), the readers.
import { describe, expect, it } from 'vitest';
import { buildEstimate } from '../../src/core/estimate.js';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { mapServeScript, parseServeScript } from '../../src/core/from/serve-map.js';
import { checkpointFor } from '../../src/core/launch/checkpoints.js';
import { GGML_BLOCK, ggmlBytes } from '../../src/core/model/gguf-mix.js';
import { weightDtypes } from '../../src/core/plan/candidates.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const est = (model: string, flags: Record<string, unknown>) => {
  const f = { method: 'inference', framework: 'llama.cpp', ...flags };
  const o = withEngineDefaults(optionsFromFlags(f), f);
  return buildEstimate(resolveModel(model), o, findGpu('h100-sxm'), defaultTimeOptions(o.gpus));
};
/** The file's bytes: the weights on the GPU and any left in host RAM (token embeddings), one GPU. */
const fileBytes = (model: string, weights: string) => {
  const e = est(model, { weights });
  return e.perGpu.breakdown.weights + e.hostBytesPerGpu;
};
const read = (line: string) => mapServeScript(parseServeScript(line));

describe('low-bit GGUF block sizes', () => {
  it('bytes per weight are ggml-common.h block sizes over their 256 (or 32) weights', () => {
    // block_q2_K: scales[16] + qs[64] + d, dmin = 84 B; block_q3_K: hmask[32] + qs[64] + scales[12] + d = 110 B;
    // block_iq1_s: d + qs[32] + qh[8] u16 = 50 B; block_iq2_xxs: d + qs[32] u16 = 66 B; block_iq2_s: d + qs[64] +
    // qh[8] + scales[8] = 82 B; block_iq3_xxs: d + qs[96] = 98 B; block_iq3_s: d + qs[64] + qh[8] + signs[32] +
    // scales[4] = 110 B; block_iq4_nl / block_q4_0: 18 B a 32.
    const bpw = {
      q2_K: 2.625,
      q3_K: 3.4375,
      iq1_s: 1.5625,
      iq2_xxs: 2.0625,
      iq2_s: 2.5625,
    } as const;
    for (const [t, b] of Object.entries(bpw))
      expect(ggmlBytes(t as keyof typeof bpw) * 8, t).toBe(b);
    expect(ggmlBytes('iq3_xxs') * 8).toBe(3.0625);
    expect(ggmlBytes('iq3_s') * 8).toBe(3.4375);
    expect(GGML_BLOCK.iq4_nl).toEqual({ bytes: 18, weights: 32 });
  });

  it("Llama-3.1-8B's file per type is the size tools/quantize/README.md lists", () => {
    // README "Quantization" table, meta-llama/Llama-3.1-8B: size (GiB) per type.
    const gib = {
      q2_k: 2.95,
      q3_k_m: 3.74,
      iq1_s: 1.87,
      iq2_xxs: 2.23,
      iq2_m: 2.74,
      iq3_xxs: 3.04,
      iq3_m: 3.52,
    };
    for (const [w, g] of Object.entries(gib))
      expect(fileBytes('llama-3.1-8b', w) / 2 ** 30, w).toBeCloseTo(g, 1);
  });
});

describe("Unsloth's DeepSeek-R1 dynamic files", () => {
  // https://unsloth.ai/blog/deepseekr1-dynamic: UD-IQ1_S 131GB, UD-IQ2_XXS 183GB, UD-Q2_K_XL 212GB, with attention
  // and the first three dense layers kept at 4-6 bits; the llama.cpp mixes hold those at their own types.
  const base =
    '--threads 12 -no-cnv --prio 2 --temp 0.6 --ctx-size 8192 --seed 3407 --n-gpu-layers 7';
  const line = (t: string) =>
    `./llama.cpp/llama-cli --model unsloth/DeepSeek-R1-GGUF/DeepSeek-R1-${t}/DeepSeek-R1-${t}-00001-of-00005.gguf --cache-type-k q4_0 ${base}`;

  it('a UD-Q2_K_XL line reads as q2_k with a note and is estimated near the published size', () => {
    const r = read(line('UD-Q2_K_XL'));
    expect(r.flags.weights).toBe('q2_k');
    expect(r.warnings.join('\n')).toMatch(/UD-Q2_K_XL/);
    const gb = fileBytes('deepseek-ai/DeepSeek-R1', 'q2_k') / 1e9;
    // llama.cpp's Q2_K mix keeps ffn_down at Q3_K: 15% over Unsloth's 212 GB, a fifth of the 16-bit fallback's error.
    expect(gb).toBeGreaterThan(212);
    expect(gb).toBeLessThan(212 * 1.2);
  });

  it('UD-IQ1_S and UD-IQ2_XXS read as their llama.cpp mixes within 5% of the published sizes', () => {
    for (const [t, w, gb] of [
      ['UD-IQ1_S', 'iq1_s', 131],
      ['UD-IQ2_XXS', 'iq2_xxs', 183],
    ] as const) {
      const r = read(line(t));
      expect(r.flags.weights, t).toBe(w);
      expect(r.warnings.join('\n'), t).toMatch(/Unsloth Dynamic/);
      expect(fileBytes('deepseek-ai/DeepSeek-R1', w) / 1e9 / gb, t).toBeCloseTo(1, 1);
    }
  });
});

describe('low-bit GGUF spellings', () => {
  it('each file name or -hf tag reads as its mix, or the mix at or above its blocks with a note', () => {
    const cases: [string, string, RegExp | null][] = [
      ['-m Qwen3-235B-A22B-Q2_K.gguf', 'q2_k', null],
      ['-hf unsloth/Qwen3-235B-A22B-GGUF:Q3_K_M', 'q3_k_m', null],
      ['-hf unsloth/Qwen3-235B-A22B-GGUF:UD-Q2_K_XL', 'q2_k', /Q2_K variant/],
      ['-hf unsloth/Qwen3-Coder-480B-A35B-Instruct-GGUF:UD-Q3_K_XL', 'q3_k_m', /Q3_K variant/],
      ['-m GLM-4.5-Q2_K_S.gguf', 'q2_k', /Q2_K variant/],
      ['-m Qwen3-32B-Q3_K_S.gguf', 'q3_k_m', /Q3_K variant/],
      ['-m Kimi-K2-Instruct-UD-IQ1_S-00001-of-00006.gguf', 'iq1_s', /Unsloth Dynamic/],
      ['-m DeepSeek-V3-IQ1_M.gguf', 'iq2_xxs', /IQ1_M/],
      ['-m Qwen3-32B-IQ2_XXS.gguf', 'iq2_xxs', null],
      ['-m Qwen3-32B-IQ2_XS.gguf', 'iq2_m', /IQ2_XS/],
      ['-hf bartowski/Qwen3-32B-GGUF:IQ2_M', 'iq2_m', null],
      ['-m Qwen3-32B-IQ3_XXS.gguf', 'iq3_xxs', null],
      ['-m Qwen3-32B-IQ3_S.gguf', 'iq3_m', /IQ3_S/],
      ['-m Qwen3-32B-IQ3_M.gguf', 'iq3_m', null],
    ];
    for (const [args, w, note] of cases) {
      const r = read(`llama-server ${args} -c 8192 -np 1 -ngl 99`);
      expect(r.flags.weights, args).toBe(w);
      const said = r.warnings.join('\n');
      if (note) expect(said, args).toMatch(note);
      else expect(said, args).not.toMatch(/estimated as 16-bit|give --weights to change/);
    }
  });

  it('--weights iq2_xxs is a GGUF type: refused by the training engines, estimated under llama.cpp', () => {
    expect(() => optionsFromFlags({ method: 'lora', weights: 'iq2_xxs', framework: 'hf' })).toThrow(
      /GGUF type only with --framework/,
    );
    const e = est('llama-3.1-8b', { weights: 'iq2_xxs' });
    expect(e.perGpu.breakdown.weights / 2 ** 30).toBeLessThan(2.3);
  });
});

describe('low-bit GGUF plans and launch', () => {
  it('the planner searches them only where named', () => {
    const searched = weightDtypes('inference').map((c) => c.weights);
    expect(searched).toContain('q4_k_m');
    for (const w of ['q2_k', 'iq1_s', 'iq2_xxs']) expect(searched).not.toContain(w);
    expect(weightDtypes('inference', ['q2_k', 'iq2_m']).map((c) => c.weights)).toEqual([
      'q2_k',
      'iq2_m',
    ]);
  });

  it('launch makes an IQ file with an importance matrix first, a Q2_K file without', () => {
    const iq = checkpointFor(null, 'Qwen/Qwen3-235B-A22B', 'iq2_xxs');
    expect(iq.ref).toBe('model-IQ2_XXS.gguf');
    expect(iq.steps.join('\n')).toMatch(
      /llama-imatrix .*\n.*llama-quantize --imatrix imatrix.gguf/,
    );
    const q2 = checkpointFor(null, 'Qwen/Qwen3-235B-A22B', 'q2_k');
    expect(q2.steps.at(-1)).toBe('llama-quantize model-f16.gguf model-Q2_K.gguf Q2_K');
  });
});
