// explain on a serving configuration: the serving engines' own weight formats (FP8, an int4 AWQ/GPTQ checkpoint) are
// among the fixes, and a shorter context is described as what the server caps, not as training on shorter sequences.
import { describe, expect, it } from 'vitest';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { explainFit } from '../../src/core/plan/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';

describe('explain: vLLM serving Qwen3-32B over two L40S at 32k context', () => {
  const flags = {
    method: 'inference',
    framework: 'vllm',
    weights: 'bf16',
    'kv-cache-dtype': 'fp8',
    batch: 32,
    seq: 32768,
    gpus: 2,
    tp: 2,
  };
  const options = withEngineDefaults(optionsFromFlags(flags), flags);
  const e = explainFit(resolveModel('qwen3-32b'), options, findGpu('l40s'));

  it('offers FP8 and int4 weights, each with its quality source', () => {
    expect(e.fits).toBe(false);
    const labels = e.fixes.map((f) => f.changes.map((c) => c.label).join(' + '));
    expect(labels.some((l) => l.includes('fp8 weights'))).toBe(true);
    expect(labels.some((l) => l.includes('int4 weights'))).toBe(true);
  });

  it('says a shorter sequence caps what the server takes', () => {
    const seq = e.fixes.flatMap((f) => f.changes).filter((c) => c.axis === 'seq');
    expect(seq.length).toBeGreaterThan(0);
    for (const c of seq) expect(c.tradeoff).not.toMatch(/trains/);
  });
});
