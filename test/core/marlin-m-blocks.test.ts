/**
 * Marlin walks a GEMM's rows in 16-row blocks, a kernel of 1-4 blocks per pass and the 4-block (64-row) kernel
 * repeated above that (IST-DASLab/marlin marlin_cuda_kernel.cu; KernelFamily.mBlocks, time/m-blocks.ts): on an A100
 * 16 rows cost the weight stream, 64 rows one pass at the large-M rate (about 2x the stream in IST-DASLab/marlin
 * bench.py, vllm-project/vllm#2497), and only as M grows does the cap of KernelFamily.sm80PeakShare set the time.
 */
import { describe, expect, it } from 'vitest';
import { gpuRates, modelFacts, servingTime } from '../../src/core/time/index.js';
import {
  decodeTraffic,
  prefillGpuSeconds,
  prefillWeightSeconds,
} from '../../src/core/time/decode.js';
import { shapeFactor } from '../../src/core/time/shape.js';
import { embedOnly } from '../../src/core/time/train-work.js';
import { mBlockSeconds } from '../../src/core/time/m-blocks.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags, type RawFlags } from '../../src/schema/flags.js';
import { timeOptionsFromFlags } from '../../src/schema/time.js';

const MODEL = 'llama-3.1-8b';

/** A prefill of `rows` tokens of one prompt through named Marlin on an A100, and its one read of the weights. */
function prefill(rows: number, gpu = 'a100-80gb-sxm', batch = 1) {
  const f: RawFlags = {
    model: MODEL,
    gpu,
    method: 'inference',
    framework: 'vllm',
    weights: 'int4',
    'quant-format': 'marlin',
    batch,
    seq: rows + 128,
    'prompt-tokens': rows,
  };
  const o = optionsFromFlags(f);
  const t = timeOptionsFromFlags(f, o);
  const r = gpuRates(findGpu(gpu), t);
  const m = modelFacts(resolveModel(MODEL));
  const tr = decodeTraffic(m, o, t, r, 1, rows);
  return {
    seconds: prefillGpuSeconds(m, o, r, tr, rows, 1),
    read: prefillWeightSeconds(o, r, tr),
    // The linears' FLOPs at the large-M cap (a wide matrix's rate) and one read: the large-M time.
    capped:
      (2 * (m.active - embedOnly(m)) * rows) / (tr.rate * shapeFactor(Infinity, m.hidden)) +
      prefillWeightSeconds(o, r, tr),
    tr,
    serving: () => servingTime(m, o, t, r),
  };
}

describe('mBlockSeconds', () => {
  // IST-DASLab/marlin bench.py on an A100 (vllm-project/vllm#2497): 0.14 ms at batch 1-16, 0.18 at 32, 0.29 at 64,
  // 0.57 at 128, 17.76 at 4,000.
  const b = { rows: 16, perPass: 4 };
  const stream = 0.14;
  const row = 0.29 / 64;
  it('16 rows cost the stream, 64 one pass at the large-M rate, more rows whole passes', () => {
    expect(mBlockSeconds(1, b, stream, row)).toBe(stream);
    expect(mBlockSeconds(16, b, stream, row)).toBe(stream);
    expect(mBlockSeconds(64, b, stream, row)).toBeCloseTo(0.29, 6);
    expect(mBlockSeconds(128, b, stream, row)).toBeCloseTo(0.58, 6);
    expect(mBlockSeconds(4000, b, stream, row) / 17.76).toBeCloseTo(1, 1);
  });
  it('pads the last pass to whole 16-row blocks', () => {
    expect(mBlockSeconds(65, b, stream, row)).toBeCloseTo(0.29 + stream, 6);
    expect(mBlockSeconds(40, b, stream, row)).toBeCloseTo(48 * row, 6);
  });
});

describe("Marlin's prefill GEMMs at 16-64 rows on an A100", () => {
  it('16 rows take about the weight stream', () => {
    const p = prefill(16);
    expect(p.tr.mBlocks).not.toBeNull();
    // The attention and the rest beyond the linears add a little.
    expect(p.seconds / p.read).toBeLessThan(1.1);
  });

  it('32 and 64 rows take one pass: the longer of the stream and their rows at the large-M rate', () => {
    // bench.py on a 1.16 TB/s A100: 1.29x the stream at 32 rows, 2.07x at 64; the factor is the card's own
    // (its bandwidth against its large-M rate), not a small-M GEMM's shape loss.
    for (const rows of [32, 64]) {
      const p = prefill(rows);
      const pass = Math.max(p.read, p.capped - p.read);
      expect(p.seconds / pass).toBeGreaterThan(0.99);
      expect(p.seconds / pass).toBeLessThan(1.1);
    }
    expect(prefill(64).seconds).toBeGreaterThan(prefill(16).seconds);
  });

  it('4,000 rows stay at the large-M cap', () => {
    const p = prefill(4000);
    expect(p.seconds / p.capped).toBeGreaterThan(1);
    expect(p.seconds / p.capped).toBeLessThan(1.1);
  });

  it('an RTX 3090 (compute capability 8.6, no sourced large-M rate) keeps the shape-scaled GEMM', () => {
    expect(prefill(16, 'rtx-3090').tr.mBlocks).toBeNull();
  });
});

describe("a neighbour's prompt chunked into a Marlin decode step on an A100", () => {
  it('costs the pass its rows add to the step: a 64-row step plus a short prompt reads the weights again', () => {
    // vLLM schedules the prompt's 8 tokens into the step of the 63 others (64 in flight): 71 rows, a 64-row pass and
    // a 16-row one, the second a whole stream of the weights; 8 in flight leave room in the step's one 16-row block.
    const full = prefill(8, 'a100-80gb-sxm', 64);
    expect(full.serving().stall).toBeGreaterThan(0.9 * full.read);
    const room = prefill(8, 'a100-80gb-sxm', 8);
    expect(room.serving().stall).toBeLessThan(0.5 * room.read);
  });
});
