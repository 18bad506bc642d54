// llama-bench's prompt test hands llama_decode a batch whose logits array is NULL, which outputs the last token only
// (llama_batch, include/llama.h): a pp run at -ub B multiplies the output head for its last microbatch alone, so a row
// read as a decode step of B sequences is timed without the head (TimeOptions.noOutputHead, harness llama-bench-pp).
import { describe, expect, it } from 'vitest';
import { decodeTraffic } from '../../src/core/time/decode.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { estimateTime } from '../../src/core/time/index.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions } from '../../src/schema/time.js';
import { throughputRows } from '../../src/commands/validate-throughput.js';
import { loadThroughputCases } from '../../src/io/load-calibration.js';

const o = {
  ...defaultOptions('inference'),
  framework: 'llama.cpp',
  weights: 'bf16',
  batch: 1,
  seq: 256,
} as const;
const gpu = findGpu('rtx-3090');
const t = { ...defaultTimeOptions(1), decodeOnly: true };

describe('a step without the output head', () => {
  const arch = resolveModel('llama-3.1-8b');
  const m = modelFacts(arch);
  const r = gpuRates(gpu, t);

  it('reads the vocab x hidden head less, in the step dtype, and nothing else', () => {
    const full = decodeTraffic(m, o, t, r, 1, 256);
    const none = decodeTraffic(m, o, { ...t, noOutputHead: true }, r, 1, 256);
    expect(full.weightGpu - none.weightGpu).toBeCloseTo(128256 * 4096 * 2, -3);
    expect(none.kvGpu).toBe(full.kvGpu);
  });

  it('is faster by about the head share of the reads at one column', () => {
    const full = estimateTime(arch, o, gpu, t).stepSeconds;
    const none = estimateTime(arch, o, gpu, { ...t, noOutputHead: true }).stepSeconds;
    expect(none).toBeLessThan(full);
    expect(1 - none / full).toBeGreaterThan(0.04);
    expect(1 - none / full).toBeLessThan(0.09);
  });

  it('no flag sets it: an estimate reads the head', () => {
    expect(defaultTimeOptions(1).noOutputHead).toBeUndefined();
  });
});

describe('rows of llama-bench prompt tests', () => {
  const cases = loadThroughputCases('throughput.json');
  const pp = cases.filter((c) => c.harness === 'llama-bench-pp');

  it('are the 47 microbatch rows, each a pp test at -ub B', () => {
    expect(pp).toHaveLength(47);
    for (const c of pp) expect(c.id, c.id).toMatch(/-ub\d+$/);
  });

  it('are scored without the head: faster than the same row read as a tg step', () => {
    const scored = new Map(throughputRows('throughput.json').map((row) => [row.id, row]));
    const row = scored.get('llamacpp-14262-3090-l3-8b-bf16-ub1')!;
    const c = pp.find((x) => x.id === row.id)!;
    const arch = resolveModel('llama-3.1-8b');
    const tg = estimateTime(arch, o, gpu, t).decodeTokensPerSecond!;
    expect(c.measured_value).toBe(58.06);
    expect(row.estimated).toBeGreaterThan(tg);
  });
});
