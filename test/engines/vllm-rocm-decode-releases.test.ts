/**
 * vLLM's ROCm decode kernel by release (FrameworkProfile.rocmPagedDecode.releases): V0 builds before v0.6.2 decode with
 * the generic paged-attention kernel, one workgroup a query head, which reads the KV once for every query head a KV
 * head serves (each read at the split kernel's rate, its bound); from v0.6.2 the split HIP kernel takes sequences up to 32,768 tokens, and from v0.9.2 up to 131,072.
 * The V1 backends fall back to their Triton kernel instead; SGLang's profile, which has no releases, does not move.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { releaseNamedBefore } from '../../src/core/compare-releases.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { gpuRates, modelFacts } from '../../src/core/time/index.js';
import { kvReadRate, type DecodeRelease } from '../../src/core/time/decode-attention.js';
import { MEM_EFF_AMD } from '../../src/core/time/hardware.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags, type RawFlags } from '../../src/schema/flags.js';
import { timeOptionsFromFlags } from '../../src/schema/time.js';

// Llama-3.1-8B: 32 query and 8 KV heads of 128, so V0's generic kernel reads each KV head's bytes 4 times.
const MODEL = 'llama-3.1-8b';
const GQA = 4;
const releases = FRAMEWORKS.vllm.rocmPagedDecode!.releases!;
const shares = FRAMEWORKS.vllm.rocmPagedDecode!.peakShares!;

function mi300x() {
  const f: RawFlags = { model: MODEL, gpu: 'mi300x', method: 'inference', framework: 'vllm' };
  return gpuRates(findGpu('mi300x'), timeOptionsFromFlags(f, optionsFromFlags(f)));
}

const m = modelFacts(resolveModel(MODEL));
const r = mi300x();
const rate = (ctx: number, release: DecodeRelease, fw = FRAMEWORKS.vllm) =>
  kvReadRate(m, fw, r, { ctx, release });
const split = r.mem * (shares.split / MEM_EFF_AMD);
const triton = r.mem * (shares.triton / MEM_EFF_AMD);

describe("vLLM's ROCm decode kernel by release", () => {
  it("V0 of v0.6.1 reads the KV once a query head at the split kernel's rate; v0.6.2 runs the split kernel", () => {
    expect(rate(2048, { version: '0.6.1', v0: true })).toBeCloseTo(split / GQA, 6);
    expect(rate(2048, { version: '0.6.2', v0: true })).toBeCloseTo(split, 6);
    expect(rate(2048, { version: '0.6.3.dev116', v0: true })).toBeCloseTo(split, 6);
  });

  it("past 32,768 tokens V0 leaves the split kernel until v0.9.2, which takes 131,072; past that, V0's generic kernel", () => {
    expect(rate(32768, { version: '0.6.3', v0: true })).toBeCloseTo(split, 6);
    expect(rate(32769, { version: '0.6.3', v0: true })).toBeCloseTo(split / GQA, 6);
    expect(rate(65536, { version: '0.9.1', v0: true })).toBeCloseTo(split / GQA, 6);
    expect(rate(65536, { version: '0.9.2', v0: true })).toBeCloseTo(split, 6);
    expect(rate(131073, { version: '0.10.1', v0: true })).toBeCloseTo(split / GQA, 6);
  });

  it('V1 builds fall back to the Triton kernel, not the generic one', () => {
    expect(rate(65536, { version: '0.9.1' })).toBeCloseTo(triton, 6);
    expect(rate(65536, { version: '0.9.2' })).toBeCloseTo(split, 6);
  });

  it("a release that does not name its patch is not taken as before v0.6.2; no release takes the latest's limits", () => {
    expect(rate(2048, { version: '0.6', v0: true })).toBeCloseTo(split, 6);
    expect(rate(65536, { v0: true })).toBeCloseTo(split, 6);
    expect(rate(131073, {})).toBeCloseTo(triton, 6);
  });

  it("SGLang's profile has no releases: its rate does not follow vLLM's", () => {
    const sg = FRAMEWORKS.sglang;
    expect(sg.rocmPagedDecode?.releases).toBeUndefined();
    expect(rate(2048, { version: '0.4.0', v0: true }, sg)).toBe(rate(2048, {}, sg));
  });

  it('the limits are ordered: each later release takes at least as long a sequence', () => {
    const tokens = releases.maxSeqLen.map((e) => e.tokens);
    expect([...tokens].sort((a, b) => a - b)).toEqual(tokens);
    expect(releases.maxSeqLen[releases.maxSeqLen.length - 1]!.until).toBeUndefined();
  });

  it('property: on the V0 loop a longer context never reads faster, on any release', () => {
    const version = fc.constantFrom(
      undefined,
      '0.5.4',
      '0.6',
      '0.6.1',
      '0.6.2',
      '0.8.5',
      '0.9.1',
      '0.9.2',
      '0.14.1',
    );
    fc.assert(
      fc.property(
        version,
        fc.integer({ min: 1, max: 300_000 }),
        fc.integer({ min: 0, max: 300_000 }),
        (v, ctx, more) => {
          const release = { version: v, v0: true };
          expect(rate(ctx + more, release)).toBeLessThanOrEqual(rate(ctx, release) * (1 + 1e-12));
        },
      ),
    );
  });
});

describe('releaseNamedBefore', () => {
  it('decides on the parts a release names', () => {
    expect(releaseNamedBefore('0.6.1', '0.6.2')).toBe(true);
    expect(releaseNamedBefore('0.6.2', '0.6.2')).toBe(false);
    expect(releaseNamedBefore('0.6.3.dev116', '0.6.2')).toBe(false);
    expect(releaseNamedBefore('0.5', '0.6.2')).toBe(true);
    expect(releaseNamedBefore('0.6', '0.6.2')).toBe(false);
    expect(releaseNamedBefore('v0.9.1', '0.9.2')).toBe(true);
    expect(releaseNamedBefore('0.8.5+main-2025-05-01', '0.9.2')).toBe(true);
    expect(releaseNamedBefore('main', '0.6.2')).toBe(false);
  });

  it('property: a release named in full is before a bound exactly when it orders below it', () => {
    const part = fc.integer({ min: 0, max: 20 });
    fc.assert(
      fc.property(fc.tuple(part, part, part), fc.tuple(part, part, part), (a, b) => {
        const before = a[0] !== b[0] ? a[0] < b[0] : a[1] !== b[1] ? a[1] < b[1] : a[2] < b[2];
        expect(releaseNamedBefore(a.join('.'), b.join('.'))).toBe(before);
      }),
    );
  });
});
