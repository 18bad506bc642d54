// Speculative decoding (--speculative eagle3|mtp|ngram): the flags and their defaults, the draft's memory,
// the step time against the plain step and its break-even, the search, and serve.sh read back by --from.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { buildEstimate } from '../../src/core/estimate.js';
import { buildLaunch } from '../../src/core/launch/index.js';
import { engineRefusal, withEngineDefaults } from '../../src/core/engines/defaults.js';
import { engineRejects } from '../../src/core/engines/engines.js';
import { DECODE_PHASES, modelFacts } from '../../src/core/time/model-facts.js';
import { decodeStep, decodeStepFigures } from '../../src/core/time/decode.js';
import { servingTime } from '../../src/core/time/serving-request.js';
import { meanContextOf } from '../../src/schema/estimate.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { speculativeStep, tokensPerStep } from '../../src/core/time/speculative.js';
import { defaultTimeOptions } from '../../src/schema/time.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { readBack } from './serve-line.js';

const h100 = findGpu('h100-sxm');
const llama = resolveModel('llama-3.1-8b');
const dsv3 = resolveModel('deepseek-v3');

function estimate(model: typeof llama, flags: Record<string, unknown>, gpu = h100) {
  const all = { method: 'inference', framework: 'vllm', seq: 4096, ...flags };
  const o = withEngineDefaults(optionsFromFlags(all), all);
  return { o, e: buildEstimate(model, o, gpu) };
}

describe('speculative decoding: flags', () => {
  it("fills each method's sourced defaults; n-gram needs the acceptance", () => {
    expect(estimate(llama, { speculative: 'eagle3' }).o).toMatchObject({
      specTokens: 2,
      specAcceptance: 0.65,
    });
    expect(estimate(dsv3, { speculative: 'mtp', weights: 'fp8', gpus: 8, tp: 8 }).o).toMatchObject({
      specTokens: 1,
      specAcceptance: 0.85,
    });
    expect(() => optionsFromFlags({ method: 'inference', speculative: 'ngram' })).toThrow(
      /--spec-acceptance: got undefined; expected a number from 0 to 1 with --speculative ngram/,
    );
    expect(() =>
      optionsFromFlags({ method: 'inference', speculative: 'eagle3', 'spec-acceptance': 1.5 }),
    ).toThrow(/a number from 0 to 1/);
    expect(() => optionsFromFlags({ method: 'inference', 'spec-tokens': 3 })).toThrow(
      /only with --speculative/,
    );
    expect(() => optionsFromFlags({ method: 'lora', speculative: 'eagle3' })).toThrow(
      /only with --method inference/,
    );
  });
  it('engines without it refuse, and MTP needs the checkpoint to ship MTP layers', () => {
    const o = optionsFromFlags({ method: 'inference', speculative: 'eagle3' });
    expect(engineRejects('hf-generate', o, 1, 1)).toMatch(/no eagle3 speculative decoding/);
    const flags = { method: 'inference', framework: 'vllm', speculative: 'mtp' };
    const mtp = withEngineDefaults(optionsFromFlags(flags), flags);
    expect(engineRefusal(llama, mtp, flags)).toMatch(/vllm-mtp-needs-mtp-layers/);
    expect(engineRefusal(dsv3, mtp, flags)).toBeNull();
    // SGLang's refusal cites the wheel's source: the target is its own NEXTN draft only where it ships MTP layers.
    const sgFlags = { method: 'inference', framework: 'sglang', speculative: 'mtp' };
    const sgMtp = withEngineDefaults(optionsFromFlags(sgFlags), sgFlags);
    expect(engineRefusal(llama, sgMtp, sgFlags)).toMatch(
      /sglang-mtp-needs-mtp-layers.*speculative_hook\.py:1121-1146/,
    );
    expect(engineRefusal(dsv3, sgMtp, sgFlags)).toBeNull();
  });
});

describe('speculative decoding: memory', () => {
  it("adds the draft's weights and its layers' KV, never for n-gram", () => {
    const plain = estimate(llama, { batch: 4 }).e;
    const eagle = estimate(llama, { batch: 4, speculative: 'eagle3' }).e;
    const ngram = estimate(llama, {
      batch: 4,
      speculative: 'ngram',
      'spec-acceptance': 0.3,
    }).e;
    // One Llama-3.1-8B layer (218M) + fc 3h x h (50M) + a 32000-entry head (131M), in bf16: about 0.8 GB.
    const extra = eagle.perGpu.breakdown.weights - plain.perGpu.breakdown.weights;
    expect(extra / 1e9).toBeGreaterThan(0.75);
    expect(extra / 1e9).toBeLessThan(0.85);
    expect(eagle.cache!.kvBytesPerToken).toBe(plain.cache!.kvBytesPerToken); // the target's own layout
    expect(eagle.serving!.kvTokens).toBeLessThan(plain.serving!.kvTokens);
    expect(ngram.perGpu.breakdown.weights).toBe(plain.perGpu.breakdown.weights);
  });
});

