// vLLM V0 replays a decode step's CUDA graph only where its longest sequence is at most max_seq_len_to_capture
// (vllm/worker/model_runner.py ModelInputForGPUBuilder._use_captured_graph; 8192 unless `--max-seq-len-to-capture`
// sets it, EngineArgs of v0.6.3): a longer step runs eagerly and takes at least its host launches
// (FrameworkProfile.v0GraphMaxSeqLen, TimeOptions.maxSeqLenToCapture, time/graph-step.ts aboveGraphs).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { VLLM_MEMORY } from '../../src/core/engines/vllm/memory.js';
import { decodeStep } from '../../src/core/time/decode.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions, type TimeOptions } from '../../src/schema/time.js';

const m = modelFacts(resolveModel('meta-llama/Llama-3.1-8B'));

// One request's decode step at a mean context of `prompt` + 64 tokens.
const step = (prompt: number, t: Partial<TimeOptions>, gpu = 'mi300x') => {
  const f = {
    method: 'inference',
    framework: 'vllm',
    batch: 1,
    seq: prompt + 128,
    'prompt-tokens': prompt,
  };
  const o = withEngineDefaults(optionsFromFlags(f), f);
  const time: TimeOptions = { ...defaultTimeOptions(1), ...t };
  return decodeStep(m, o, time, gpuRates(findGpu(gpu), time), false).stepSeconds;
};

describe("vLLM V0's graph limit by sequence length", () => {
  it('is the engine default of 8192 tokens', () => {
    expect(VLLM_MEMORY.v0GraphMaxSeqLen).toBe(8192);
  });

  it('runs a V0 step past it eagerly, longer than the same step in its graph', () => {
    const v0 = { v0Scheduler: true, engineVersion: '0.6.3' };
    // 8,000 + 64 tokens: captured; 9,000 + 64: eager.
    const captured = step(8000, v0);
    const eager = step(9000, v0);
    expect(eager).toBeGreaterThan(1.2 * captured);
    // With the run's --max-seq-len-to-capture at 32768 the longer step stays in its graph: only its KV read grows.
    const raised = step(9000, { ...v0, maxSeqLenToCapture: 32768 });
    expect(raised).toBeLessThan(1.05 * captured);
    expect(raised).toBeGreaterThanOrEqual(captured);
  });

  it('leaves V1 steps alone (V1 captures by batch, not by length)', () => {
    expect(step(9000, {})).toBeLessThan(1.05 * step(8000, {}));
  });

  it('never makes a V0 step faster than the same step captured, at any prompt length and GPU', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60_000 }),
        fc.constantFrom('mi300x', 'h100-sxm', 'a100-80gb-sxm'),
        (prompt, gpu) => {
          const v0 = { v0Scheduler: true, engineVersion: '0.6.3' };
          const capped = step(prompt, v0, gpu);
          const uncapped = step(prompt, { ...v0, maxSeqLenToCapture: 1_000_000 }, gpu);
          return capped >= uncapped;
        },
      ),
      { numRuns: 40 },
    );
  });
});
