// SGLang runs on CUDA GPUs of compute capability 8.0 and newer only: its model runner raises "SGLang only supports
// sm75 and above." below 7.5, and the sglang-kernel 0.4.10 its 0.5.23 wheel requires ships common_ops cubins for
// sm_80/89/90/100/120 with no PTX, so a T4 or RTX 2080 (7.5) has no kernel image either (sgl-project/sglang#24302).
// The per-format tables (get_min_capability) stay as the engine's quantization code reads them; the floor is apart.
import { describe, expect, it } from 'vitest';
import { floorRefusal, kernelRefusal } from '../../src/core/engines/kernels.js';
import { plan } from '../../src/core/plan/index.js';
import { planInputOf } from '../../src/io/plan-scenario.js';
import { scenarioSchema } from '../../src/schema/scenario.js';
import { runCli } from '../helpers/run-cli.js';

describe("an engine's compute-capability floor", () => {
  it('refuses SGLang on Volta and Turing, not on Ampere and newer, AMD or Apple GPUs', () => {
    for (const cc of ['7.0', '7.5'])
      expect(floorRefusal('sglang', cc)).toMatch(/8\.0 and newer, not 7\./);
    for (const cc of ['8.0', '8.6', '8.9', '9.0', '10.0', '12.0', 'gfx942', null])
      expect(floorRefusal('sglang', cc), String(cc)).toBeNull();
    // vLLM runs on Volta and Turing (Triton attention, the plain AWQ kernels from 7.5).
    expect(floorRefusal('vllm', '7.0')).toBeNull();
    // The quantization tables keep their own verdicts (plain AWQ from 7.5 in SGLang's awq.py).
    expect(kernelRefusal('sglang', 'int4', '7.5')).toBeNull();
  });

  it('estimate names --gpu and the source', () => {
    const r = runCli([
      'estimate',
      '--model',
      'llama-3.1-8b',
      '--method',
      'inference',
      '--framework',
      'sglang',
      '--gpu',
      't4',
      '--seq',
      '2048',
    ]);
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/--gpu: got 't4'.*8\.0 and newer.*load_model_utils\.py/);
  });

  const scenario = (gpu: string) =>
    scenarioSchema.parse({
      name: 'floor',
      model: 'llama-3.1-8b',
      job: { kind: 'inference', context: 2048, promptTokens: 1024, concurrency: 4 },
      search: { engines: ['sglang', 'vllm'] },
      hardware: { owned: [{ gpu, count: 1 }], counts: { min: 1, max: 1 } },
    });

  it('the planner offers SGLang on an A10, not on a T4', () => {
    const a10 = plan({ ...planInputOf('floor.yaml', scenario('a10')), top: 50 });
    expect(a10.plans.some((p) => p.options.framework === 'sglang')).toBe(true);
    const t4 = plan({ ...planInputOf('floor.yaml', scenario('t4')), top: 50 });
    expect(t4.plans.length).toBeGreaterThan(0);
    expect(t4.plans.every((p) => p.options.framework !== 'sglang')).toBe(true);
    expect(t4.pruned.find((x) => x.code === 'no-engine')?.count ?? 0).toBeGreaterThan(0);
  });
});
