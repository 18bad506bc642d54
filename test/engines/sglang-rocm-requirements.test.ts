// SGLang on an AMD GPU: PyPI's sglang wheel is the CUDA build (sglang 0.5.23 METADATA pins
// flashinfer_python[cu13], sglang-kernel and the CUDA torch), so requirements.txt installs nothing there and names
// SGLang's ROCm image or source build (docs/platforms/amd_gpu.md); on NVIDIA GPUs it pins sglang[all].
import { describe, expect, it } from 'vitest';
import { buildLaunch } from '../../src/core/launch/index.js';
import { launchInputOf } from '../helpers/launch.js';

const requirements = (gpu: string): string => {
  const x = launchInputOf('llama-3.1-8b', gpu, {
    method: 'inference',
    framework: 'sglang',
    weights: 'fp8',
    batch: '8',
    seq: '4096',
  });
  return buildLaunch(x).files.find((f) => f.path === 'requirements.txt')!.content;
};
const installs = (req: string): string[] =>
  req.split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'));

describe('SGLang requirements.txt by GPU vendor', () => {
  it('NVIDIA: pins sglang[all] from PyPI', () => {
    expect(installs(requirements('h100-sxm'))).toEqual(['sglang[all]==0.5.23']);
  });
  it("MI300X: nothing from PyPI; SGLang's ROCm image or source build named", () => {
    const req = requirements('mi300x');
    expect(installs(req)).toEqual([]);
    expect(req).toContain('lmsysorg/sglang');
    expect(req).toContain('mi30x');
    expect(req).toContain('setup_rocm.py');
  });
});
