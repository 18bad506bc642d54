// `vramplan launch` in flag form refuses a GPU the engine cannot run on as `estimate` refuses it: an engine with
// no Apple GPU path on an Apple GPU (engines/apple.ts), a pinned torch without ROCm kernels for the GPU
// (engines/torch-targets.ts). One line on stderr, exit 1, no folder; buildLaunch writes no engine files either.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadLaunchers } from '../../src/core/engines/store.js';
import '../../src/core/engines/registry.js';
import { bundleBlocked, buildLaunch } from '../../src/core/launch/index.js';
import { launchInputOf } from '../helpers/launch.js';
import { runCli } from '../helpers/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'vramplan-launch-gpu-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const args = (framework: string, gpu: string, method: string) => [
  '--model',
  'llama-3.1-8b',
  '--method',
  method,
  '--framework',
  framework,
  '--gpu',
  gpu,
];

/** launch and estimate with the same flags: launch's stderr must be estimate's refusal, and no folder. */
function refusedAlike(framework: string, gpu: string, method: string, reason: RegExp): void {
  const out = join(dir, `${framework}-${gpu}`);
  const launch = runCli(['launch', ...args(framework, gpu, method), '--out', out]);
  const estimate = runCli(['estimate', ...args(framework, gpu, method)]);
  expect(estimate.status).toBe(1);
  expect(launch.status).toBe(1);
  expect(launch.stderr.trim().split('\n')).toHaveLength(1);
  expect(launch.stderr).toMatch(reason);
  expect(launch.stderr).toBe(estimate.stderr);
  expect(launch.stdout).toBe('');
  expect(existsSync(out)).toBe(false);
}

describe('launch refuses the GPUs estimate refuses', () => {
  it('Unsloth on an M4 Max: the estimate refusal, exit 1, nothing written', () => {
    refusedAlike('unsloth', 'apple-m4-max-128gb', 'qlora', /unsloth has no Apple GPU path/);
  });

  it('torchtune on MI355X: its pinned torch has no gfx950 kernels', () => {
    refusedAlike('torchtune', 'mi355x', 'lora', /pinned torch has no gfx950/);
  });

  it("bitsandbytes' 8-bit AdamW on the M4 Max: refused as estimate refuses it", () => {
    const out = join(dir, 'hf-8bit-m4');
    const flags = [
      ...args('hf-trainer', 'apple-m4-max-128gb', 'lora'),
      '--optimizer',
      'adamw-8bit',
    ];
    const launch = runCli(['launch', ...flags, '--out', out]);
    expect(launch.status).toBe(1);
    expect(launch.stderr).toMatch(/--optimizer.*optimizer_update_8bit_blockwise/);
    expect(launch.stderr).toBe(runCli(['estimate', ...flags]).stderr);
    expect(existsSync(out)).toBe(false);
  });

  it('still writes hf-trainer on the M4 Max', () => {
    const out = join(dir, 'hf-m4');
    const r = runCli(['launch', ...args('hf-trainer', 'apple-m4-max-128gb', 'lora'), '--out', out]);
    expect(r.status).toBe(0);
    expect(existsSync(join(out, 'README.md'))).toBe(true);
  });

  it('buildLaunch writes no engine files for a GPU the engine cannot run on', async () => {
    await loadLaunchers();
    const bundle = (framework: string, gpu: string) =>
      buildLaunch(launchInputOf('llama-3.1-8b', gpu, { method: 'lora', framework }));
    expect(bundleBlocked(bundle('unsloth', 'apple-m4-max-128gb'))).toMatch(/no Apple GPU path/);
    expect(bundleBlocked(bundle('torchtune', 'mi355x'))).toMatch(/no gfx950 kernels/);
    expect(bundleBlocked(bundle('unsloth', 'h100-sxm'))).toBeNull();
    const step = buildLaunch(
      launchInputOf('llama-3.1-8b', 'apple-m4-max-128gb', {
        method: 'lora',
        framework: 'hf-trainer',
        optimizer: 'paged-adamw',
      }),
    );
    expect(bundleBlocked(step)).toMatch(/cget_managed_ptr/);
  });
});
