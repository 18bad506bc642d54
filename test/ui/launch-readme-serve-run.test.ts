/**
 * A serving README's "How to run" names the engine that wrote serve.sh and what its requirements.txt installs:
 * vLLM's brings its torch, SGLang's sglang[all] its kernels, llama.cpp's only the Python tools around
 * llama-server (the server itself is the server-cuda image or a CUDA build).
 */
import { describe, expect, it } from 'vitest';
import { buildLaunch } from '../../src/core/launch/index.js';
import { renderLaunchReadme } from '../../src/ui/launch-readme.js';
import { launchInputOf } from '../helpers/launch.js';

const howToRun = (framework: string, weights: string): string => {
  const x = launchInputOf('llama-3.1-8b', 'h100-sxm', {
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
  });
});
