/**
 * A serving README names the kernel its quantized weights run through (the plan's choices.quantFormat: Marlin for
 * AWQ/GPTQ int4, CUTLASS for FP8 W8A8 on Hopper), and nothing for 16-bit weights or GGUF types (the type names it).
 */
import { describe, expect, it } from 'vitest';
import { buildLaunch } from '../../src/core/launch/index.js';
import { renderLaunchReadme } from '../../src/ui/launch-readme.js';
import { launchInputOf } from '../helpers/launch.js';

const readme = (weights: string, framework = 'vllm') => {
  const x = launchInputOf('llama-3.1-8b', 'h100-sxm', { method: 'inference', framework, weights });
  return {
    kernel: x.estimate.time?.settings.quantFormat,
    text: renderLaunchReadme(x, buildLaunch(x)),
  };
};

describe('launch README: the quantized weights’ kernel', () => {
  it('int4 and fp8 name their kernel family', () => {
    for (const w of ['int4', 'fp8']) {
      const r = readme(w);
      expect(r.kernel).toBeTruthy();
      expect(r.text).toContain(`| weights / compute | ${w} (${r.kernel} kernel) / bf16 |`);
    }
  });

  it('bf16 and GGUF weights name none', () => {
    expect(readme('bf16').text).toContain('| weights / compute | bf16 / bf16 |');
    expect(readme('q4_k_m', 'llama.cpp').text).toContain('| weights / compute | q4_k_m / bf16 |');
  });
});
