/**
 * vLLM's MLA decode of the 0.7 line reads W_Q_UK and W_UV_O, the absorbed weights it materializes at load
 * (VLLM_MLA_PERFORM_MATRIX_ABSORPTION, default on in the 0.7.1 and 0.7.3 wheels; gone in 0.8.0 with
 * vllm-project/vllm#14770), in place of q_b, kv_b and o_proj (time/mla-absorbed.ts): the decode step's weight read
 * grows by their difference, only for MLA models and only in those releases.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { decodeStep, gpuRates, modelFacts } from '../../src/core/time/index.js';
import { mlaAbsorbedExtraBytes } from '../../src/core/time/mla-absorbed.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags, type RawFlags } from '../../src/schema/flags.js';
import { timeOptionsFromFlags, type TimeOptions } from '../../src/schema/time.js';
import { rowEngineVersion } from '../helpers/row-version.js';

const dsv3 = modelFacts(resolveModel('deepseek-v3'));
const llama = modelFacts(resolveModel('llama-3.1-8b'));
const vllm = FRAMEWORKS.vllm;
// The FlashMLA pull request's branch of February 2025, as its calibration rows name it.
const BUILD_FEB_2025 = rowEngineVersion('vllm13747-dsr1-fp8-8xh200-tp8-flashmla-i3000-o1000-n100');

function step(model: string, batch: number, ctx: number, version: string) {
  const f: RawFlags = {
    model,
    gpu: 'h200-sxm',
    method: 'inference',
    batch,
    framework: 'vllm',
    seq: ctx,
    gpus: 8,
    tp: 8,
    weights: 'fp8',
  };
  const o = optionsFromFlags(f);
  const t: TimeOptions = { ...timeOptionsFromFlags(f, o), engineVersion: version };
  const m = model === 'llama-3.1-8b' ? llama : dsv3;
  return decodeStep(m, o, t, gpuRates(findGpu('h200-sxm'), t), true, ctx);
}

describe("vLLM 0.7's materialized MLA absorption", () => {
  it('reads W_Q_UK and W_UV_O (FP8) and W_QR (bf16) in place of q_b, kv_b and o', () => {
    // DeepSeek-V3 over TP 8: 16 heads a rank, q_lora_rank 1536, kv_lora_rank 512, rope 64, nope 128, v 128, hidden 7168.
    const absorbed = 1536 * 16 * 512 + 16 * 512 * 7168 + 1536 * 16 * 64 * 2;
    const own = 1536 * 16 * 192 + 512 * 16 * 256 + 16 * 128 * 7168;
    const s = { tp: 8, wb: 1, fp8: true };
    expect(mlaAbsorbedExtraBytes(dsv3, vllm, { ...s, version: '0.7.3' })).toBe(
      61 * (absorbed - own),
    );
    expect(mlaAbsorbedExtraBytes(dsv3, vllm, { ...s, version: BUILD_FEB_2025 })).toBe(
      61 * (absorbed - own),
    );
    // About 3.2 GB a step on each rank.
    expect(61 * (absorbed - own)).toBeGreaterThan(3.1e9);
    for (const version of ['0.7.0', '0.8.0', '0.8.4', '0.11.0'])
      expect(mlaAbsorbedExtraBytes(dsv3, vllm, { ...s, version })).toBe(0);
    expect(mlaAbsorbedExtraBytes(dsv3, vllm, s)).toBe(0); // no release named: the newest
    expect(mlaAbsorbedExtraBytes(llama, vllm, { ...s, version: '0.7.3' })).toBe(0);
    expect(mlaAbsorbedExtraBytes(dsv3, FRAMEWORKS.sglang, { ...s, version: '0.7.3' })).toBe(0);
    // A 16-bit checkpoint keeps the absorbed weights in the activation dtype.
    const bf16 = mlaAbsorbedExtraBytes(dsv3, vllm, { tp: 8, wb: 2, fp8: false, version: '0.7.3' });
    expect(bf16).toBe(61 * ((1536 * 16 * 512 + 16 * 512 * 7168 + 1536 * 16 * 64) * 2 - own * 2));
  });

  it("lengthens a 0.7 decode step of DeepSeek-V3 by the extra read, and no other model's", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 256 }),
        fc.integer({ min: 64, max: 8192 }),
        (batch, ctx) => {
          const v07 = step('deepseek-v3', batch, ctx, '0.7.3');
          const v08 = step('deepseek-v3', batch, ctx, '0.8.0');
          expect(v07.stepSeconds).toBeGreaterThan(v08.stepSeconds);
          const l07 = step('llama-3.1-8b', batch, ctx, '0.7.3');
          const l08 = step('llama-3.1-8b', batch, ctx, '0.8.0');
          expect(l07.stepSeconds).toBe(l08.stepSeconds);
        },
      ),
      { numRuns: 12 },
    );
    // At one sequence the step is its weight read: about 3.2 GB more at the H200's stream rate, 0.6-1 ms.
    const d =
      step('deepseek-v3', 1, 1000, '0.7.3').stepSeconds -
      step('deepseek-v3', 1, 1000, '0.8.0').stepSeconds;
    expect(d).toBeGreaterThan(0.6e-3);
    expect(d).toBeLessThan(1.0e-3);
  });
});
