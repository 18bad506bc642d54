// vLLM on an AMD GPU: the launch folder's requirements name vLLM's ROCm wheel index (the PyPI wheel is the CUDA
// build), and its fp8 KV cache is E4M3 on MI300-class GPUs as AMD's own serving guides write it.
import { describe, expect, it } from 'vitest';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { buildEstimate } from '../../src/core/estimate.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { serveLaunchOf } from '../helpers/launch.js';

const filesOn = (gpuId: string): Map<string, string> => {
  const flags = {
    method: 'inference',
    framework: 'vllm',
    weights: 'fp8',
    'kv-cache-dtype': 'fp8',
    batch: 8,
    seq: 4096,
  };
  const arch = resolveModel('llama-3.1-8b');
  const options = withEngineDefaults(optionsFromFlags(flags), flags);
  const gpu = findGpu(gpuId);
  const out = serveLaunchOf(arch, options, gpu, buildEstimate(arch, options, gpu));
  const vllm = out.outputs.find((e) => e.engine === 'vLLM');
  expect(vllm?.ok).toBe(true);
  return new Map((vllm!.ok ? vllm!.files : []).map((f) => [f.path, String(f.content)]));
};

describe('vLLM launch on AMD GPUs', () => {
  it('MI300X: the ROCm wheel index in requirements.txt, --kv-cache-dtype fp8', () => {
    const f = filesOn('mi300x');
    expect(f.get('requirements.txt')).toMatch(
      /uv pip install -r requirements.txt --extra-index-url https:\/\/wheels\.vllm\.ai\/rocm\/\d+\.\d+\.\d+\/\$VLLM_ROCM_VARIANT/,
    );
    expect(f.get('requirements.txt')).toMatch(/^vllm==\d+\.\d+\.\d+$/m);
    expect(f.get('serve.sh')).toMatch(/--kv-cache-dtype fp8 /);
  });

  it('an NVIDIA GPU keeps the PyPI wheel alone', () => {
    const f = filesOn('h100-sxm');
    expect(f.get('requirements.txt')).not.toMatch(/wheels\.vllm\.ai/);
    expect(f.get('serve.sh')).toMatch(/--kv-cache-dtype fp8 /);
  });
});
