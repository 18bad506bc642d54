// llama.cpp --n-cpu-moe N: the routed experts of the first N layers in host RAM (a CPU buffer override of
// blk.<i>.ffn_*_exps in common/arg.cpp), the rest of the model and its KV cache on the GPU.
import { describe, expect, it } from 'vitest';
import { buildEstimate } from '../../src/core/estimate.js';
import { llamaCppBlocker, llamaServerArgs } from '../../src/core/engines/llama-cpp/launch.js';
import { plan } from '../../src/core/plan/index.js';
import { techniqueOf } from '../../src/ui/plan-text.js';
import { planInputOf } from '../../src/io/plan-scenario.js';
import { scenarioSchema } from '../../src/schema/scenario.js';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { expertStorageOf } from '../../src/core/memory/setup.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { readBack } from '../serving/serve-line.js';

const rtx = findGpu('rtx-4090');
const oss = resolveModel('gpt-oss-120b');
const layers = oss.groups.reduce((a, g) => a + g.count, 0);

function estimate(flags: Record<string, unknown>, arch = oss) {
  const all = {
    method: 'inference',
    framework: 'llama.cpp',
    weights: 'mxfp4',
    seq: 8192,
    batch: 1,
    ...flags,
  };
  const o = withEngineDefaults(optionsFromFlags(all), all);
  return { o, e: buildEstimate(arch, o, rtx) };
}

describe('llama.cpp --n-cpu-moe', () => {
  it('moves the experts of the first N layers to host RAM, N/L of them, and nothing else', () => {
    const none = estimate({}).e;
    const half = estimate({ 'n-cpu-moe': layers / 2 }).e;
    const x = expertStorageOf(oss, none.options);
    const experts = x.values + x.bias + x.constants;
    const gpu = (e: typeof none) => e.perGpu.breakdown.weights + e.perGpu.breakdown.quantConstants;
    expect(gpu(none) - gpu(half)).toBeCloseTo(experts / 2, -3);
    expect(half.hostBytesPerGpu - none.hostBytesPerGpu).toBeCloseTo(experts / 2, -3);
    // The KV cache stays whole on the GPU (unlike -ngl, which moves whole layers with their cache).
    expect(half.perGpu.breakdown.kvCache).toBe(none.perGpu.breakdown.kvCache);
  });
  it('gives finite estimates for every N, slower decode and prefill the more experts the host holds', () => {
    let prev = estimate({}).e.time!;
    for (const n of [4, 12, 24, layers, 1000]) {
      const t = estimate({ 'n-cpu-moe': n }).e.time!;
      expect(Number.isFinite(t.stepSeconds)).toBe(true);
      expect(Number.isFinite(t.ttftSeconds!)).toBe(true);
      if (n <= layers) {
        expect(t.stepSeconds).toBeGreaterThan(prev.stepSeconds);
        expect(t.ttftSeconds!).toBeGreaterThan(prev.ttftSeconds!);
      } else expect(t.stepSeconds).toBeCloseTo(prev.stepSeconds, 9);
      prev = t;
    }
  });
  it('decodes host experts on the CPU below 32 tokens a step, copies them over the host link from 32', () => {
    const step = (batch: number, n?: number) =>
      estimate({ batch, ...(n === undefined ? {} : { 'n-cpu-moe': n }) }).e.time!.stepSeconds;
    const cpu31 = step(31, layers) - step(31);
    const link32 = step(32, layers) - step(32);
    // The host link (PCIe) is slower than host memory: the extra seconds jump at the threshold.
    expect(link32).toBeGreaterThan(cpu31);
  });
  it('with -ngl, the host holds the experts of the first max(N, L - ngl) layers', () => {
    const ngl = estimate({ 'gpu-layers': layers / 2 }).e;
    const both = estimate({ 'gpu-layers': layers / 2, 'n-cpu-moe': layers / 4 }).e;
    expect(both.perGpu.breakdown.weights).toBeCloseTo(ngl.perGpu.breakdown.weights, -3);
    const more = estimate({ 'gpu-layers': layers / 2, 'n-cpu-moe': (3 * layers) / 4 }).e;
    expect(more.perGpu.breakdown.weights).toBeLessThan(ngl.perGpu.breakdown.weights);
  });
  it('over a layer split the last GPU, whose layers come last, keeps its experts; host RAM holds the rest', () => {
    const split = estimate({ gpus: 2, pp: 2 }).e;
    const half = estimate({ gpus: 2, pp: 2, 'n-cpu-moe': layers / 2 }).e;
    expect(half.perGpu.breakdown.weights).toBe(split.perGpu.breakdown.weights);
    const x = expertStorageOf(oss, half.options);
    const experts = x.values + x.bias + x.constants;
    // Per GPU times the GPUs: the one process's host-held experts (half of them).
    expect(2 * (half.hostBytesPerGpu - split.hostBytesPerGpu)).toBeCloseTo(experts / 2, -3);
  });
  it('on a dense model moves nothing and says so', () => {
    const llama = resolveModel('llama-3.1-8b');
    const a = estimate({ weights: 'q4_k_m' }, llama).e;
    const b = estimate({ weights: 'q4_k_m', 'n-cpu-moe': 8 }, llama).e;
    expect(b.perGpu.allocatedBytes).toBe(a.perGpu.allocatedBytes);
    expect(b.time!.stepSeconds).toBe(a.time!.stepSeconds);
  });
  it('is llama.cpp and serving only', () => {
    expect(() =>
      optionsFromFlags({ method: 'inference', framework: 'vllm', 'n-cpu-moe': 4 }),
    ).toThrow(/--n-cpu-moe.*only with --framework llama\.cpp/);
    expect(() =>
      optionsFromFlags({ method: 'lora', framework: 'llama.cpp', 'n-cpu-moe': 4 }),
    ).toThrow(/only with --method inference/);
  });
  it('--from reads -ncmoe N and --cpu-moe', () => {
    const n = readBack('llama-server -m gpt-oss-120b-mxfp4.gguf -ngl 99 -ncmoe 20 -c 8192');
    expect(n.flags['n-cpu-moe']).toBe(20);
    const all = readBack('llama-server -m gpt-oss-120b-mxfp4.gguf --cpu-moe -c 8192');
    expect(Number(all.flags['n-cpu-moe'])).toBeGreaterThanOrEqual(layers);
  });
  it('is launched: serve.sh writes --n-cpu-moe N beside -ngl, and --from reads it back', () => {
    const { o } = estimate({ 'n-cpu-moe': 12 });
    expect(llamaCppBlocker({ arch: oss, options: o } as never)).toBeNull();
    const args = llamaServerArgs({ arch: oss, options: o } as never, 8080);
    expect(args).toContain('--n-cpu-moe 12');
    expect(args).toContain(`-ngl ${layers + 1}`);
    const back = readBack(`llama-server -m gpt-oss-120b-mxfp4.gguf ${args.join(' ')}`);
    expect(back.flags['n-cpu-moe']).toBe(12);
    expect(
      llamaServerArgs({ arch: oss, options: estimate({}).o } as never, 8080).join(' '),
    ).not.toMatch(/n-cpu-moe/);
  });
});

