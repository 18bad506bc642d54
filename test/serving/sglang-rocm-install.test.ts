// SGLang on an AMD GPU: PyPI's sglang[all] is the CUDA build (torch, sgl-kernel), so the launch folder installs
// SGLang from source as its AMD guide does (install-rocm.sh) and requirements.txt names no PyPI line.
import { describe, expect, it } from 'vitest';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { SGLANG_VERSION } from '../../src/core/engines/sglang/rules.js';
import { buildEstimate } from '../../src/core/estimate.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { serveLaunchOf } from '../helpers/launch.js';

const filesOn = (gpuId: string): Map<string, string> => {
  const flags = { method: 'inference', framework: 'sglang', weights: 'fp8', batch: 8, seq: 4096 };
  const arch = resolveModel('llama-3.1-8b');
  const options = withEngineDefaults(optionsFromFlags(flags), flags);
  const gpu = findGpu(gpuId);
  const out = serveLaunchOf(arch, options, gpu, buildEstimate(arch, options, gpu));
  const sglang = out.outputs.find((e) => e.engine === 'SGLang');
  expect(sglang?.ok).toBe(true);
  return new Map((sglang!.ok ? sglang!.files : []).map((f) => [f.path, String(f.content)]));
};

describe('SGLang launch on AMD GPUs', () => {
  it('MI300X: install-rocm.sh builds the pinned release from source; no PyPI sglang[all] line', () => {
    const f = filesOn('mi300x');
    expect(f.get('requirements.txt')).not.toMatch(/^sglang/m);
    const install = f.get('install-rocm.sh')!;
    expect(install).toContain(
      `git clone -b v${SGLANG_VERSION} https://github.com/sgl-project/sglang.git`,
    );
    expect(install).toContain('python setup_rocm.py install');
    expect(install).toContain('pip install -e "python[all_hip]"');
  });

  it('an NVIDIA GPU keeps the PyPI sglang[all] pin', () => {
    const f = filesOn('h100-sxm');
    expect(f.get('requirements.txt')).toMatch(
      new RegExp(`^sglang\\[all\\]==${SGLANG_VERSION}$`, 'm'),
    );
    expect(f.has('install-rocm.sh')).toBe(false);
  });
});
