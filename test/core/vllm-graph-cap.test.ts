// vLLM V1 captures decode CUDA graphs up to min(2 x max_num_seqs, 512) (vllm/config/vllm.py _set_cudagraph_sizes) and
// runs a larger step without a graph through its torch.compile'd pieces (gpu_model_runner.py _get_num_input_tokens,
// "Eager mode"): the host launches the pieces' kernels through Inductor's wrappers and the attention ops between them
// (engines/vllm/graph-cap.ts, time/graph-step.ts compiledForwardHostSeconds). --enforce-eager (graph_max_batch 0)
// runs the uncompiled eager layer, dearer.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import {
  VLLM_COMPILED_ABOVE_GRAPHS,
  VLLM_GRAPH_MAX_BATCH,
} from '../../src/core/engines/vllm/graph-cap.js';
import { VLLM_MEMORY } from '../../src/core/engines/vllm/memory.js';
import { decodeStep } from '../../src/core/time/decode.js';
import { compiledForwardHostSeconds } from '../../src/core/time/graph-step.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { OPS_PER_LAYER_COMPILED } from '../../src/core/time/train-work.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions, type TimeOptions } from '../../src/schema/time.js';

const m = modelFacts(resolveModel('qwen3-0.6b'));
const gpu = findGpu('h100-sxm');
const optionsAt = (batch: number) => {
  const f = { method: 'inference', framework: 'vllm', batch, seq: 160, 'prompt-tokens': 128 };
  return withEngineDefaults(optionsFromFlags(f), f);
};
const step = (batch: number, extra: Partial<TimeOptions> = {}) => {
  const t = { ...defaultTimeOptions(1), ...extra };
  return decodeStep(m, optionsAt(batch), t, gpuRates(gpu, t), false).stepSeconds;
};
// The compiled pieces' kernels alone: a floor under the host's work above the graphs.
const pieceKernels =
  m.layers *
  (OPS_PER_LAYER_COMPILED - (VLLM_MEMORY.piecewiseAttentionCalls?.kv ?? 0)) *
  VLLM_COMPILED_ABOVE_GRAPHS.kernelSeconds;

describe("vLLM V1's largest captured decode batch", () => {
  it('is 512 on any card at the default max_num_seqs', () => {
    expect(VLLM_GRAPH_MAX_BATCH).toBe(512);
    expect(VLLM_MEMORY.graphMaxBatch?.(80 * 2 ** 30, 1, 1)).toBe(512);
    expect(VLLM_MEMORY.graphMaxBatch?.(24 * 2 ** 30, 1, 1)).toBe(512);
  });

  it('a step of a small model above it takes the compiled launches; the same batch in a graph does not', () => {
    const t = defaultTimeOptions(1);
    const host = compiledForwardHostSeconds(
      m,
      optionsAt(1024),
      t,
      gpuRates(gpu, t),
      VLLM_COMPILED_ABOVE_GRAPHS,
    );
    expect(host).toBeGreaterThan(pieceKernels);
    expect(step(1024)).toBeGreaterThanOrEqual(host);
    expect(step(1024, { graphMaxBatch: 2048 })).toBeLessThan(step(1024));
    expect(step(512)).toBeLessThan(step(513));
  });

  it('--enforce-eager (graph_max_batch 0) runs the uncompiled layer, dearer than the compiled pieces', () => {
    expect(step(1024, { graphMaxBatch: 0 })).toBeGreaterThan(step(1024));
  });

  it('the compiled launches grow with the layers and do not fall with the batch', () => {
    fc.assert(
      fc.property(fc.integer({ min: 513, max: 4096 }), fc.integer({ min: 1, max: 512 }), (b, d) => {
        const t = defaultTimeOptions(1);
        const r = gpuRates(gpu, t);
        const at = (n: number) =>
          compiledForwardHostSeconds(m, optionsAt(n), t, r, VLLM_COMPILED_ABOVE_GRAPHS);
        const fewer = { ...m, layers: m.layers - 1 };
        return (
          at(b + d) >= at(b) &&
          compiledForwardHostSeconds(fewer, optionsAt(b), t, r, VLLM_COMPILED_ABOVE_GRAPHS) < at(b)
        );
      }),
      { numRuns: 30 },
    );
  });
});
