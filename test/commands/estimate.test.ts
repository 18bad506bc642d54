// The estimate contract as outside tools call it: the built CLI in a subprocess.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const run = (...args: string[]) => {
  const r = spawnSync(process.execPath, ['dist/cli.js', ...args], { encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
};

describe('vramplan estimate --json', () => {
  it('prints the contract object with fits when --gpu is given', () => {
    const r = run('estimate', '--model', 'llama-2-13b', '--gpu', 'rtx-4090', '--json');
    expect(r.code).toBe(0);
    const j = JSON.parse(r.out);
    expect(j.fits).toBe(false);
    for (const k of ['allocatedBytes', 'reservedBytes', 'deviceBytes'])
      expect(Number.isSafeInteger(j.perGpu[k])).toBe(true);
    for (const k of ['weights', 'gradients', 'optimizer', 'activations', 'kvCache', 'overhead'])
      expect(Number.isSafeInteger(j.perGpu.breakdown[k])).toBe(true);
    expect(j.perGpu.allocatedBytes).toBeLessThanOrEqual(j.perGpu.reservedBytes);
    expect(j.perGpu.reservedBytes).toBeLessThanOrEqual(j.perGpu.deviceBytes);
  });

  it('omits fits without --gpu and accepts a Hugging Face id in any case', () => {
    const j = JSON.parse(
      run('estimate', '--model', 'META-LLAMA/llama-2-7b-HF', '--method', 'qlora', '--json').out,
    );
    expect(j.fits).toBeUndefined();
    expect(j.options.weights).toBe('nf4');
    expect(j.model.id).toBe('llama-2-7b');
  });

  it('keeps the bf16 default for a checkpoint that ships quantized, and says what it ships', () => {
    const j = JSON.parse(
      run('estimate', '--model', 'gpt-oss-20b', '--method', 'inference', '--json').out,
    );
    expect(j.options.weights).toBe('bf16');
    expect(j.warnings.join('\n')).toMatch(/ships mxfp4 weights.*--weights mxfp4/);
    const given = JSON.parse(
      run(
        'estimate',
        '--model',
        'gpt-oss-20b',
        '--method',
        'inference',
        '--weights',
        'mxfp4',
        '--json',
      ).out,
    );
    expect(given.warnings ?? []).not.toContainEqual(expect.stringMatching(/ships mxfp4/));
  });

  it('exits 0 whether or not it fits', () => {
    expect(run('estimate', '--model', 'qwen2.5-0.5b', '--gpu', 'h100-sxm', '--json').code).toBe(0);
    expect(run('estimate', '--model', 'llama-3.1-405b', '--gpu', 'rtx-3060', '--json').code).toBe(
      0,
    );
  });

  it('rejects bad input with one line naming the flag, the value and what is allowed', () => {
    const r = run('estimate', '--model', 'llama-2-7b', '--optimizer', 'adam', '--json');
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err.trim()).toBe(
      "vramplan: --optimizer: got 'adam'; expected one of adamw, adamw-8bit, paged-adamw, paged-adamw-8bit, adam-mini, sgd, sgd-momentum, lion, adafactor, none (did you mean 'adamw', 'adam-mini' or 'adamw-8bit'?)",
    );
  });

  it('prints a readable report with the verdict and the dominant components', () => {
    const r = run('estimate', '--model', 'llama-2-13b', '--gpu', '4090');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/fits: NO — over by [\d.]+ GiB on GeForce RTX 4090/);
    expect(r.out).toMatch(/largest components: optimizer states/);
  });
});

describe('LoRA targets', () => {
  it('refuses targets that match no module of the architecture, naming the ones it has', () => {
    const r = run(
      'estimate',
      '--model',
      'falcon-7b',
      '--method',
      'lora',
      '--lora-targets',
      'gate',
      '--json',
    );
    expect(r.code).toBe(1);
    expect(r.err.trim()).toBe(
      "vramplan: --lora-targets: got 'gate'; expected targets falcon has: q, k, v, o, up, down, embed, lm_head, or all-linear",
    );
  });
});
