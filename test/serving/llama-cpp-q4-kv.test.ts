// llama.cpp's 4-bit KV cache (-ctk/-ctv q4_0, tools/server/README.md at 25d5b0c5): estimated at block_q4_0's 18
// bytes a 32 elements, written back by launch, read by --from; the engines without a q4_0 cache refuse it by name.
import { describe, expect, it } from 'vitest';
import { buildEstimate } from '../../src/core/estimate.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { serveShOf } from '../helpers/launch.js';
import { buildLaunch } from '../../src/core/launch/index.js';
import { renderLaunchReadme } from '../../src/ui/launch-readme.js';
import { readBack } from './serve-line.js';
import { runEstimate } from '../../src/commands/estimate-run.js';
import { stdoutOf } from '../helpers/published-configs.js';
import type { RawFlags } from '../../src/schema/flags.js';

function estimate(flags: Record<string, unknown>) {
  const arch = resolveModel('llama-3.1-8b');
  const gpu = findGpu('rtx-3060-12gb');
  const all = {
    method: 'inference',
    framework: 'llama.cpp',
    weights: 'q4_k_m',
    seq: 32768,
    batch: 4,
    ...flags,
  };
  const options = withEngineDefaults(optionsFromFlags(all), all);
  const e = buildEstimate(arch, options, gpu);
  return { arch, gpu, options, e };
}

describe('llama.cpp --kv-cache-dtype q4_0', () => {
  it('holds 18 bytes per 32 cached elements (block_q4_0) against 2 for f16 and 34 for q8_0', () => {
    const f16 = estimate({}).e.perGpu.breakdown.kvCache;
    const q8 = estimate({ 'kv-cache-dtype': 'fp8' }).e.perGpu.breakdown.kvCache;
    const q4 = estimate({ 'kv-cache-dtype': 'q4_0' }).e.perGpu.breakdown.kvCache;
    // Llama 3.1 8B: 32 layers x 8 KV heads x 128 x (K, V) per token; 4 slots of 32,768 tokens.
    const elements = 4 * 32768 * 32 * 8 * 128 * 2;
    expect(f16).toBe(elements * 2);
    expect(q8).toBe((elements * 34) / 32);
    expect(q4).toBe((elements * 18) / 32);
  });
  it('decodes faster than the q8_0 cache at a long context (fewer cache bytes read a step)', () => {
    const q8 = estimate({ 'kv-cache-dtype': 'fp8' }).e.time!;
    const q4 = estimate({ 'kv-cache-dtype': 'q4_0' }).e.time!;
    expect(q4.tokensPerSecondPerGpu).toBeGreaterThan(q8.tokensPerSecondPerGpu);
  });
  it('estimate says what it leaves out of the 4-bit cache', () => {
    const flags = {
      framework: 'llama.cpp',
      method: 'inference',
      weights: 'q4_k_m',
      gpu: 'rtx-3060-12gb',
      'kv-cache-dtype': 'q4_0',
    } as RawFlags;
    const out = stdoutOf(() => runEstimate(resolveModel('llama-3.1-8b'), flags, true));
    const r = JSON.parse(out) as { warnings?: string[] };
    expect(r.warnings?.join(' ')).toMatch(
      /q4_0: the cache at 18 bytes per 32 elements.*not counted/,
    );
  });
  it('launch writes -ctk q4_0 -ctv q4_0 with flash attention, and --from reads it back', () => {
    const x = estimate({ 'kv-cache-dtype': 'q4_0' });
    const sh = serveShOf(x.arch, x.options, x.gpu, x.e);
    expect(sh).toMatch(/-ctk q4_0 -ctv q4_0 -fa on/);
    const input = {
      arch: x.arch,
      options: x.options,
      gpu: x.gpu,
      gradAccum: 1,
      powerLimitW: null,
      estimate: x.e,
      modelRef: x.arch.hfId ?? x.arch.id,
    };
    expect(renderLaunchReadme(input, buildLaunch(input))).toMatch(/KV cache \| q4_0/);
    expect(readBack(sh).flags['kv-cache-dtype']).toBe('q4_0');
  });
  it('--from: K and V both q4_0 is the 4-bit cache; a q4_0 K beside another V stays the q8_0 estimate', () => {
    const both = readBack('llama-server -m x-Q4_K_M.gguf -c 8192 -np 2 -ctk q4_0 -ctv q4_0 -fa on');
    expect(both.flags['kv-cache-dtype']).toBe('q4_0');
    const mixed = readBack(
      'llama-server -m x-Q4_K_M.gguf -c 8192 -np 2 -ctk q4_0 -ctv q8_0 -fa on',
    );
    expect(mixed.flags['kv-cache-dtype']).toBe('fp8');
    expect(mixed.warnings.join(' ')).toMatch(/below 8 bits/);
  });
  it('vLLM and SGLang refuse q4_0, naming the engine that writes it', () => {
    for (const framework of ['vllm', 'sglang'])
      expect(() =>
        optionsFromFlags({ method: 'inference', framework, 'kv-cache-dtype': 'q4_0' }),
      ).toThrow(
        /--kv-cache-dtype: got 'q4_0'; expected auto or fp8; q4_0 only with --framework llama\.cpp/,
      );
  });
});

describe('GRPO with a vLLM server on a GPU of its own', () => {
  it('on one GPU the refusal says --gpus counts the server GPU', () => {
    const flags = {
      framework: 'hf-trainer',
      method: 'lora',
      objective: 'grpo',
      rollout: 'vllm-server',
      'grad-accum': 8,
    };
    expect(() => optionsFromFlags({ ...flags, gpus: 1 })).toThrow(/--gpus 2 --rollout-gpus 1/);
    expect(() => optionsFromFlags({ ...flags, gpus: 2, 'rollout-gpus': 1 })).not.toThrow();
  });
});