describe('speculative decoding: time', () => {
  const m = modelFacts(llama);
  const r = gpuRates(h100, defaultTimeOptions(1));
  const t = defaultTimeOptions(1);
  it('tokens per step follow Leviathan et al. eq. 1', () => {
    expect(tokensPerStep(0, 3)).toBe(1);
    expect(tokensPerStep(1, 3)).toBe(4);
    expect(tokensPerStep(0.5, 2)).toBeCloseTo(1.75, 12); // 1 + 0.5 + 0.25
  });
  it('property: at acceptance 0 speculation is never faster than the same plan without it', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('eagle3', 'ngram') as fc.Arbitrary<'eagle3' | 'ngram'>,
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 256 }),
        (method, k, batch) => {
          const o = optionsFromFlags({
            method: 'inference',
            framework: 'vllm',
            speculative: method,
            'spec-tokens': k,
            'spec-acceptance': 0,
            batch,
          });
          const s = speculativeStep(m, o, t, r);
          expect(s.tokensPerSecond).toBeLessThanOrEqual(s.plainTokensPerSecond * (1 + 1e-12));
        },
      ),
      { numRuns: 30 },
    );
  });
  it('property: below the reported break-even acceptance speculation never pays', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 64 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (batch, f) => {
          const { e, o } = estimate(llama, { speculative: 'eagle3', batch, seq: 2048 });
          const be = e.time!.speculative!.breakEvenAcceptance;
          if (be === null || be === 0) return;
          const below = { ...o, specAcceptance: be * f * 0.999 };
          const s = speculativeStep(m, below, t, r);
          expect(s.tokensPerSecond).toBeLessThanOrEqual(s.plainTokensPerSecond * (1 + 1e-9));
        },
      ),
      { numRuns: 12 },
    );
  });
  it('property: the plain step and decodeStepFigures are the full decode step figures', () => {
    // speculativeStep takes its plain step from the verify pass's narrow step and speculativeServingTime hands it
    // to servingTime; the verify pass reads decodeStepFigures instead of decodeStep's phases.
    fc.assert(
      fc.property(
        fc.constantFrom('eagle3', 'ngram') as fc.Arbitrary<'eagle3' | 'ngram'>,
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 256 }),
        fc.integer({ min: 16, max: 8192 }),
        (method, k, batch, ctx) => {
          const o = optionsFromFlags({
            method: 'inference',
            framework: 'vllm',
            speculative: method,
            'spec-tokens': k,
            'spec-acceptance': 0.6,
            batch,
          });
          const plain = {
            ...o,
            speculative: undefined,
            specTokens: undefined,
            specAcceptance: undefined,
          };
          const full = decodeStep(m, plain, t, r, true, ctx);
          const f = decodeStepFigures(m, plain, t, r, ctx);
          expect(speculativeStep(m, o, t, r, batch, ctx).plainStepSeconds).toBe(full.stepSeconds);
          expect(f.step).toBe(full.stepSeconds);
          expect([f.sc.linear, f.sc.attention, f.tpT, f.sc.flops]).toEqual([
            full.phases[DECODE_PHASES.indexOf('decode-weights')],
            full.phases[DECODE_PHASES.indexOf('decode-kv')],
            full.phases[DECODE_PHASES.indexOf('tensor-parallel')],
            full.flopsPerGpu,
          ]);
          const sv = servingTime(m, plain, t, r);
          const step = decodeStep(m, plain, t, r, false, meanContextOf(plain)).stepSeconds;
          expect(servingTime(m, plain, t, r, plain, step)).toEqual(sv);
        },
      ),
      { numRuns: 30 },
    );
  });
  it('reports the speedup and where it stops paying', () => {
    const s = estimate(llama, { speculative: 'eagle3', batch: 1 }).e.time!.speculative!;
    expect(s.tokensPerStep).toBeCloseTo(1 + 0.65 + 0.65 ** 2, 2);
    expect(s.speedup).toBeGreaterThan(1.5);
    expect(s.breakEvenAcceptance).toBeGreaterThan(0);
    expect(s.breakEvenAcceptance).toBeLessThan(0.65);
  });
});

function serveSh(framework: string, model: typeof llama, flags: Record<string, unknown>): string {
  const { o, e } = estimate(model, { framework, batch: 2, ...flags });
  const out = buildLaunch({
    arch: model,
    options: o,
    gpu: h100,
    gradAccum: 1,
    powerLimitW: null,
    estimate: e,
    modelRef: model.hfId ?? model.id,
  });
  return out.outputs.flatMap((x) => (x.ok ? x.files : [])).find((f) => f.path === 'serve.sh')!
    .content;
}

describe('speculative decoding: launch and --from', () => {
  it('vLLM --speculative-config with the published head, read back with the planned acceptance', () => {
    const sh = serveSh('vllm', llama, { speculative: 'eagle3', 'spec-acceptance': 0.7 });
    expect(sh).toContain('DRAFT=${DRAFT:-yuhuili/EAGLE3-LLaMA3.1-Instruct-8B}');
    expect(sh).toContain(`--speculative-config '{"method": "eagle3", "model": "'"$DRAFT"'"`);
    expect(readBack(sh).flags).toMatchObject({
      speculative: 'eagle3',
      'spec-tokens': 2,
      'spec-acceptance': 0.7,
    });
  });
  it('SGLang --speculative-algorithm with a chain of draft tokens, read back', () => {
    const sh = serveSh('sglang', llama, { speculative: 'ngram', 'spec-acceptance': 0.4 });
    expect(sh).toContain('--speculative-algorithm NGRAM');
    expect(sh).toContain('--speculative-num-draft-tokens 4');
    expect(readBack(sh).flags).toMatchObject({
      speculative: 'ngram',
      'spec-tokens': 3,
      'spec-acceptance': 0.4,
    });
  });
  it('a hand-written vLLM MTP line reads as mtp with the default acceptance, warned', () => {
    const back = readBack(
      `vllm serve deepseek-ai/DeepSeek-V3 -tp 8 --speculative-config '{"method": "deepseek_mtp", "num_speculative_tokens": 1}'\n`,
    );
    expect(back.flags).toMatchObject({ speculative: 'mtp', 'spec-tokens': 1 });
    expect(back.warnings.join(' ')).toMatch(/default 0.85/);
  });
});
