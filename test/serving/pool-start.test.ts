// vLLM refuses to start when its KV pool holds less than one request of max_model_len (V1
// check_enough_kv_cache_memory), SGLang when its pool is empty (MemoryPoolConfig: "Not enough memory"): such a
// configuration does not fit, and the planner prunes it.
import { describe, expect, it } from 'vitest';
import { buildEstimate } from '../../src/core/estimate.js';
import { plan } from '../../src/core/plan/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { parseScenario, resolveHardware } from '../../src/io/load-scenario.js';
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';

const arch = resolveModel('llama-3.1-8b');
const gpu = findGpu('rtx-4060'); // 8 GB
const served = (seq: number): EstimateOptions => ({
  ...defaultOptions('inference'),
  framework: 'vllm',
  weights: 'int4',
  kvCacheDtype: 'fp8',
  attention: 'flash',
  batch: 1,
  seq,
});

describe('a vLLM pool that holds one max_model_len request', () => {
  it('a 32k context on an 8 GB card leaves a pool short of one request: it does not fit', () => {
    const e = buildEstimate(arch, served(32768), gpu);
    expect(e.serving!.kvTokens).toBeLessThan(32768);
    expect(e.fits).toBe(false);
  });
  it('a 16k context on the same card fits, its pool holding the request', () => {
    const e = buildEstimate(arch, served(16384), gpu);
    expect(e.serving!.kvTokens).toBeGreaterThanOrEqual(16384);
    expect(e.fits).toBe(true);
  });
  it('SGLang whose mem_fraction_static leaves no pool beside the weights does not fit', () => {
    const e = buildEstimate(arch, { ...served(8192), framework: 'sglang' }, gpu);
    expect(e.serving!.kvTokens).toBe(0);
    expect(e.fits).toBe(false);
  });
  it('the planner ranks no paged-pool plan whose pool cannot start it', () => {
    const s = parseScenario(
      'laptop-8gb.yaml',
      `name: laptop-8gb
model: llama-3.1-8b
job: { kind: inference, context: 8192, promptTokens: 4096, concurrency: 1, outputTokens: 1000000 }
hardware: { owned: [{ gpu: rtx-4060, count: 1 }], counts: { min: 1, max: 1 }, hostRamGiB: 32 }
`,
    );
    const hw = resolveHardware(s);
    const r = plan({ scenario: s, arch, hardware: hw.options, circuits: hw.circuits, top: 50 });
    expect(r.fits).toBe(true);
    const vllm = r.plans.filter((p) => p.choices.engine === 'vllm');
    for (const p of vllm) expect(p.serving!.kvTokens).toBeGreaterThanOrEqual(8192);
    const sglang = r.plans.filter((p) => p.choices.engine === 'sglang');
    for (const p of sglang) expect(p.serving!.kvTokens).toBeGreaterThan(0);
    expect(r.plans[0]!.choices.engine).toBe('llama.cpp');
  });
});
