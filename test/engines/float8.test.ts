// FP8 training (--compute fp8 / mxfp8): which engines and GPUs run it, its time and memory, torchtitan's files.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildEstimate } from '../../src/core/estimate.js';
import { engineOf, onEngine } from '../../src/core/engines/index.js';
import { emitTorchtitan, TORCHTITAN_FILE } from '../../src/core/engines/torchtitan/launch.js';
import { mapTorchtitan, parseTorchtitanRecipe } from '../../src/core/engines/torchtitan/from.js';
import { float8CastBytes, float8Refusal } from '../../src/core/kernels/float8.js';
import { mapAccelerate } from '../../src/core/engines/hf/from/accelerate.js';
import { mapAxolotl } from '../../src/core/engines/hf/from/axolotl.js';
import { mergeFlags } from '../../src/core/from/index.js';
import { upstreamKeys } from '../../src/io/load-upstream-keys.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { runCli } from '../helpers/run-cli.js';

const FULL = ['--model', 'llama-3.1-8b', '--method', 'full', '--seq', '8192', '--gpus', '8'];

function estimate(flags: Record<string, unknown>, gpu = 'h100-sxm') {
  const arch = resolveModel('llama-3.1-8b');
  const asked = optionsFromFlags({ method: 'full', seq: 8192, gpus: 8, zero: 3, ...flags });
  const options = onEngine(asked, engineOf(asked));
  return buildEstimate(arch, options, findGpu(gpu));
}

