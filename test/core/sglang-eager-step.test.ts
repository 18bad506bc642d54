// SGLang's decode step outside its CUDA graphs (--disable-cuda-graph, or a batch above cuda_graph_max_bs): each layer
// issues its ops from Python through a module tree adapted from vLLM's (python/sglang/srt/models/llama.py), so the
// layer costs the host its launches and the Python around them (FrameworkProfile.eagerLayerHostSeconds, vLLM's timed
// figure, assumed: calibration/assumed.json SGLANG_EAGER_LAYER_PYTHON); and sglang 0.5.6's overlap loop runs the
// forward on the scheduler's own thread (event_loop_overlap -> run_batch -> forward_batch_generation), so those
// launches add to its step work (FrameworkProfile.forwardOnStepThread). An eager extend forward is priced at SGLang's
// own measured price a call, a whole forward's host time over its calls: no layer Python on top of it.
import { describe, expect, it } from 'vitest';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { decodeStep } from '../../src/core/time/decode.js';
import { EAGER_DECODE_OP_SECONDS } from '../../src/core/time/decode-host.js';
import { eagerPrefillHostSeconds } from '../../src/core/time/graph-step.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { OPS_PER_LAYER_COMPILED } from '../../src/core/time/train-work.js';
import { SGLANG_EAGER_CALL_SECONDS, SGLANG_MEMORY } from '../../src/core/engines/sglang/memory.js';
import { VLLM_EAGER_LAYER_PYTHON_SECONDS } from '../../src/core/engines/vllm/eager-ops.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

// Llama-3-8B: 32 plain layers (no q/k norms, no experts), one GPU: no all-reduce. Each eager layer launches the
// graph layer's kernels and the copy of its strided q its attention backend makes (stridedQCopyKernels).
const m = modelFacts(resolveModel('llama-3-8b'));
const layerCalls = OPS_PER_LAYER_COMPILED + (SGLANG_MEMORY.stridedQCopyKernels ?? 0);
const optionsAt = (batch: number) => {
  const f = { method: 'inference', framework: 'sglang', batch, seq: 256, 'prompt-tokens': 128 };
  return withEngineDefaults(optionsFromFlags(f), f);
};
const eagerStep = (batch: number) => {
  const t = { ...defaultTimeOptions(1), graphMaxBatch: 0 };
  return decodeStep(m, optionsAt(batch), t, gpuRates(findGpu('h100-sxm'), t), false).stepSeconds;
};
const layerHost = layerCalls * EAGER_DECODE_OP_SECONDS + VLLM_EAGER_LAYER_PYTHON_SECONDS;

describe("SGLang's eager decode step on the host", () => {
  it("is its step work plus each layer's launches and the Python around them (one sequence, H100)", () => {
    const own =
      (SGLANG_MEMORY.asyncStepHostSeconds ?? 0) + (SGLANG_MEMORY.asyncSeqHostSeconds ?? 0);
    // The GPU reads Llama-3-8B's 16 GB in about 6 ms: the host's 11.5 ms is the step.
    expect(eagerStep(1)).toBeCloseTo(own + m.layers * layerHost, 6);
  });

  it('grows with each running request by the scheduler work the same thread does', () => {
    const perSeq = SGLANG_MEMORY.asyncSeqHostSeconds ?? 0;
    expect(eagerStep(48) - eagerStep(1)).toBeCloseTo(47 * perSeq, 6);
  });
});

describe("SGLang's eager extend forward", () => {
  it("is its calls at SGLang's own price a call, the layers' Python inside it", () => {
    const o = optionsAt(1);
    expect(eagerPrefillHostSeconds(m, o, 9, 128)).toBeCloseTo(
      m.layers * layerCalls * SGLANG_EAGER_CALL_SECONDS,
      9,
    );
  });
});

// SGLang 0.2/0.3.0's DeepSeek-V2 layer run eagerly (MLA on the Triton backend captures no graph in that line): its
// absorbed MLA attention and routed MoE block issue more ops than the default layer (SGLANG_MEMORY.eagerMlaMoeLayerOps,
// counted in the 0.2.13 and 0.3.0 wheels), for a run whose engine_version names a release before the bound.
describe("SGLang's eager DeepSeek-V2 layer before 0.3.1", () => {
  const dsv2 = modelFacts(resolveModel('deepseek-ai/DeepSeek-V2-Lite'));
  const p = SGLANG_MEMORY.eagerMlaMoeLayerOps!;
  const stepAt = (model: typeof dsv2, batch: number, engineVersion?: string) => {
    const t = {
      ...defaultTimeOptions(1),
      graphMaxBatch: 0,
      ...(engineVersion === undefined ? {} : { engineVersion }),
    };
    return decodeStep(model, optionsAt(batch), t, gpuRates(findGpu('h100-sxm'), t), false)
      .stepSeconds;
  };

  it('adds its MLA and MoE layers ops at the eager op price where the host bounds the step', () => {
    const extra =
      (dsv2.mlaLayers * p.mlaAttention + dsv2.moeLayers * p.moe) * EAGER_DECODE_OP_SECONDS;
    expect(dsv2.mlaLayers).toBe(27);
    expect(dsv2.moeLayers).toBe(26);
    expect(stepAt(dsv2, 1, '0.3.0') - stepAt(dsv2, 1, '0.3.1')).toBeCloseTo(extra, 6);
    expect(stepAt(dsv2, 1, '0.2+main-2024-08-13')).toBeCloseTo(stepAt(dsv2, 1, '0.3.0'), 9);
  });

  it('adds nothing for a later or unnamed release, or for a model without MLA or experts', () => {
    expect(stepAt(dsv2, 1, '0.3.1')).toBeCloseTo(stepAt(dsv2, 1), 9);
    expect(stepAt(m, 1, '0.2.13')).toBeCloseTo(stepAt(m, 1), 9);
  });

  it('never makes a step shorter, at any batch', () => {
    for (const batch of [1, 8, 64, 256, 1024])
      expect(stepAt(dsv2, batch, '0.2.13')).toBeGreaterThanOrEqual(stepAt(dsv2, batch, '0.3.1'));
  });
});
