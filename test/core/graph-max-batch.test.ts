// SGLang captures decode CUDA graphs up to cuda_graph_max_bs, its default by GPU memory and TP (engines/sglang/memory.ts
// sglangDefaults: 24 on a 24 GB card at TP 1, 256 on an 80 GB one); a larger step runs eagerly, its kernels launched
// from the host, and takes at least those launches (FrameworkProfile.graphMaxBatch, time/decode.ts).
import { describe, expect, it } from 'vitest';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { decodeStep } from '../../src/core/time/decode.js';
import { EAGER_DECODE_OP_SECONDS } from '../../src/core/time/decode-host.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { OPS_PER_LAYER_COMPILED } from '../../src/core/time/train-work.js';
import { SGLANG_MEMORY } from '../../src/core/engines/sglang/memory.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const m = modelFacts(resolveModel('qwen3-0.6b'));
// Each layer's kernels, Qwen3's q/k copies and norms launched eagerly (no all-reduce at TP 1).
const launches = m.layers * (OPS_PER_LAYER_COMPILED + (SGLANG_MEMORY.qkNormKernels?.eager ?? 0));
const step = (gpu: string, batch: number) => {
  const f = { method: 'inference', framework: 'sglang', batch, seq: 2048, 'prompt-tokens': 1024 };
  const o = withEngineDefaults(optionsFromFlags(f), f);
  const t = defaultTimeOptions(1);
  return decodeStep(m, o, t, gpuRates(findGpu(gpu), t), false).stepSeconds;
};

describe("SGLang's largest captured decode batch", () => {
  it('is its default by memory and TP', () => {
    const cap = SGLANG_MEMORY.graphMaxBatch!;
    expect(cap(24 * 2 ** 30, 1, 1)).toBe(24);
    expect(cap(80 * 2 ** 30, 1, 1)).toBe(256);
    expect(cap(80 * 2 ** 30, 8, 1)).toBe(512);
  });

  it('a step above it on a 24 GB card takes its eager launches; the same step on an H100 stays in its graph', () => {
    expect(step('rtx-4090', 25)).toBeGreaterThanOrEqual(launches * EAGER_DECODE_OP_SECONDS);
    expect(step('rtx-4090', 24)).toBeLessThan(launches * EAGER_DECODE_OP_SECONDS);
    expect(step('h100-sxm', 25)).toBeLessThan(launches * EAGER_DECODE_OP_SECONDS);
  });
});

// sglang 0.2.9-0.2.13 captured decode graphs for batches up to 128 and replayed one only below the largest
// (cuda_graph_runner.py can_run: batch_size < max_bs), so a measured build's limit can sit under the profile's
// default (TimeOptions.graphMaxBatch); its step above it takes the eager launches under the serial scheduler too.
describe("A measured build's largest graph-replayed decode batch", () => {
  const m8 = modelFacts(resolveModel('meta-llama/Meta-Llama-3-8B'));
  const eager = m8.layers * (OPS_PER_LAYER_COMPILED + (SGLANG_MEMORY.stridedQCopyKernels ?? 0));
  const serialStep = (batch: number, graphMaxBatch?: number) => {
    const f = { method: 'inference', framework: 'sglang', batch, seq: 132, 'prompt-tokens': 128 };
    const o = withEngineDefaults(optionsFromFlags(f), f);
    const t = { ...defaultTimeOptions(1), serialScheduler: true, graphMaxBatch };
    return decodeStep(m8, o, t, gpuRates(findGpu('h100-sxm'), t), false).stepSeconds;
  };

  it('runs a batch above it eagerly, bounded by its launches, where the default would replay a graph', () => {
    expect(serialStep(128, 127)).toBeGreaterThanOrEqual(
      eager * EAGER_DECODE_OP_SECONDS + (SGLANG_MEMORY.serialStepHostSeconds ?? 0),
    );
    expect(serialStep(128)).toBeLessThan(eager * EAGER_DECODE_OP_SECONDS);
    expect(serialStep(127, 127)).toBeLessThan(eager * EAGER_DECODE_OP_SECONDS);
  });
});
