// Published quantized checkpoints a serving plan loads instead of making one: Qwen's AWQ of Qwen2-VL-7B-Instruct
// and the GGUF quants of Qwen3-14B: Qwen's own k-quants, bartowski's Q8_0 (fetched by llama-server with -hf repo:QUANT);
// Z.ai's FP8 of GLM-4.5-Air and unsloth's GGUF of Qwen3-30B-A3B-Instruct-2507.
import { describe, expect, it } from 'vitest';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { buildEstimate } from '../../src/core/estimate.js';
import { checkpointFor } from '../../src/core/launch/checkpoints.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { serveShOf } from '../helpers/launch.js';

/** serve.sh of a llama-server Q4_K_M plan of `model` at `seq` tokens on one RTX 4090. */
function llamaServerQ4km(model: string, seq: number): string {
  const flags = { method: 'inference', framework: 'llama.cpp', weights: 'q4_k_m', seq };
  const arch = resolveModel(model);
  const options = withEngineDefaults(optionsFromFlags(flags), flags);
  const gpu = findGpu('rtx-4090');
  return serveShOf(arch, options, gpu, buildEstimate(arch, options, gpu));
}

describe('published checkpoints', () => {
  it('Qwen2-VL-7B-Instruct in int4 is Qwen/Qwen2-VL-7B-Instruct-AWQ, with nothing to make', () => {
    const ck = checkpointFor('Qwen/Qwen2-VL-7B-Instruct', 'Qwen/Qwen2-VL-7B-Instruct', 'int4');
    expect(ck).toEqual({ ref: 'Qwen/Qwen2-VL-7B-Instruct-AWQ', published: true, steps: [] });
  });

  it("Qwen3-14B's GGUF k-quants are Qwen's own, its Q8_0 bartowski's", () => {
    for (const w of ['q4_k_m', 'q5_k_m', 'q6_k'] as const) {
      const ck = checkpointFor('Qwen/Qwen3-14B', 'Qwen/Qwen3-14B', w);
      expect(ck.published, w).toBe(true);
      expect(ck.ref).toBe('Qwen/Qwen3-14B-GGUF');
    }
    expect(checkpointFor('Qwen/Qwen3-14B', 'Qwen/Qwen3-14B', 'q8_0').ref).toBe(
      'bartowski/Qwen_Qwen3-14B-GGUF',
    );
  });

  it("GLM-4.5-Air in fp8 is Z.ai's own FP8 release, not --quantization fp8 over the 16-bit weights", () => {
    const ck = checkpointFor('zai-org/GLM-4.5-Air', 'glm-4.5-air', 'fp8');
    expect(ck).toEqual({ ref: 'zai-org/GLM-4.5-Air-FP8', published: true, steps: [] });
  });

  it("llama-server fetches Qwen3-30B-A3B-Instruct-2507's Q4_K_M with -hf (unsloth's GGUF)", () => {
    const sh = llamaServerQ4km('qwen3-30b-a3b-instruct-2507', 16384);
    expect(sh).toContain('unsloth/Qwen3-30B-A3B-Instruct-2507-GGUF');
    expect(sh).toMatch(/-hf "\$MODEL:Q4_K_M"/);
    expect(sh).not.toContain('convert_hf_to_gguf.py');
  });

  it("an alias's own quantized repository: Qwen2.5-Coder-32B-Instruct in int4 is Qwen's Coder AWQ", () => {
    expect(
      checkpointFor('Qwen/Qwen2.5-Coder-32B-Instruct', 'Qwen/Qwen2.5-Coder-32B-Instruct', 'int4'),
    ).toEqual({ ref: 'Qwen/Qwen2.5-Coder-32B-Instruct-AWQ', published: true, steps: [] });
    // The base entry keeps its own Instruct AWQ.
    expect(checkpointFor('Qwen/Qwen2.5-32B', 'qwen2.5-32b', 'int4').ref).toBe(
      'Qwen/Qwen2.5-32B-Instruct-AWQ',
    );
  });

  it("llama-server fetches Qwen3-14B's Q4_K_M with -hf", () => {
    const sh = llamaServerQ4km('qwen3-14b', 8192);
    expect(sh).toContain('Qwen/Qwen3-14B-GGUF');
    expect(sh).toMatch(/-hf "\$MODEL:Q4_K_M"/);
    expect(sh).not.toContain('convert_hf_to_gguf.py');
  });
});
