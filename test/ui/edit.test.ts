import { describe, expect, it } from 'vitest';
import {
  applyEdit,
  knobValue,
  parseEdit,
  scenarioProblem,
  stepEdit,
} from '../../src/ui/tui/edit.js';
import { memorySegments } from '../../src/ui/tui/cells.js';
import { breakdown, scenario } from './fixtures.js';

const edit = (knob: Parameters<typeof parseEdit>[0], text: string) => {
  const r = parseEdit(knob, text);
  if ('error' in r) throw new Error(r.error);
  return applyEdit(scenario, r.edit);
};

describe('applyEdit', () => {
  it('changes one knob and leaves the input untouched', () => {
    const s = edit('seq', '4096');
    expect(s.job.kind === 'fine-tune' && s.job.seq).toBe(4096);
    expect(scenario.job.kind === 'fine-tune' && scenario.job.seq).toBe(2048);
  });
  it('GPU and count edit the first owned GPU and the counts searched', () => {
    const s = applyEdit(edit('gpu', 'rtx-3090'), { knob: 'count', value: 4 });
    expect(s.hardware.owned).toEqual([{ gpu: 'rtx-3090', count: 4 }]);
    expect(s.hardware.counts).toEqual({ min: 1, max: 4 });
  });
  it('methods, micro-batch, budget and circuits', () => {
    expect(knobValue(edit('methods', 'qlora, lora'), 'methods')).toBe('qlora,lora');
    expect(edit('microBatch', '4').search.microBatches).toEqual([4]);
    expect(edit('microBatch', 'any').search.microBatches).toBeUndefined();
    expect(edit('budget', '$1,200').limits.budgetUsd).toBe(1200);
    expect(edit('budget', 'none').limits.budgetUsd).toBeUndefined();
    expect(edit('circuits', 'us-120v-20a eu-230v-16a').power.circuits).toEqual([
      'us-120v-20a',
      'eu-230v-16a',
    ]);
    expect(scenarioProblem(edit('model', 'anything'))).toBeNull();
  });
  it('says what is expected for bad values', () => {
    expect(parseEdit('count', 'two')).toEqual({
      error: "GPU count (max): expected a whole number ≥ 1, got 'two'",
    });
    // A whole number out of range is the scenario validation's to refuse (test/ui/explorer-edits.test.tsx).
    expect(parseEdit('count', '0')).toEqual({ edit: { knob: 'count', value: 0 } });
    expect(scenarioProblem(edit('count', '0'))).toMatch(/^hardware\.owned\.0\.count: Too small/);
    expect(parseEdit('budget', 'lots')).toEqual({
      error: "budget: expected dollars > 0 or 'none', got 'lots'",
    });
  });
  it('steps numeric knobs', () => {
    expect(stepEdit(scenario, 'seq', 1)).toEqual({ knob: 'seq', value: 4096 });
    expect(stepEdit(scenario, 'count', -1)).toEqual({ knob: 'count', value: 1 });
    expect(stepEdit(scenario, 'budget', 1)).toBeNull();
    expect(stepEdit(scenario, 'model', 1)).toBeNull();
  });
});

describe('memorySegments', () => {
  it('fills exactly the width, components then headroom', () => {
    const segs = memorySegments(breakdown(1), 24, 48);
    expect(segs.reduce((a, s) => a + s.cells, 0)).toBe(48);
    expect(segs.map((s) => `${s.key}:${s.cells}`).join(' ')).toMatchInlineSnapshot(
      `"weights:16 optimizer:1 activations:10 logits:2 overhead:3 headroom:16"`,
    );
  });
  it('scales to the peak when over capacity', () => {
    const segs = memorySegments(breakdown(1), 8, 20);
    expect(segs.reduce((a, s) => a + s.cells, 0)).toBe(20);
    expect(segs.some((s) => s.key === 'headroom')).toBe(false);
  });
});
