// A GPU whose catalog entry measures the all-reduce over a node's GPUs (interconnect.allReduce): no TP decode call
// takes less than the measured time at its message size; every other GPU and group size is timed as before.
import { describe, expect, it } from 'vitest';
import '../../src/core/engines/registry.js';
import { estimateTime } from '../../src/core/time/index.js';
import { gpuRates, measuredAllReduceSeconds } from '../../src/core/time/hardware.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { vocabParallelLogitsSeconds } from '../../src/core/time/vocab-parallel.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const infer = (o: Partial<EstimateOptions>): EstimateOptions => ({
  ...defaultOptions('inference'),
  framework: 'vllm',
  weights: 'fp8',
  seq: 256,
  promptTokens: 128,
  ...o,
});
const tpSeconds = (r: ReturnType<typeof estimateTime>) =>
  r.phases.find((x) => x.phase === 'tensor-parallel')?.seconds ?? 0;

describe('measured all-reduce (catalog interconnect.allReduce)', () => {
  const table = { ranks: 8, bytes: [1024, 1048576, 8388608], seconds: [7e-6, 19e-6, 84e-6] };
  it('interpolates linearly between sizes, holds the first below them and extends the last slope', () => {
    expect(measuredAllReduceSeconds(table, 512)).toBeCloseTo(7e-6, 12);
    expect(measuredAllReduceSeconds(table, 1048576)).toBeCloseTo(19e-6, 12);
    expect(measuredAllReduceSeconds(table, (1048576 + 8388608) / 2)).toBeCloseTo(51.5e-6, 12);
    expect(measuredAllReduceSeconds(table, 2 * 8388608 - 1048576)).toBeCloseTo(149e-6, 10);
  });

  it('above the largest measured size, the extra bytes go at the bus rate where one is given', () => {
    const bus = 400e9;
    const over = 2 * 8388608;
    expect(measuredAllReduceSeconds(table, over, bus)).toBeCloseTo(
      84e-6 + (8388608 * 2 * 7) / 8 / bus,
      12,
    );
    // Within the table the bus rate does not enter.
    expect(measuredAllReduceSeconds(table, 1048576, bus)).toBeCloseTo(19e-6, 12);
  });

  it("MI355X carries vLLM's custom all-reduce over 8 GPUs, to 1.5 MB", () => {
    const a = gpuRates(findGpu('mi355x'), defaultTimeOptions(8)).allReduce;
    expect(a?.ranks).toBe(8);
    expect(a?.bytes.at(-1)).toBe(1572864);
  });

  it("MI300X carries RCCL's 8-GPU table; the fabric must join the GPUs for it to apply", () => {
    const t = defaultTimeOptions(8);
    const gpu = findGpu('mi300x');
    expect(gpuRates(gpu, t).allReduce?.ranks).toBe(8);
    expect(gpuRates(gpu, { ...t, interconnect: 'pcie' }).allReduce).toBeUndefined();
    expect(gpuRates(findGpu('h100-sxm'), t).allReduce).toBeUndefined();
  });

  it('binds 405B TP 8 decode at batch 256 (8 MB calls), not at batch 1', () => {
    const arch = resolveModel('meta-llama/Llama-3.1-405B');
    const gpu = findGpu('mi300x');
    const t = defaultTimeOptions(8);
    const at = (batch: number) => estimateTime(arch, infer({ batch, gpus: 8, tp: 8 }), gpu, t);
    // 2 calls x 126 layers and the vocabulary-parallel embedding's one x RCCL's 83.74 µs at 8 MB (8x MI300X,
    // graphs), then the gather of 256 rows of logits (time/vocab-parallel.ts).
    const gather = vocabParallelLogitsSeconds(
      modelFacts(arch),
      infer({ batch: 256, gpus: 8, tp: 8 }),
      256,
      gpuRates(gpu, t, true),
    );
    expect(gather).toBeGreaterThan(0);
    expect(tpSeconds(at(256))).toBeCloseTo((2 * 126 + 1) * 83.74e-6 + gather, 4);
    // 32 KB at batch 1: the engine's own latency plus the bus term is the longer.
    expect(tpSeconds(at(1))).toBeGreaterThan(2 * 126 * 9.05e-6);
  });
});