// Qwen3-30B-A3B (Q4_K_M, about 17 GiB) on a 12 GB card: every layer on the GPU with the first layers' experts on the
// host (-ngl all --n-cpu-moe N, what llama.cpp users run for an MoE model past the card) reads fewer host bytes a
// token than whole layers on the host (-ngl below the layer count), which also host their attention and KV.
describe('the planner searches --n-cpu-moe', () => {
  const scenario = (model: string) =>
    scenarioSchema.parse({
      name: 'moe-12gb',
      model,
      job: {
        kind: 'inference',
        context: 32768,
        promptTokens: 16384,
        concurrency: 1,
        outputTokens: 1e6,
      },
      hardware: {
        owned: [{ gpu: 'rtx-3060-12gb', count: 1 }],
        counts: { min: 1, max: 1 },
        hostRamGiB: 64,
      },
      search: { engines: ['llama.cpp'], weights: ['q4_k_m'] },
      rank: 'time',
    });
  it('on an MoE model past the card, ranking it above a partial -ngl', () => {
    const r = plan(planInputOf('test.yaml', scenario('qwen3-30b-a3b')));
    const first = r.plans[0]!.options;
    expect(first.cpuMoeLayers).toBeGreaterThan(0);
    expect(first.gpuLayers).toBeUndefined();
    // The plan table says it in llama-server's words.
    expect(techniqueOf(r.plans[0]!)).toContain(`--n-cpu-moe ${first.cpuMoeLayers}`);
    const partial = r.plans.find((p) => p.options.gpuLayers !== undefined);
    if (partial) expect(partial.time.hours).toBeGreaterThan(r.plans[0]!.time.hours);
  });
  it('not on a dense model', () => {
    const r = plan(planInputOf('test.yaml', scenario('qwen3-14b')));
    expect(r.plans.every((p) => p.options.cpuMoeLayers === undefined)).toBe(true);
  });
});
