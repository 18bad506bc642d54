/**
 * A serving README's "How to run" names the engine that wrote serve.sh and what its requirements.txt installs:
 * vLLM's brings its torch, SGLang's sglang[all] its kernels, llama.cpp's only the Python tools around
 * llama-server (the server itself is the server-cuda image or a CUDA build).
 */
import { describe, expect, it } from 'vitest';
import { buildLaunch } from '../../src/core/launch/index.js';
import { renderLaunchReadme } from '../../src/ui/launch-readme.js';
import { launchInputOf } from '../helpers/launch.js';

const howToRun = (framework: string, weights: string, gpu = 'h100-sxm'): string => {
  const x = launchInputOf('llama-3.1-8b', gpu, {
    method: 'inference',
    framework,
    weights,
    batch: '8',
    seq: '4096',
  });
  const readme = renderLaunchReadme(x, buildLaunch(x));
  return readme.slice(readme.indexOf('## How to run'), readme.indexOf('Your edits are safe'));
};

describe('launch README: how to run a server', () => {
  it('vLLM: its environment brings the torch it pins', () => {
    const run = howToRun('vllm', 'bf16');
    expect(run).toContain('- vLLM: `bash serve.sh`');
    expect(run).toContain('vllm brings the torch it pins');
  });

  it('SGLang: named as SGLang, not vLLM', () => {
    const run = howToRun('sglang', 'bf16');
    expect(run).toContain('- SGLang: `bash serve.sh`');
    expect(run).toContain('sglang[all]');
    expect(run).not.toMatch(/vLLM|vllm/);
  });

  it('llama.cpp: llama-server from its image or a build; requirements.txt holds the Python tools only', () => {
    const run = howToRun('llama.cpp', 'q4_k_m');
    expect(run).toContain('- llama.cpp: `bash serve.sh`');
    expect(run).toContain('llama-server');
    expect(run).not.toMatch(/vLLM|vllm/);
    expect(run).toContain('ghcr.io/ggml-org/llama.cpp:server-cuda or a build with -DGGML_CUDA=ON');
  });

  it("llama.cpp on an AMD GPU: the ROCm server image or a HIP build for the card's target, not CUDA's", () => {
    // llama.cpp docs/docker.md (server-rocm: "compiled with ROCm support") and docs/build.md HIP
    // (-DGGML_HIP=ON -DGPU_TARGETS=gfx1030).
    const run = howToRun('llama.cpp', 'q4_k_m', 'mi300x');
    expect(run).toContain('ghcr.io/ggml-org/llama.cpp:server-rocm');
    expect(run).toContain('-DGGML_HIP=ON -DGPU_TARGETS=gfx942');
    expect(run).not.toMatch(/CUDA|cuda/);
  });

  it('llama.cpp on an Apple GPU: a macOS build, whose Metal backend is on by default; no container image', () => {
    // llama.cpp docs/build.md "Metal Build": "On MacOS, Metal is enabled by default."
    const run = howToRun('llama.cpp', 'q4_k_m', 'apple-m4-max-128gb');
    expect(run).toContain('Metal');
    expect(run).not.toMatch(/CUDA|cuda|ghcr\.io/);
  });
});