describe('FP8 training: where it runs', () => {
  it('needs FP8 tensor cores for fp8 and MX GEMMs for mxfp8, naming the GPU', () => {
    const src = 'the engine check';
    expect(float8Refusal('fp8', '9.0', src)).toBeNull();
    expect(float8Refusal('fp8', '8.9', src)).toBeNull();
    expect(float8Refusal('fp8', 'gfx942', src)).toBeNull();
    expect(float8Refusal('fp8', '8.0', src)).toMatch(
      /8\.9\+.*this GPU is 8\.0 \(the engine check\)$/,
    );
    expect(float8Refusal('fp8', 'gfx90a', src)).toMatch(/gfx942\+/);
    expect(float8Refusal('mxfp8', '10.0', src)).toBeNull();
    expect(float8Refusal('mxfp8', '9.0', src)).toMatch(/10\.0\+/);
  });

  it('estimate refuses it in one line where the GPU, the method or the engine cannot run it', () => {
    const a100 = runCli(['estimate', ...FULL, '--compute', 'fp8', '--gpu', 'a100-80gb-sxm']);
    expect(a100.status).toBe(1);
    expect(a100.stderr.trim().split('\n')).toHaveLength(1);
    expect(a100.stderr).toMatch(/--compute: got 'fp8'.*8\.9/);
    const lora = runCli([
      'estimate',
      '--model',
      'llama-3.1-8b',
      '--method',
      'lora',
      '--compute',
      'fp8',
    ]);
    expect(lora.status).toBe(1);
    expect(lora.stderr).toMatch(
      /--compute: got 'fp8'; expected fp32, fp16 or bf16 with --method lora/,
    );
    // Unsloth 2026.10.9 trains in FP8 (float8_training, tensorwise); LitGPT does not.
    const litgpt = runCli([
      'estimate',
      ...FULL.slice(0, 4),
      '--compute',
      'fp8',
      '--framework',
      'litgpt',
    ]);
    expect(litgpt.status).toBe(1);
    // Fabric's --precision transformer-engine fails in LitGPT's recipes (lightning 2.6.5): the refusal says why.
    expect(litgpt.stderr).toMatch(
      /litgpt no fp8 training \(LitGPT 0\.5\.13 trains in no FP8 recipe: /,
    );
    expect(litgpt.stderr).toMatch(/lightning\/fabric\/connector\.py:477-480/);
    const unsloth = runCli([
      'estimate',
      ...FULL.slice(0, 4),
      '--compute',
      'fp8',
      '--framework',
      'unsloth',
    ]);
    expect(unsloth.status).toBe(0);
    // Unsloth's float8_training converts with torchao's tensorwise/rowwise configs only.
    const unslothMx = runCli([
      'estimate',
      ...FULL.slice(0, 4),
      '--compute',
      'mxfp8',
      '--framework',
      'unsloth',
      '--gpu',
      'b200',
    ]);
    expect(unslothMx.status).toBe(1);
    expect(unslothMx.stderr).toMatch(/unsloth no mxfp8 training \(.*float8_training\.py/);
  });

  it('runs MXFP8 on the Accelerate engines through Transformer Engine, estimate only, saying so', () => {
    // accelerate 1.15.0 utils/transformer_engine.py apply_fp8_autowrap: use_mxfp8_block_scaling builds
    // te_recipe.MXFP8BlockScaling; _prepare_te converts the linears ahead of DeepSpeed and FSDP.
    for (const args of [
      ['--framework', 'hf-fsdp', '--zero', '3'],
      ['--framework', 'hf-deepspeed', '--zero', '2'],
      ['--framework', 'hf-trainer'],
    ]) {
      const r = runCli([
        'estimate',
        ...FULL,
        ...args,
        '--compute',
        'mxfp8',
        '--gpu',
        'b200',
        '--json',
      ]);
      expect(r.status, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout) as {
        options: { compute: string };
        time: { stepSeconds: number };
        warnings: string[];
      };
      expect(out.options.compute).toBe('mxfp8');
      expect(Number.isFinite(out.time.stepSeconds)).toBe(true);
      expect(out.warnings.join('\n')).toMatch(/MXFP8BlockScaling.*transformer_engine\.py/);
    }
    // Below Blackwell TE's check_mxfp8_support fails, and the GPU check refuses it first.
    const h100 = runCli([
      'estimate',
      ...FULL,
      '--framework',
      'hf-fsdp',
      '--zero',
      '3',
      '--compute',
      'mxfp8',
      '--gpu',
      'h100-sxm',
    ]);
    expect(h100.status).toBe(1);
    expect(h100.stderr).toMatch(/--compute: got 'mxfp8'.*10\.0\+/);
  });

  it('runs on torchtitan (fp8 and mxfp8) and on the Accelerate engines (fp8)', () => {
    for (const args of [
      ['--framework', 'torchtitan', '--compute', 'fp8', '--gpu', 'h100-sxm'],
      ['--framework', 'torchtitan', '--compute', 'mxfp8', '--gpu', 'b200'],
      ['--framework', 'hf-fsdp', '--zero', '3', '--compute', 'fp8', '--gpu', 'h100-sxm'],
      // Accelerate converts the linears (torchao) before handing the model to DeepSpeed's bf16 engine.
      ['--framework', 'hf-deepspeed', '--zero', '3', '--compute', 'fp8', '--gpu', 'h100-sxm'],
      ['--framework', 'hf-deepspeed', '--zero', '1', '--compute', 'fp8', '--gpu', 'h100-sxm'],
    ]) {
      const r = runCli(['estimate', ...FULL, ...args, '--json']);
      expect(r.status, r.stderr).toBe(0);
    }
  });
});

describe('FP8 training: time and memory', () => {
  it('is faster than bf16 on a large dense model and keeps the same memory (torchao saves bf16 inputs)', () => {
    for (const framework of ['torchtitan', 'hf-fsdp', 'hf-deepspeed']) {
      const bf16 = estimate({ framework, compile: true });
      const fp8 = estimate({ framework, compile: true, compute: 'fp8' });
      expect(fp8.time!.stepSeconds).toBeLessThan(bf16.time!.stepSeconds);
      // Never more than the 2x of the converted matmuls: casts and everything else stay.
      expect(bf16.time!.stepSeconds / fp8.time!.stepSeconds).toBeLessThan(2);
      expect(fp8.perGpu.deviceBytes).toBe(bf16.perGpu.deviceBytes);
    }
  });

  it('times the casts: unfused (no torch.compile) casts cost more, rowwise more than tensorwise', () => {
    const eager = estimate({ framework: 'hf-fsdp', compute: 'fp8' });
    const compiled = estimate({ framework: 'hf-fsdp', compute: 'fp8', compile: true });
    const eagerBf16 = estimate({ framework: 'hf-fsdp' });
    const compiledBf16 = estimate({ framework: 'hf-fsdp', compile: true });
    const gainEager = eagerBf16.time!.stepSeconds / eager.time!.stepSeconds;
    const gainCompiled = compiledBf16.time!.stepSeconds / compiled.time!.stepSeconds;
    expect(gainCompiled).toBeGreaterThan(gainEager);
    const t = float8CastBytes('tensorwise', true, 8192, 4096, 4096, 4096 * 4096);
    const r = float8CastBytes('rowwise', true, 8192, 4096, 4096, 4096 * 4096);
    expect(r.fwd + r.bwd).toBeGreaterThan(t.fwd + t.bwd);
    // torchao's roofline: tensorwise input fused = 4 B/element, weight 2 + 3 + 3 B/element.
    expect(t.fwd).toBe(8192 * 4096 * 4 + 4096 * 4096 * 5);
  });
});

describe('FP8 training: torchtitan files', () => {
  // The time model leaves the output head at 16 bits (time/float8.ts): torchtitan 0.3.0's converters swap every
  // Linear by default (float8.py filter_fqns = [], mx.py fqns = []), so the recipe names the head (llama3_405b
  // writes filter_fqns=["lm_head"]) or keeps the blocks only (fqns match FQNs "layers.<i>..." by substring).
  it('writes the converter, leaving the output head at 16 bits, and reads it back', () => {
    for (const [compute, converter, gpu, scope] of [
      ['fp8', 'Float8LinearConverter', 'h100-sxm', 'filter_fqns=["lm_head"], '],
      ['mxfp8', 'MXFP8LinearConverter', 'b200', 'fqns=["layers"], '],
    ] as const) {
      const arch = resolveModel('llama-3.1-8b');
      const asked = optionsFromFlags({
        framework: 'torchtitan',
        method: 'full',
        weights: 'fp32',
        zero: 3,
        gpus: 8,
        compute,
        compile: true,
      });
      const options = onEngine(asked, engineOf(asked));
      const g = findGpu(gpu);
      const out = emitTorchtitan({
        arch,
        options,
        gpu: g,
        gradAccum: 1,
        powerLimitW: null,
        estimate: buildEstimate(arch, options, g),
        modelRef: 'meta-llama/Llama-3.1-8B',
      });
      if (!out.ok) throw new Error(out.reason);
      const py = out.files.find((f) => f.path === TORCHTITAN_FILE)!.content;
      expect(py).toContain(`from torchtitan.components.quantization import ${converter}`);
      expect(py).toContain(`converters=[${converter}.Config(${scope}model_compile_enabled=True)]`);
      const back = mapTorchtitan(parseTorchtitanRecipe(py));
      expect(back.flags.compute).toBe(compute);
    }
  });
});

describe('FP8 training read back from configs', () => {
  it("reads axolotl's fp8 as --compute fp8 for a full fine-tune, and as bf16 with a warning beside an adapter", () => {
    const full = mapAxolotl(
      { base_model: 'meta-llama/Llama-3.1-8B', fp8: true, bf16: true },
      undefined,
      upstreamKeys,
    );
    expect(full.flags.compute).toBe('fp8');
    expect(full.warnings.join('\n')).not.toMatch(/fp8/);
    const lora = mapAxolotl(
      { base_model: 'meta-llama/Llama-3.1-8B', adapter: 'lora', fp8: true, bf16: true },
      undefined,
      upstreamKeys,
    );
    expect(lora.flags.compute).toBe('bf16');
    expect(lora.warnings.join('\n')).toMatch(/fp8: FP8 training beside an adapter/);
  });

  it("reads Accelerate's mixed_precision fp8, dropped to bf16 when the merged config trains an adapter", () => {
    const acc = mapAccelerate({
      distributed_type: 'FSDP',
      num_processes: 8,
      mixed_precision: 'fp8',
    });
    expect(acc.flags.compute).toBe('fp8');
    expect(mergeFlags(acc, {}).compute).toBe('fp8');
    expect(mergeFlags({ ...acc, flags: { ...acc.flags, method: 'lora' } }, {}).compute).toBe(
      'bf16',
    );
    expect(
      mergeFlags({ ...acc, flags: { ...acc.flags, method: 'lora' } }, { compute: 'fp8' }).compute,
    ).toBe('fp8');
  });
});

describe('FP8 training in the search (opt-in: search.compute)', () => {
  const scenario = (compute: string) =>
    [
      'name: fp8 search',
      'model: llama-3.2-1b',
      'job: { kind: fine-tune, methods: [full], seq: 2048, globalBatch: 16, datasetTokens: 2000000 }',
      'hardware: { rent: { gpus: [h100-sxm, a100-80gb-sxm] }, counts: { min: 1, max: 2 } }',
      `search: { optimizers: [adamw]${compute} }`,
      'rank: time',
    ].join('\n');
  type Plans = {
    plans: {
      options: { compile: boolean };
      choices: { compute: string; engine: string };
      hardware: { gpuId: string };
      quality: { tier: string };
    }[];
  };
  function plans(compute: string): Plans['plans'] {
    const dir = mkdtempSync(join(tmpdir(), 'vramplan-f8-'));
    try {
      const file = join(dir, 's.yaml');
      writeFileSync(file, scenario(compute));
      const r = runCli(['plan', file, '--json', '--top', '200']);
      expect(r.status, r.stderr).toBe(0);
      return (JSON.parse(r.stdout) as Plans).plans;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it('ranks torchtitan FP8 plans, on FP8 GPUs only, tiered near, when asked; none otherwise', () => {
    const asked = plans(', compute: [bf16, fp8]');
    const f8 = asked.filter((p) => p.choices.compute === 'fp8');
    expect(f8.length).toBeGreaterThan(0);
    for (const p of f8) {
      expect(p.choices.engine).toBe('torchtitan');
      expect(p.hardware.gpuId).toBe('h100-sxm');
      expect(p.quality.tier).toBe('near');
      // Compiled, as torchtitan's float8 docs require for the speed-up the plan is timed with.
      expect(p.options.compile).toBe(true);
    }
    // FP8 plans rank among the bf16 ones (a 1B model gains little: within 1%, a near-tie goes to bf16's exact tier).
    expect(asked.findIndex((p) => p.choices.compute === 'fp8')).toBeLessThan(20);
    expect(plans('').some((p) => p.choices.compute === 'fp8')).toBe(false);
  });
});
