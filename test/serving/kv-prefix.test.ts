// The fp8 KV cache as a searched axis on vLLM/SGLang (by GPU), written into serve.sh and read back.
import { describe, expect, it } from 'vitest';
import { buildEstimate } from '../../src/core/estimate.js';
import { fp8KvFlag, minKvCapability } from '../../src/core/engines/kernels.js';
import { buildLaunch } from '../../src/core/launch/index.js';
import { plan, type Plan } from '../../src/core/plan/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { inputOf } from './plan-input.js';
import { serveCommands } from './serve-line.js';

const serveSh = (model: string, p: Plan): string => {
  const arch = resolveModel(model);
  const gpu = findGpu(p.hardware.gpuId);
  const out = buildLaunch({
    arch,
    options: p.options,
    gpu,
    gradAccum: 1,
    powerLimitW: null,
    estimate: buildEstimate(arch, p.options, gpu),
    modelRef: arch.hfId ?? arch.id,
  });
  const sh = out.outputs.flatMap((e) => (e.ok ? e.files : [])).find((f) => f.path === 'serve.sh');
  return String(sh?.content);
};

describe('fp8 KV cache', () => {
  it('GPU gates: vLLM from 8.0 (E5M2 below 8.9), SGLang from 8.9, other engines not searched', () => {
    expect(minKvCapability('vllm', 'fp8')).toBe(8.0);
    expect(minKvCapability('sglang', 'fp8')).toBe(8.9);
    expect(minKvCapability('hf-generate', 'fp8')).toBe(Infinity);
    expect(minKvCapability('vllm', 'auto')).toBe(0);
    expect(fp8KvFlag('vllm', '8.6')).toBe('fp8_e5m2');
    expect(fp8KvFlag('vllm', '9.0')).toBe('fp8');
    expect(fp8KvFlag('sglang', '8.9')).toBe('fp8_e4m3');
    // AMD: MI300-class (gfx942, gfx950) converts FP8 in hardware: E4M3 as on Hopper; RDNA3 (gfx1100) E5M2.
    expect(fp8KvFlag('vllm', 'gfx942')).toBe('fp8');
    expect(fp8KvFlag('vllm', 'gfx950')).toBe('fp8');
    expect(fp8KvFlag('vllm', 'gfx1100')).toBe('fp8_e5m2');
    expect(fp8KvFlag('vllm', 'gfx90a')).toBe('fp8_e5m2');
  });

  it('is searched beside the model dtype; plans on it launch with the flag and read it back', () => {
    const cases = [
      ['serve-8b-64-users-24gb.yaml', 'fp8'], // RTX 4090, Ada: E4M3
      ['serve-70b-awq-2x48gb.yaml', 'fp8_e5m2'], // RTX A6000, Ampere: E5M2
    ] as const;
    for (const [file, flag] of cases) {
      const input = inputOf(file);
      // Twenty plans: SGLang's and vLLM's plans of the same choices rank apart, so the first ten can all hold fp8 KV.
      const r = plan({ ...input, top: 20 });
      const fp8 = r.plans.find((p) => p.options.kvCacheDtype === 'fp8');
      expect(fp8, file).toBeDefined();
      expect(fp8!.id).toContain('/kv-fp8/');
      expect(fp8!.quality.items.map((i) => i.technique)).toContain('fp8 KV cache');
      expect(['vllm', 'sglang']).toContain(fp8!.choices.engine);
      const c = serveCommands(serveSh(input.scenario.model, fp8!))[0]!;
      expect(c['--kv-cache-dtype']).toBe(fp8!.choices.engine === 'vllm' ? flag : 'fp8_e4m3');
      expect(r.plans.some((p) => p.options.kvCacheDtype !== 'fp8')).toBe(true);
    }
  });

  it('no SGLang fp8-KV plan on Ampere', () => {
    const r = plan(inputOf('serve-70b-awq-2x48gb.yaml'));
    expect(
      [...r.plans, ...r.front].some(
        (p) => p.choices.engine === 'sglang' && p.options.kvCacheDtype === 'fp8',
      ),
    ).toBe(false);
  });
});

describe('prefix caching (job.prefixCaching: the cached share of each prompt)', () => {
  it('prefills only the uncached part: shorter TTFT, same pool; estimate takes --prefix-cache', () => {
    const base = plan(inputOf('serve-8b-64-users-24gb.yaml')).plans[0]!;
    const r = plan(
      inputOf('serve-8b-64-users-24gb.yaml', (s) => {
        if (s.job.kind === 'inference') s.job.prefixCaching = 0.75;
      }),
    );
    const same = r.plans.find((p) => p.id === base.id)!;
    expect(same.options.prefixCacheFraction).toBe(0.75);
    // The TTFT's prefill (less the decode step it rides with) at most half the uncached one's.
    const prefill = (p: typeof base) => p.time.ttftSeconds! - p.time.stepSeconds;
    expect(prefill(same)).toBeLessThan(prefill(base) * 0.5);
    expect(same.memory.deviceBytes).toBe(base.memory.deviceBytes);
  });
});
