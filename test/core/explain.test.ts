// explain: what overflows, and fixes that really fit when re-estimated.
import { describe, expect, it } from 'vitest';
import { buildEstimate } from '../../src/core/estimate.js';
import { explainFit } from '../../src/core/plan/index.js';
import { engineOf } from '../../src/core/engines/index.js';
import { engineRejects } from '../../src/core/engines/index.js';
import { qualityOf, tierRank } from '../../src/core/plan/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { defaultOptions } from '../../src/schema/estimate.js';
import { renderExplainText } from '../../src/ui/explain-text.js';

const arch = resolveModel('llama-2-13b');
const gpu = findGpu('rtx-4090');
const base = defaultOptions('full');
const e = explainFit(arch, base, gpu);

describe('explain: Llama-2-13B full fine-tuning on an RTX 4090', () => {
  it('does not fit and names the optimizer states as the largest overflow', () => {
    expect(e.fits).toBe(false);
    expect(e.overByBytes).toBeGreaterThan(0);
    expect(e.overflow[0]?.component).toBe('optimizer');
    const sizes = e.overflow.map((c) => c.bytes);
    expect([...sizes].sort((a, b) => b - a)).toEqual(sizes);
    expect(sizes.reduce((a, b) => a + b, 0)).toBeGreaterThan(e.overByBytes);
  });

  it('lists fixes, and every fix fits when re-estimated', () => {
    expect(e.fixes.length).toBeGreaterThan(0);
    for (const f of e.fixes) {
      const r = buildEstimate(arch, f.options, gpu);
      expect(r.fits).toBe(true);
      expect(r.perGpu.deviceBytes).toBe(f.deviceBytes);
      expect(f.freedBytes).toBe(e.deviceBytes - f.deviceBytes);
      // An engine runs every fix, and the fix states that engine and its quality tier.
      expect(engineRejects(engineOf(f.options), f.options, f.options.gpus, 1)).toBeNull();
      expect(f.engine).toBe(engineOf(f.options));
      expect(f.quality).toBe(qualityOf(f.options).tier);
      expect(f.freedBytes).toBeGreaterThan(0);
      expect(f.slowdown).toBeGreaterThan(0);
    }
  });

  it('times a smaller micro-batch by the time model, at the same samples per step', () => {
    // Liger on already: its pairs (faster than the micro-batch alone) would fill the list's top places.
    const big = {
      ...defaultOptions('qlora'),
      batch: 16,
      seq: 2048,
      checkpointing: 'full' as const,
      liger: true,
    };
    const q = explainFit(arch, big, gpu);
    expect(q.fits).toBe(false);
    const smaller = q.fixes.find((f) => f.changes.length === 1 && f.changes[0]!.axis === 'batch');
    expect(smaller).toBeDefined();
    expect(smaller!.options.batch).toBeLessThan(16);
    expect(smaller!.slowdown).toBeGreaterThan(1);
    expect(renderExplainText(q)).toMatch(/micro-batch \d+: .*× slower/);
  });

  it('names QLoRA among the fixes and ranks quality, then fewer GPUs, then less slowdown first', () => {
    expect(e.fixes.some((f) => f.changes.some((c) => c.label.startsWith('QLoRA')))).toBe(true);
    for (let i = 1; i < e.fixes.length; i++) {
      const [a, b] = [e.fixes[i - 1]!, e.fixes[i]!];
      expect(tierRank(a.quality) <= tierRank(b.quality)).toBe(true);
      if (a.quality !== b.quality) continue;
      expect(a.gpus <= b.gpus).toBe(true);
      if (a.gpus === b.gpus) expect(a.slowdown).toBeLessThanOrEqual(b.slowdown + 1e-3);
    }
  });

  it('renders the overflow and the fixes as text', () => {
    const text = renderExplainText(e);
    expect(text).toContain('does not fit on GeForce RTX 4090');
    expect(text).toContain('optimizer states');
    expect(text).toMatch(/1\. QLoRA r16/);
  });

  it('reports a configuration that already fits without fixes', () => {
    const ok = explainFit(
      resolveModel('qwen2.5-0.5b'),
      { ...defaultOptions('qlora') },
      findGpu('h100-sxm'),
    );
    expect(ok.fits).toBe(true);
    expect(ok.fixes).toEqual([]);
    expect(renderExplainText(ok)).toContain('fits on');
  });

  it('is deterministic', () => {
    expect(explainFit(arch, base, gpu)).toEqual(e);
  });
});

describe("explain: a full fine-tune's adapter fixes train where the engine's recipes do", () => {
  const o = { ...defaultOptions('full'), batch: 4, seq: 4096 };
  const adapterFixes = (framework: typeof o.framework) =>
    explainFit(
      resolveModel('llama-3.1-8b'),
      { ...o, framework },
      findGpu('a100-80gb-sxm'),
    ).fixes.filter((f) => f.options.method === 'lora' || f.options.method === 'qlora');

  it('every linear on the HF engines (TRL, axolotl, LLaMA-Factory recipes), not the unused q,v', () => {
    const fixes = adapterFixes('hf');
    expect(fixes.length).toBeGreaterThan(0);
    for (const f of fixes) {
      expect(f.options.loraAllLinear).toBe(true);
      expect(f.options.loraTargets).toEqual(['q', 'k', 'v', 'o', 'gate', 'up', 'down']);
    }
    const lora = fixes.find((f) => f.options.method === 'lora');
    expect(lora?.changes.map((c) => c.label).join(' + ')).toContain('LoRA r16 (all-linear)');
  });

  it('q,v on LitGPT, whose Llama recipes adapt the query and value only', () => {
    const fixes = adapterFixes('litgpt');
    expect(fixes.length).toBeGreaterThan(0);
    for (const f of fixes) expect(f.options.loraTargets).toEqual(['q', 'v']);
  });
});
