// Under vLLM's piecewise CUDA graphs each layer's attention op runs eagerly between the captured pieces: the dispatcher's
// call of torch.ops.vllm.unified_attention_with_output, its forward-context lookup and FlashAttentionImpl.forward's
// Python around its two kernels. Timed on a CPU with the wheels' own classes, kernels stubbed
// (scripts/measure/vllm_eager_layer_host.py `attention_ops`; fixture
// test/fixtures/measure/vllm-piecewise-attention-host.json), it is what VLLM_PIECEWISE_ATTENTION_PYTHON_SECONDS carries.
import { describe, expect, it } from 'vitest';
import {
  VLLM_PIECEWISE_ATTENTION_CALLS,
  VLLM_PIECEWISE_ATTENTION_PYTHON_SECONDS,
} from '../../src/core/engines/vllm/piecewise.js';
import { readMeasureFixture } from '../helpers/measured.js';

interface OpRow {
  batch: number;
  attention_ops_us: number;
  custom_ops: number;
  stubbed_calls: number;
}
const measured = readMeasureFixture('vllm-piecewise-attention-host.json') as Record<
  string,
  { attention_ops: OpRow[]; llama_layer_us: number[] }
>;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

describe("vLLM's piecewise attention op: the Python that runs between the pieces", () => {
  it("is the 0.11.0 wheel's op at 1, 16 and 64 sequences (within 10%), nearly flat in the batch", () => {
    const rows = measured['0.11.0']!.attention_ops;
    expect(rows.map((r) => r.batch)).toEqual([1, 16, 64]);
    const us = median(rows.map((r) => r.attention_ops_us));
    expect(VLLM_PIECEWISE_ATTENTION_PYTHON_SECONDS / (us * 1e-6)).toBeGreaterThan(0.9);
    expect(VLLM_PIECEWISE_ATTENTION_PYTHON_SECONDS / (us * 1e-6)).toBeLessThan(1.1);
    const l = rows.map((r) => r.attention_ops_us);
    expect(Math.max(...l) / Math.min(...l)).toBeLessThan(1.15);
    expect(VLLM_PIECEWISE_ATTENTION_CALLS.kvPythonSeconds).toBe(
      VLLM_PIECEWISE_ATTENTION_PYTHON_SECONDS,
    );
  });

  it('stubs the two kernels the profile counts: reshape_and_cache_flash and flash_attn_varlen_func', () => {
    for (const v of ['0.11.0', '0.15.1'])
      for (const r of measured[v]!.attention_ops)
        expect(r.stubbed_calls).toBe(VLLM_PIECEWISE_ATTENTION_CALLS.kv);
  });

  it('0.11.0 issues one custom op; 0.15.1 splits the cache write into a second and spends more', () => {
    expect(measured['0.11.0']!.attention_ops.every((r) => r.custom_ops === 1)).toBe(true);
    expect(measured['0.15.1']!.attention_ops.every((r) => r.custom_ops === 2)).toBe(true);
    const v11 = median(measured['0.11.0']!.attention_ops.map((r) => r.attention_ops_us));
    const v15 = median(measured['0.15.1']!.attention_ops.map((r) => r.attention_ops_us));
    expect(v15).toBeGreaterThan(v11);
    // A small share of the eagerly run layer's Python (vLLM's eager layer: 86-106 µs in these wheels).
    expect(v11).toBeLessThan(median(measured['0.11.0']!.llama_layer_us) / 3);
  });
});
