// A vLLM decode step's sampler on the GPU (time/sampler-step.ts): the fp32 upcast and argmax of every running
// sequence's logits over the whole vocabulary (engines/vllm/memory.ts VLLM_SAMPLER_STEP_BYTES_PER_LOGIT, counted in the
// vllm 0.10.1 wheel's vllm/v1/sample/sampler.py), in series with the forward. gpt-oss's 201,088-token vocabulary is
// where it is largest: 515 MB a step at 256 requests.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { decodeStepFigures } from '../../src/core/time/decode.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { samplerStepSeconds } from '../../src/core/time/sampler-step.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { defaultOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const GPT_OSS_VOCAB = 201_088; // openai/gpt-oss-20b config.json vocab_size
const m = modelFacts(resolveModel('gpt-oss-20b'));
const t = defaultTimeOptions(1);
const r = gpuRates(findGpu('h100-nvl'), t, true);
const vllmOptions = (batch: number, tp = 1) => ({
  ...defaultOptions('inference'),
  framework: 'vllm' as const,
  weights: 'mxfp4' as const,
  batch,
  tp,
  seq: 346,
});

describe("vLLM's sampler on the GPU", () => {
  it('moves 2 + 4 + 4 B a logit: the fp32 upcast of the 16-bit logits and the argmax', () => {
    expect(FRAMEWORKS.vllm.samplerStepBytesPerLogit).toBe(10);
    expect(m.vocab).toBe(GPT_OSS_VOCAB);
    expect(samplerStepSeconds(m, FRAMEWORKS.vllm, 256, r)).toBeCloseTo(
      (256 * GPT_OSS_VOCAB * 10) / r.mem,
      15,
    );
  });

  it('engines whose profile counts no sampler pass add nothing', () => {
    expect(samplerStepSeconds(m, FRAMEWORKS['llama.cpp'], 256, r)).toBe(0);
  });

  it("is in the step: gpt-oss-20b at 256 running on an H100 NVL, the step less the sampler's passes", () => {
    const o = vllmOptions(256);
    const saved = FRAMEWORKS.vllm.samplerStepBytesPerLogit;
    const withIt = decodeStepFigures(m, o, t, r, o.seq).step;
    let without: number;
    try {
      (FRAMEWORKS.vllm as { samplerStepBytesPerLogit?: number }).samplerStepBytesPerLogit = 0;
      without = decodeStepFigures(m, o, t, r, o.seq).step;
    } finally {
      (FRAMEWORKS.vllm as { samplerStepBytesPerLogit?: number }).samplerStepBytesPerLogit = saved;
    }
    expect(withIt - without).toBeCloseTo(samplerStepSeconds(m, FRAMEWORKS.vllm, 256, r), 12);
    expect(withIt - without).toBeGreaterThan(1e-4);
  });

  it('grows linearly with the running requests, does not shrink with TP, and more requests never shorten the step', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1023 }),
        fc.integer({ min: 1, max: 64 }),
        fc.constantFrom(1, 2, 4),
        (batch, more, tp) => {
          const one = samplerStepSeconds(m, FRAMEWORKS.vllm, 1, r);
          expect(samplerStepSeconds(m, FRAMEWORKS.vllm, batch, r)).toBeCloseTo(batch * one, 12);
          const tt = defaultTimeOptions(tp);
          const rt = gpuRates(findGpu('h100-nvl'), tt, true);
          const a = decodeStepFigures(m, vllmOptions(batch, tp), tt, rt, 346).step;
          const b = decodeStepFigures(m, vllmOptions(batch + more, tp), tt, rt, 346).step;
          expect(b).toBeGreaterThanOrEqual(a * (1 - 1e-12));
        },
      ),
      { numRuns: 60 },
    );
  });
});
