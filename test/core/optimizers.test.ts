// Optimizer profiles (src/core/engines/optimizers.ts): one row per contract optimizer feeds memory, time,
// quality and the search, so the layers cannot disagree about an optimizer.
import { describe, expect, it } from 'vitest';
import { OPTIMIZER_PROFILES, SEARCHED_OPTIMIZERS } from '../../src/core/engines/optimizers.js';
import { optimizerStateBytes } from '../../src/core/memory/optimizer-states.js';
import { optimizers } from '../../src/core/plan/candidates.js';
import { qualityOf } from '../../src/core/plan/quality.js';
import { resolveModel } from '../../src/io/load-model.js';
import { defaultOptions, OPTIMIZERS } from '../../src/schema/estimate.js';

const arch = resolveModel('llama-2-7b');
const full = defaultOptions('full');

describe('optimizer profiles', () => {
  it('every contract optimizer has a row; the search offers every one but none, AdamW first', () => {
    expect(Object.keys(OPTIMIZER_PROFILES).sort()).toEqual([...OPTIMIZERS].sort());
    expect(SEARCHED_OPTIMIZERS).not.toContain('none');
    expect(SEARCHED_OPTIMIZERS[0]).toBe('adamw');
    expect(optimizers('full')).toEqual(SEARCHED_OPTIMIZERS);
    expect(optimizers('inference')).toEqual(['none']);
  });

  it('state bytes follow the row: AdamW 2 states, 8-bit ~2 B, SGD none, Adafactor factored', () => {
    const n = 1e9;
    const bytes = (optimizer: (typeof OPTIMIZERS)[number], optimizerStates: 'fp32' | 'bf16') =>
      optimizerStateBytes({ ...full, optimizer, optimizerStates }, n, arch, false);
    expect(bytes('adamw', 'fp32')).toBe(8 * n);
    expect(bytes('adamw', 'bf16')).toBe(4 * n);
    expect(bytes('adamw-8bit', 'fp32')).toBeCloseTo(2 * (1 + 4 / 256) * n, -3);
    expect(bytes('sgd', 'fp32')).toBe(0);
    // Full model: Adafactor keeps rows + cols per matrix, far less than one full state.
    const total = 6.7e9;
    const factored = optimizerStateBytes({ ...full, optimizer: 'adafactor' }, total, arch, true);
    expect(factored).toBeLessThan(0.01 * 4 * total);
  });

  it("quality reads the row's tier and source", () => {
    for (const optimizer of SEARCHED_OPTIMIZERS) {
      const q = OPTIMIZER_PROFILES[optimizer].quality;
      const item = qualityOf({ ...full, optimizer }).items.find((i) => i.technique === optimizer);
      if (q) expect(item).toMatchObject({ tier: q.tier, source: q.source });
      else expect(item).toBeUndefined();
    }
  });
});
