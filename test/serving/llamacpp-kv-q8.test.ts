// llama.cpp's quantized KV cache (-ctk q8_0 -ctv q8_0, the planner's fp8 KV on llama.cpp) is searched on every GPU:
// its q8_0 blocks need no FP8 hardware. Qwen3-14B at 32k on a 12 GB RTX 3060: with an f16 cache 10 of its layers
// decode from host RAM; with q8_0 every layer fits on the card.
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, scratchDir } from '../helpers/run-cli.js';

const scratch = scratchDir('vramplan-kvq8-');
afterAll(() => scratch.remove());

describe('llama.cpp q8_0 KV cache', () => {
  it('is searched on an Ampere card and ranks first where it keeps every layer on the GPU', () => {
    const text = [
      'name: Qwen3-14B at 32k on an RTX 3060',
      'model: qwen3-14b',
      'job: { kind: inference, context: 32768, promptTokens: 28000, concurrency: 1, outputTokens: 2000000 }',
      'hardware: { owned: [ { gpu: rtx-3060-12gb, count: 1 } ], counts: { min: 1, max: 1 }, hostRamGiB: 32 }',
      'power: { powerLimits: [1] }',
      'rank: time',
      'search: { engines: [llama.cpp] }',
    ].join('\n');
    const r = runCli(['plan', scratch.file('kvq8.yaml', text), '--json', '--top', '4']);
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as {
      plans: { id: string; options: { gpuLayers?: number }; time: { hours: number } }[];
      pruned: { code: string }[];
    };
    const best = out.plans[0]!;
    expect(best.id).toContain('kv-fp8');
    const f16 = out.plans.find((p) => !p.id.includes('kv-fp8'))!;
    // The f16 cache's best is the most layers that fit (plan/layer-fit.ts): 1.87x the q8_0 plan's hours.
    expect(f16.time.hours).toBeGreaterThan(best.time.hours * 1.8);
    expect(out.pruned.map((p) => p.code)).not.toContain('no-fp8');
  });
});
