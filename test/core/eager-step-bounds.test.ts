// A serving engine's decode step outside its CUDA graphs (vLLM `--enforce-eager`, SGLang `--disable-cuda-graph`, the
// rows' `graph_max_batch: 0`, or a batch above the largest captured): the host issues every kernel, and the GPU runs
// each as it is issued, so the step is the longer of the host's launches and the GPU's work, plus the parts that run
// in series (time/graph-step.ts overlappedHostSeconds, time/decode.ts decodeStepFigures). Where the GPU's work is the
// longer, the launches are hidden under it; where the launches are, the step is theirs. A graph replay adds no launch
// of its own beyond its kernels' gaps, which an eager step pays as well, so at a batch the engine captures exactly the
// eager step is never the shorter. At a batch it does not capture, SGLang replays the next captured size and routes
// the padded rows through the experts too (engines/sglang/graph-batch.ts), which an eager step does not: there an
// eager MoE step bound by the GPU reads fewer experts and can be the shorter.
import { describe, expect, it } from 'vitest';
import { estimateTime } from '../../src/core/time/index.js';
import { overlappedHostSeconds } from '../../src/core/time/graph-step.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { decodeStepFigures } from '../../src/core/time/decode.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultOptions, type EstimateOptions, type Framework } from '../../src/schema/estimate.js';
import { defaultTimeOptions, type TimeOptions } from '../../src/schema/time.js';

// Every batch here is one both engines capture exactly (engines/sglang/graph-batch.ts; vLLM replays its batch as is).
const CAPTURED_BATCHES = [1, 8, 16, 64];
const EVERY = 1e6; // graph_max_batch above any batch: every decode step replays a graph

const options = (
  framework: Framework,
  batch: number,
  weights: 'bf16' | 'int4',
): EstimateOptions => ({
  ...defaultOptions('inference'),
  framework,
  batch,
  weights,
  seq: 1024,
  promptTokens: 512,
});
const timeOptions = (graphMaxBatch: number): TimeOptions => ({
  ...defaultTimeOptions(1),
  gpusPerNode: 1,
  graphMaxBatch,
});
const stepOf = (model: string, gpu: string, o: EstimateOptions, graphMaxBatch: number) =>
  estimateTime(resolveModel(model), o, findGpu(gpu), timeOptions(graphMaxBatch)).stepSeconds;

describe('an eager decode step against the same step replayed as a CUDA graph', () => {
  it('is never the shorter at a batch the engine captures exactly (dense and MoE, vLLM and SGLang)', () => {
    for (const framework of ['vllm', 'sglang'] as const)
      for (const model of ['qwen3-0.6b', 'llama-3-8b', 'qwen3-30b-a3b'])
        for (const gpu of ['l4', 'a100-80gb-sxm', 'h100-sxm', 'rtx-4090'])
          for (const batch of CAPTURED_BATCHES)
            for (const weights of ['bf16', 'int4'] as const) {
              const o = options(framework, batch, weights);
              const eager = stepOf(model, gpu, o, 0);
              const graph = stepOf(model, gpu, o, EVERY);
              expect(
                eager,
                `${framework} ${model} ${gpu} ${batch} ${weights}`,
              ).toBeGreaterThanOrEqual(graph);
            }
  });

  it("can be the shorter for SGLang's MoE at a batch it pads: the graph routes the padded rows, eager does not", () => {
    // 17 sequences replay the graph of 24 (engines/sglang/graph-batch.ts); on an L4 the step is the experts' reads.
    const o17 = options('sglang', 17, 'bf16');
    expect(stepOf('qwen3-30b-a3b', 'l4', o17, 0)).toBeLessThan(
      stepOf('qwen3-30b-a3b', 'l4', o17, EVERY),
    );
    // A dense model's padded rows read no more weights: the eager step is not the shorter.
    expect(stepOf('llama-3-8b', 'l4', o17, 0)).toBeGreaterThanOrEqual(
      stepOf('llama-3-8b', 'l4', o17, EVERY),
    );
  });
});

describe("the host's launches of an eager step and the GPU's work", () => {
  const figures = (
    framework: Framework,
    gpu: string,
    graphMaxBatch: number,
    model = 'qwen2.5-7b',
  ) => {
    const m = modelFacts(resolveModel(model));
    const o = options(framework, 1, 'bf16');
    const t = timeOptions(graphMaxBatch);
    const r = gpuRates(findGpu(gpu), t, true);
    const f = decodeStepFigures(m, o, t, r, o.seq);
    return { step: f.step, host: overlappedHostSeconds(m, o, t, r, 1) };
  };

  it('are hidden under the GPU where its work is the longer (Qwen2.5-7B bf16, one sequence, L4)', () => {
    for (const framework of ['vllm', 'sglang'] as const) {
      const eager = figures(framework, 'l4', 0);
      const graph = figures(framework, 'l4', EVERY);
      // The L4's 300 GB/s takes longer over the 15 GB of weights than the host over its launches.
      expect(eager.host).toBeLessThan(eager.step / 2);
      expect(eager.step).toBeCloseTo(graph.step, 9);
    }
  });

  it('are the step where they are the longer (Qwen3-0.6B, one sequence, H100: 1.2 GB of weights)', () => {
    for (const framework of ['vllm', 'sglang'] as const) {
      const eager = figures(framework, 'h100-sxm', 0, 'qwen3-0.6b');
      const graph = figures(framework, 'h100-sxm', EVERY, 'qwen3-0.6b');
      expect(eager.host).toBeGreaterThan(graph.step);
      // The step is the launches (plus nothing the GPU's work adds on top: the GPU waits on each kernel's issue).
      expect(eager.step).toBeCloseTo(eager.host, 9);
    }
  });
});
