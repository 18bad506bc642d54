// Speculative decoding on a DP-attention engine (--speculative with --dp-attention): the engines run it (SGLang's
// EAGLE / NEXTN worker with --enable-dp-attention, vLLM's proposer over DP + EP), each rank drafting and
// verifying its own sequences while the verify's MoE layers run every rank's positions; SGLang refuses n-gram.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { buildEstimate } from '../../src/core/estimate.js';
import { engineRefusal, withEngineDefaults } from '../../src/core/engines/defaults.js';
import { modelFacts } from '../../src/core/time/model-facts.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { speculativeStep } from '../../src/core/time/speculative.js';
import { dpAttentionStep } from '../../src/core/time/expert-parallel.js';
import { defaultTimeOptions } from '../../src/schema/time.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { readBack } from './serve-line.js';
import { serveShOf } from '../helpers/launch.js';

const gpu = findGpu('h200-sxm');
const dsv3 = resolveModel('deepseek-v3');
const DPA = { weights: 'fp8', gpus: 8, tp: 1, 'dp-attention': true, ep: 8 };

function estimate(flags: Record<string, unknown>) {
  const all = { method: 'inference', framework: 'sglang', seq: 4096, batch: 32, ...DPA, ...flags };
  const o = withEngineDefaults(optionsFromFlags(all), all);
  return { o, all, e: buildEstimate(dsv3, o, gpu) };
}

describe('speculative decoding with DP attention', () => {
  it('is accepted; SGLang refuses n-gram there, vLLM runs it', () => {
    const mtp = estimate({ speculative: 'mtp' });
    expect(mtp.o).toMatchObject({ dpAttention: true, speculative: 'mtp', specTokens: 1 });
    expect(engineRefusal(dsv3, mtp.o, mtp.all)).toBeNull();
    const ngram = { speculative: 'ngram', 'spec-acceptance': 0.4 };
    const sg = { method: 'inference', framework: 'sglang', ...DPA, ...ngram };
    expect(engineRefusal(dsv3, withEngineDefaults(optionsFromFlags(sg), sg), sg)).toMatch(
      /sglang-ngram-no-dp-attention/,
    );
    const vl = { ...sg, framework: 'vllm' };
    expect(engineRefusal(dsv3, withEngineDefaults(optionsFromFlags(vl), vl), vl)).toBeNull();
  });

  it("times one rank's draft and verify beside the same rank's plain step", () => {
    const plain = estimate({}).e.time!;
    const { e } = estimate({ speculative: 'mtp', 'spec-tokens': 3 });
    const s = e.time!.speculative!;
    // The plain figure is the DP-attention rank's, not a TP engine's.
    expect(s.plainDecodeTokensPerSecond).toBeCloseTo(plain.decodeTokensPerSecond!, 0);
    // The verify runs 4 positions per sequence through the experts of all 8 ranks: dearer than a plain step.
    expect(s.verifySeconds).toBeGreaterThan(plain.stepSeconds);
    expect(s.speedup).toBeGreaterThan(1.5);
    // The engine's tokens/s is every rank's speculative tokens/s.
    const ep = e.time!.expertParallel!;
    expect(ep.engineDecodeTokensPerSecond / e.time!.decodeTokensPerSecond!).toBeCloseTo(8, 2);
    expect(e.time!.tpotSeconds!).toBeLessThan(plain.tpotSeconds!);
  });

  it('property: at acceptance 0 it is never faster than the rank without it', () => {
    const m = modelFacts(dsv3);
    const t = defaultTimeOptions(1);
    const r = gpuRates(gpu, t);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 128 }), (k, batch) => {
        const o = estimate({
          speculative: 'mtp',
          'spec-tokens': k,
          'spec-acceptance': 0,
          batch,
        }).o;
        const s = speculativeStep(m, o, t, r);
        expect(s.plainStepSeconds).toBeCloseTo(dpAttentionStep(m, { ...o, batch }, t, r), 12);
        expect(s.tokensPerSecond).toBeLessThanOrEqual(s.plainTokensPerSecond * (1 + 1e-12));
      }),
      { numRuns: 12 },
    );
  });

  it("the MTP draft's experts are spread over the ranks as the target's", () => {
    const plain = estimate({}).e.perGpu.breakdown.weights;
    const mtp = estimate({ speculative: 'mtp' }).e.perGpu.breakdown.weights;
    // The MTP layer (13.46B in fp8) whole on each GPU would add 13.5 GB; its 256 experts over 8 GPUs leave ~3.6.
    const extra = (mtp - plain) / 1e9;
    expect(extra).toBeGreaterThan(13.46 / 8);
    expect(extra).toBeLessThan(5);
  });

  it('SGLang serve.sh carries both --enable-dp-attention and the EAGLE worker, read back', () => {
    const { o, e } = estimate({ speculative: 'mtp' });
    const sh = serveShOf(dsv3, o, gpu, e);
    expect(sh).toContain('--enable-dp-attention');
    expect(sh).toMatch(/--speculative-algorithm (EAGLE|NEXTN)/);
    expect(readBack(sh).flags).toMatchObject({ 'dp-attention': true, speculative: 'mtp' });
  });
});
