// `estimate --framework <engine>` accepts what the engine runs; `launch` refuses, in one line and without a
// folder, what vramplan writes no files for. The built CLI, as a user runs it.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'vramplan-engines-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const estimate = (...args: string[]) => {
  const r = runCli(['estimate', ...args, '--json']);
  return { status: r.status, stderr: r.stderr, json: r.status === 0 ? JSON.parse(r.stdout) : null };
};

describe('estimate: what the engines run', () => {
  it('torchtune and LitGPT generation are estimated', () => {
    const tune = estimate(
      '--model',
      'llama-2-7b',
      '--method',
      'inference',
      '--framework',
      'torchtune',
    );
    expect(tune.stderr).toBe('');
    expect(tune.json.options.method).toBe('inference');
    expect(tune.json.options.framework).toBe('torchtune');
    const lit = estimate('--model', 'llama-2-7b', '--method', 'inference', '--framework', 'litgpt');
    expect(lit.json.perGpu.breakdown.kvCache).toBeGreaterThan(0);
  });

  it('--attention flash on LitGPT runs as SDPA, echoed and noted', () => {
    const r = estimate('--model', 'llama-2-7b', '--framework', 'litgpt', '--attention', 'flash');
    expect(r.json.options.attention).toBe('sdpa');
    expect(r.json.warnings.join('\n')).toMatch(/--attention flash runs as sdpa on litgpt/);
  });

  it('a Llama config.json maps to the same torchtune builder as the catalog id', () => {
    const config = join(ROOT, 'calibration/configs/meta-llama__Llama-2-7b-hf.json');
    const byPath = estimate('--model', config, '--framework', 'torchtune', '--method', 'lora');
    const byId = estimate('--model', 'llama-2-7b', '--framework', 'torchtune', '--method', 'lora');
    expect(byPath.stderr).toBe('');
    expect(byPath.json.perGpu.allocatedBytes).toBe(byId.json.perGpu.allocatedBytes);
  });

  it('vLLM FP8 on MI300X and llama.cpp MXFP4 are estimated; vLLM FP8 on MI250X is refused with its source', () => {
    const fp8 = ['--model', 'llama-3.1-8b', '--method', 'inference', '--framework', 'vllm'];
    expect(estimate(...fp8, '--weights', 'fp8', '--gpu', 'mi300x').json.fits).toBe(true);
    const old = estimate(...fp8, '--weights', 'fp8', '--gpu', 'mi250x');
    expect(old.status).toBe(1);
    expect(old.stderr.trim().split('\n')).toHaveLength(1);
    expect(old.stderr).toMatch(/gfx90a.*supported_hardware\.md/);
    const gguf = ['--model', 'gpt-oss-20b', '--method', 'inference', '--framework', 'llama.cpp'];
    const mx = estimate(...gguf, '--weights', 'mxfp4');
    const q8 = estimate(...gguf, '--weights', 'q8_0');
    expect(mx.json.perGpu.breakdown.weights).toBeLessThan(q8.json.perGpu.breakdown.weights);
  });

  it('--seq past the trained context runs with a warning; past what the config declares, only where the engine scales RoPE', () => {
    // A config whose rope_scaling (yarn, factor 4) declares four times its 32,768 positions.
    const config = JSON.parse(
      readFileSync(join(ROOT, 'catalogs/models/qwen2.5-0.5b.json'), 'utf8'),
    ).config;
    const path = join(dir, 'config.json');
    writeFileSync(
      path,
      JSON.stringify({
        ...config,
        rope_scaling: { type: 'yarn', factor: 4.0, original_max_position_embeddings: 32768 },
      }),
    );
    const long = estimate('--model', path, '--method', 'inference', '--seq', '100000');
    expect(long.json.warnings.join('\n')).toMatch(/past the 32768 positions .* was trained for/);
    expect(estimate('--model', path, '--method', 'inference', '--seq', '200000').status).toBe(1);
    const tiny = ['--model', 'tinyllama-1.1b', '--method', 'lora', '--seq', '4096'];
    // transformers computes rotary positions from the position ids: a RoPE model trains past its config's positions.
    expect(estimate(...tiny).json.warnings.join('\n')).toMatch(
      /transformers computes rotary positions/,
    );
    // A learned position table (BigCode's wpe) has no row past its positions.
    expect(estimate('--model', 'octocoder', '--method', 'lora', '--seq', '16384').status).toBe(1);
    const unsloth = estimate(...tiny, '--framework', 'unsloth');
    expect(unsloth.json.warnings.join('\n')).toMatch(/Unsloth scales RoPE itself/);
  });
});

describe('launch: only what vramplan writes', () => {
  it('refuses torchtune generation in one line naming what it writes, with no folder', () => {
    const out = join(dir, 'tune-gen');
    const r = runCli([
      'launch',
      '--model',
      'llama-2-7b',
      '--framework',
      'torchtune',
      '--method',
      'inference',
      '--gpu',
      'rtx-4090',
      '--out',
      out,
    ]);
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^vramplan: .*writes no torchtune launch files.*full\/lora\/qlora/);
    expect(existsSync(out)).toBe(false);
  });
});
