// The MoE kernel vLLM runs gpt-oss's MXFP4 experts through by default, by PyPI release and compute capability (read in
// the wheels: 0.10.1's `_should_use_marlin` fails its torch 2.8 check under the pinned torch 2.7.1; 0.10.2-0.11.1
// take Triton only where triton_kernels imports, which those wheels neither require nor ship; 0.12.0 on vendor it
// under vllm/third_party and take triton_kernels' matmul_ogs on 9.x), and the launch that asks the pinned release for
// the Marlin MoE the estimate times wherever its default differs.
import { afterAll, describe, expect, it } from 'vitest';
import { vllmMxfp4MoeDefault } from '../../src/core/engines/vllm/mxfp4-backend.js';
import { mxfp4MoeBackendArgs } from '../../src/core/engines/vllm/launch.js';
import { VLLM_VERSION } from '../../src/core/engines/vllm/rules.js';
import { readFromConfig } from '../../src/io/from/read.js';
import { launchInputOf, serveShOf } from '../helpers/launch.js';
import { scratchDir } from '../helpers/run-cli.js';

const scratch = scratchDir('vramplan-mxfp4-backend-');
afterAll(() => scratch.remove());

describe("vLLM's default MXFP4 MoE backend by release", () => {
  it('Marlin on Hopper through 0.11.x, triton_kernels matmul_ogs from 0.12.0', () => {
    for (const v of ['0.10.1', '0.10.1.1', '0.10.2', '0.11.0', '0.11.1', '0.11.2'])
      expect(vllmMxfp4MoeDefault(v, 9.0)).toBe('marlin');
    for (const v of ['0.12.0', '0.13.0', '0.15.1', '0.19.0', '0.33.0'])
      expect(vllmMxfp4MoeDefault(v, 9.0)).toBe('triton');
  });

  it('Marlin on Ampere and Ada in every release', () => {
    for (const v of ['0.10.1', '0.11.0', '0.12.0', '0.33.0'])
      for (const cc of [8.0, 8.6, 8.9]) expect(vllmMxfp4MoeDefault(v, cc)).toBe('marlin');
  });

  it('says nothing where it was not read: before gpt-oss, preview tags, 10.x, 12.x before 0.33.0', () => {
    expect(vllmMxfp4MoeDefault('0.10.0', 9.0)).toBeNull();
    expect(vllmMxfp4MoeDefault('0.10.1+gptoss', 9.0)).toBeNull();
    expect(vllmMxfp4MoeDefault('0.33.0', 10.0)).toBeNull();
    expect(vllmMxfp4MoeDefault('0.19.0', 12.0)).toBeNull();
  });

  it('Marlin on 12.x at 0.33.0 (TRITON behind BATCHED_MARLIN on the 120 family), no argument written', () => {
    for (const cc of [12.0, 12.1]) expect(vllmMxfp4MoeDefault('0.33.0', cc)).toBe('marlin');
    const o = { weights: 'mxfp4' } as Parameters<typeof mxfp4MoeBackendArgs>[0];
    expect(mxfp4MoeBackendArgs(o, '12.0')).toEqual([]);
  });

  it('the launch names Marlin exactly where the pinned release would run another kernel below 10.0', () => {
    const o = { weights: 'mxfp4' } as Parameters<typeof mxfp4MoeBackendArgs>[0];
    for (const cc of ['8.0', '8.9', '9.0']) {
      const d = vllmMxfp4MoeDefault(VLLM_VERSION, Number(cc));
      expect(mxfp4MoeBackendArgs(o, cc)).toEqual(d === 'marlin' ? [] : ['--moe-backend marlin']);
    }
  });
});

describe('the launched server read back with --from', () => {
  it('keeps the Marlin MoE the estimate timed on an H100: --moe-backend read, no warning, the same kernel', () => {
    const x = launchInputOf('gpt-oss-20b', 'h100-sxm', {
      method: 'inference',
      weights: 'mxfp4',
      framework: 'vllm',
      batch: 8,
      seq: 4096,
    });
    const sh = serveShOf(x.arch, x.options, x.gpu, x.estimate);
    expect(sh).toContain('--moe-backend marlin');
    const read = readFromConfig(scratch.folder('gptoss-h100', { 'serve.sh': sh }));
    const unread = [...read.ignored, ...read.unknown, ...read.warnings].join('\n');
    expect(unread).not.toContain('moe-backend');
    const back = launchInputOf('gpt-oss-20b', 'h100-sxm', { ...read.flags, gpu: 'h100-sxm' });
    expect(back.estimate.time?.settings.quantFormat).toBe(x.estimate.time?.settings.quantFormat);
    expect(back.estimate.time?.settings.quantFormat).toBe('marlin');
  });

  it('a backend the estimate does not time is named in a warning', () => {
    const read = readFromConfig(
      scratch.folder('gptoss-triton', {
        'serve.sh':
          '#!/usr/bin/env bash\nvllm serve openai/gpt-oss-20b --moe-backend triton --max-model-len 4096 --max-num-seqs 8\n',
      }),
    );
    expect(read.warnings.join('\n')).toContain('--moe-backend triton');
  });
});
