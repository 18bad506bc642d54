// Unsloth's long-context path by mechanism: the published longest sequences (calibration/max-context.json,
// unsloth README "Context length benchmarks") reproduced within 20%, and the search behind them.
import { describe, expect, it } from 'vitest';
import { buildContextOf, maxContextRows } from '../../src/commands/validate-run.js';
import { longestFittingSeq, estimateMemory } from '../../src/core/memory/index.js';
import { GiB } from '../../src/core/units.js';
import { caseArch, loadMaxContextCases } from '../../src/io/load-calibration.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { renderValidateText } from '../../src/ui/validate-text.js';

const rows = maxContextRows();

describe('published max context (unsloth and HF + FA2)', () => {
  it('ships the 24 GB and 80 GB rows of both engines, each with its source and quote', () => {
    const cases = loadMaxContextCases();
    for (const gib of [24, 80])
      for (const engine of ['unsloth', 'hf'])
        expect(cases.some((c) => c.gpu_memory_gib === gib && c.engine === engine)).toBe(true);
    for (const c of cases) {
      expect(c.source).toMatch(/^https:\/\//);
      expect(c.quote.length).toBeGreaterThan(10);
    }
  });

  for (const r of rows.filter((x) => x.reportedApart === undefined))
    it(`${r.id}: within 20% of ${r.publishedMaxTokens} tokens`, () => {
      expect(Math.abs(r.error)).toBeLessThanOrEqual(0.2);
    });

  it('estimates a row with its build context, as validate does a memory case (buildContextOf)', () => {
    const built = loadMaxContextCases().filter((c) => buildContextOf(c) !== undefined);
    expect(built.length).toBeGreaterThan(0);
    for (const c of built) {
      const arch = caseArch(c);
      const o = optionsFromFlags(c.flags);
      const gpu = c.gpu_memory_gib * GiB;
      const row = rows.find((r) => r.id === c.id)!;
      expect(row.estimatedMaxTokens).toBe(longestFittingSeq(arch, o, gpu, buildContextOf(c)));
      // The older stack's fp32 stream and shifted fp32 logits hold more a token: a shorter sequence fits.
      expect(row.estimatedMaxTokens).toBeLessThan(longestFittingSeq(arch, o, gpu));
    }
  });

  it('every row reported apart says why', () => {
    for (const r of rows.filter((x) => x.reportedApart !== undefined))
      expect(r.reportedApart!.length).toBeGreaterThan(40);
  });

  it('validate prints the section', () => {
    const text = renderValidateText([], [], rows);
    expect(text).toContain('max context');
    for (const r of rows) expect(text).toContain(r.publishedMaxTokens.toLocaleString('en-US'));
  });
});

describe('longestFittingSeq', () => {
  const c = loadMaxContextCases().find((x) => x.id === 'unsloth-ctx-8b-24gb')!;
  const arch = caseArch(c);
  const o = optionsFromFlags(c.flags);

  it('returns the largest fitting length: it fits, one more token does not', () => {
    const gpu = 24 * GiB;
    const n = longestFittingSeq(arch, o, gpu);
    expect(estimateMemory(arch, { ...o, seq: n }).perGpu.deviceBytes).toBeLessThanOrEqual(gpu);
    expect(estimateMemory(arch, { ...o, seq: n + 1 }).perGpu.deviceBytes).toBeGreaterThan(gpu);
  });

  it('is monotone: more memory never shortens it', () => {
    for (const opts of [o, { ...o, framework: 'hf' as const, checkpointing: 'full' as const }]) {
      let last = 0;
      for (const gib of [6, 8, 12, 16, 24, 40, 48, 80, 141]) {
        const n = longestFittingSeq(arch, opts, gib * GiB);
        expect(n).toBeGreaterThanOrEqual(last);
        last = n;
      }
    }
  });

  it('is 0 when the weights alone do not fit', () => {
    expect(longestFittingSeq(arch, o, 1 * GiB)).toBe(0);
  });

  it('unsloth reaches more than ten times the HF + FA2 context on the same card (the published ratio)', () => {
    const ours = longestFittingSeq(arch, o, 80 * GiB);
    const hf = longestFittingSeq(arch, { ...o, framework: 'hf', checkpointing: 'full' }, 80 * GiB);
    expect(ours / hf).toBeGreaterThan(10);
  });
});

describe('unsloth defaults apply to every estimate of the engine', () => {
  it('the fused loss is the profile’s: no full-vocabulary logits whatever --chunked-loss says', () => {
    const c = loadMaxContextCases().find((x) => x.id === 'unsloth-ctx-8b-80gb')!;
    const arch = caseArch(c);
    const o = { ...optionsFromFlags(c.flags), seq: 65536 };
    const a = estimateMemory(arch, o);
    const b = estimateMemory(arch, { ...o, chunkedLoss: true });
    expect(a.perGpu.deviceBytes).toBe(b.perGpu.deviceBytes);
    // One chunk of fp32 logits is capped at 4 GiB (unsloth_zoo get_chunk_size): far below 65536 x 128256 x 4.
    expect(a.overhead.transient).toBeLessThanOrEqual(4 * GiB);
  });
});
