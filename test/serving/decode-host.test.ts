// Layers and experts kept in host RAM (llama.cpp --gpu-layers, --n-cpu-moe) are their own decode phase,
// `decode-host`, not `overhead`; explain's remedy names the GPU layers, not CUDA graphs.
import { describe, expect, it } from 'vitest';
import { buildEstimate } from '../../src/core/estimate.js';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { timeVerdict } from '../../src/core/time/verdict.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { optionsFromFlags } from '../../src/schema/flags.js';

const rtx = findGpu('rtx-4090');

function time(model: string, flags: Record<string, unknown>) {
  const all = {
    method: 'inference',
    framework: 'llama.cpp',
    weights: 'q4_k_m',
    seq: 4096,
    batch: 1,
    ...flags,
  };
  const o = withEngineDefaults(optionsFromFlags(all), all);
  return buildEstimate(resolveModel(model), o, rtx).time!;
}
const phase = (t: ReturnType<typeof time>, name: string) =>
  t.phases.find((p) => p.phase === name)?.seconds;
const stepSum = (t: ReturnType<typeof time>) =>
  t.phases.filter((p) => p.phase !== 'prefill').reduce((a, p) => a + p.seconds, 0);

describe('decode-host phase', () => {
  it('Llama 3.1 70B Q4_K_M with 40 of 80 layers on an RTX 4090: the host layers dominate, named as such', () => {
    const t = time('llama-3.1-70b', { 'gpu-layers': 40 });
    const host = phase(t, 'decode-host')!;
    expect(host).toBeGreaterThan(0);
    expect(host).toBeGreaterThan(phase(t, 'overhead')!);
    expect(host).toBeGreaterThan(phase(t, 'decode-weights')!);
    expect(stepSum(t)).toBeCloseTo(t.stepSeconds, 3);
    const v = timeVerdict(t);
    expect(v.bound).toBe('host');
    expect(v.dominant.phase).toBe('decode-host');
    expect(v.lift).toMatch(/--gpu-layers/);
    expect(v.lift).not.toMatch(/CUDA graphs/);
  });

  it('more layers on the GPU shorten it; the gpt-oss experts of --n-cpu-moe count too', () => {
    const few = phase(time('llama-3.1-70b', { 'gpu-layers': 30 }), 'decode-host')!;
    const more = phase(time('llama-3.1-70b', { 'gpu-layers': 45 }), 'decode-host')!;
    expect(more).toBeLessThan(few);
    const moe = time('gpt-oss-120b', { weights: 'mxfp4', 'n-cpu-moe': 18 });
    expect(phase(moe, 'decode-host')).toBeGreaterThan(0);
    expect(stepSum(moe)).toBeCloseTo(moe.stepSeconds, 3);
  });

  it('a model wholly on the GPU lists no decode-host phase', () => {
    const t = time('llama-3.1-8b', {});
    expect(phase(t, 'decode-host')).toBeUndefined();
    expect(stepSum(t)).toBeCloseTo(t.stepSeconds, 3);
  });
});
