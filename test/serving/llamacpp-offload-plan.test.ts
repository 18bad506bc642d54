// llama.cpp's -ngl and --n-cpu-moe in a plan: the most layers on the GPU (the fewest layers' experts in host RAM)
// that fit its GPU, by the memory model `estimate` reports (plan/layer-fit.ts), not a fixed grid of counts.
import { describe, expect, it } from 'vitest';
import { buildEstimate } from '../../src/core/estimate.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { loadedLayers } from '../../src/core/memory/setup.js';
import { plan, type Plan } from '../../src/core/plan/index.js';
import { MiB } from '../../src/core/units.js';
import { findGpu } from '../../src/io/load-catalog.js';
import type { Arch } from '../../src/core/model/index.js';
import type { EstimateOptions } from '../../src/schema/estimate.js';
import { inputOf } from './plan-input.js';
import { buildLaunch } from '../../src/core/launch/index.js';
import { launchInputOfPlan } from '../../src/commands/launch-run.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { readBack, serveCommands } from './serve-line.js';

/**
 * The plan launched and read back as `estimate --from serve.sh` reads it: its llama-server flags, and the
 * options and device bytes of the read-back estimate.
 */
function launchedBack(p: Plan, arch: Arch, ref: string) {
  const x = launchInputOfPlan(p, arch, ref);
  const sh = String(buildLaunch(x).files.find((f) => f.path === 'serve.sh')!.content);
  const back = readBack(sh).flags;
  const o = withEngineDefaults(optionsFromFlags(back), back);
  const device = buildEstimate(arch, o, findGpu(p.hardware.gpuId)).perGpu.deviceBytes;
  return { flags: serveCommands(sh)[0]!, o, device };
}

/** `estimate`'s per-GPU device bytes for the plan's options with `set` applied, on its GPU. */
const deviceAt = (arch: Arch, p: Plan, set: Partial<EstimateOptions>) =>
  buildEstimate(arch, { ...p.options, ...set }, findGpu(p.hardware.gpuId)).perGpu.deviceBytes;

/** A plan's partial offload checked against `estimate`: it fits, and one more layer on the GPU would not. */
function expectMaximal(p: Plan, arch: Arch, margin: number) {
  const cap = findGpu(p.hardware.gpuId).memoryMiB * MiB * (1 - margin);
  const o = p.options;
  const L = loadedLayers(arch, FRAMEWORKS['llama.cpp']);
  expect(deviceAt(arch, p, {})).toBe(p.memory.deviceBytes);
  expect(p.memory.deviceBytes).toBeLessThanOrEqual(cap);
  if (o.gpuLayers !== undefined) {
    expect(o.gpuLayers).toBeLessThanOrEqual(L);
    expect(deviceAt(arch, p, { gpuLayers: o.gpuLayers + 1 })).toBeGreaterThan(cap);
  }
  if (o.cpuMoeLayers !== undefined) {
    expect(o.cpuMoeLayers).toBeGreaterThanOrEqual(1);
    expect(deviceAt(arch, p, { cpuMoeLayers: o.cpuMoeLayers - 1 })).toBeGreaterThan(cap);
  }
}

describe('llama.cpp -ngl searched exactly', () => {
  it('serve-70b-llamacpp-offload-24gb: the first plan has the most layers that fit (43 of 80), as estimate has them', () => {
    const input = inputOf('serve-70b-llamacpp-offload-24gb.yaml');
    const r = plan({ ...input, top: 10 });
    const best = r.plans[0]!;
    expect(best.choices.engine).toBe('llama.cpp');
    expect(best.options.gpuLayers).toBe(43);
    expectMaximal(best, input.arch, input.scenario.limits.memoryMargin);
    // Every partial offload the plan ranks is the most its GPU holds: none repeats a configuration one layer down.
    for (const p of r.plans) expectMaximal(p, input.arch, input.scenario.limits.memoryMargin);
    // launch writes -ngl 43 and --from reads it back to the same estimate.
    const back = launchedBack(best, input.arch, 'meta-llama/Llama-3.1-70B-Instruct');
    expect(back.flags['-ngl']).toBe('43');
    expect(back.o.gpuLayers).toBe(43);
    expect(back.device).toBe(best.memory.deviceBytes);
  });

  it('gpt-oss-120b on one 24 GB card: every -ngl and --n-cpu-moe plan is the most that fits', () => {
    const input = inputOf('serve-70b-llamacpp-offload-24gb.yaml', (s) => {
      s.model = 'gpt-oss-120b';
      s.search = { ...s.search, engines: ['llama.cpp'] };
    });
    const r = plan({ ...input, top: 20 });
    const partial = r.plans.filter(
      (p) => p.options.gpuLayers !== undefined || p.options.cpuMoeLayers !== undefined,
    );
    expect(partial.some((p) => p.options.cpuMoeLayers !== undefined)).toBe(true);
    for (const p of partial) expectMaximal(p, input.arch, input.scenario.limits.memoryMargin);
    const moe = partial.find((p) => p.options.cpuMoeLayers !== undefined)!;
    const back = launchedBack(moe, input.arch, 'openai/gpt-oss-120b');
    expect(back.flags['--n-cpu-moe']).toBe(String(moe.options.cpuMoeLayers));
    expect(back.o.cpuMoeLayers).toBe(moe.options.cpuMoeLayers);
    expect(back.device).toBe(moe.memory.deviceBytes);
  });
});
