// The explorer on small terminals: a screenful of plans at 80×24 (the detail pane opens on Enter), a
// technique column at 60 columns, compare's title kept on screen with each job's dataset tokens and global
// batch, the edited hardware in the title, and the KV cache dtype in the technique.
import { describe, expect, it } from 'vitest';
import { techniqueRest, techniqueShort } from '../../src/ui/tui/cells.js';
import { initialState, reducer, type Action, type State } from '../../src/ui/tui/state.js';
import { headerText } from '../../src/ui/tui/view.js';
import { techniqueOf } from '../../src/ui/plan-text.js';
import { fakePlan, fakeResult, scenario } from './fixtures.js';
import { frameAt } from './frame-at.js';

const planRows = (frame: string) => frame.split('\n').filter((l) => /^[❯ ] +\d+ /.test(l)).length;

describe('the explorer on small terminals', () => {
  it('80×24 shows a screenful of plans; Enter opens the detail pane', async () => {
    const frame = await frameAt(80, 24);
    expect(planRows(frame)).toBe(24 - 5 - 2);
    expect(frame).not.toContain('┌');
    const detail = await frameAt(80, 24, ['\r']);
    expect(detail).toContain('┌');
    expect(planRows(detail)).toBeGreaterThanOrEqual(3);
    // A taller terminal still opens with the pane and more rows than that beside it.
    expect((await frameAt(100, 40)).split('\n').some((l) => l.startsWith('┌'))).toBe(true);
  });

  it('60×20 keeps a technique column, so plans that differ in their technique read differently', async () => {
    const frame = await frameAt(60, 20);
    expect(frame.split('\n')[1]).toMatch(/ tech /);
    const a = fakePlan(3);
    const b = { ...a, choices: { ...a.choices, checkpointing: 'full' as const } };
    const c = { ...a, choices: { ...a.choices, engine: 'unsloth' as const } };
    expect(new Set([a, b, c].map(techniqueShort)).size).toBe(3);
    expect(techniqueShort(a)).toBe('l hf sel 1×16 flash');
  });

  it('compare at 80×24 keeps its title on screen and shows each job’s dataset tokens and global batch', async () => {
    const frame = await frameAt(80, 24, ['b', 'j', 'b', 'c']);
    const lines = frame.split('\n');
    expect(lines.length).toBeLessThanOrEqual(24);
    expect(lines[1]).toMatch(/^compare ≠ differs +Test scenario \(1\) +Test scenario \(2\)$/);
    expect(frame).toMatch(/ dataset tokens +10,000,000 +10,000,000/);
    expect(frame).toMatch(/ global batch +16 × 2,048 tokens +16 × 2,048 tokens/);
  });

  it('after an edit, the title names the hardware the plans shown were planned on', () => {
    const run = (s: State, ...actions: Action[]): State => actions.reduce(reducer, s);
    let s = initialState('t.yaml', scenario, fakeResult(5), 30);
    expect(headerText(s)).toMatch(/^Test scenario · /);
    s = run(
      s,
      { type: 'mode', mode: 'edit' },
      { type: 'knob', delta: 2 },
      { type: 'editBegin' },
      { type: 'draft', text: '4' },
      { type: 'editCommit' },
    );
    s = run(s, { type: 'planned', gen: s.planGen, result: fakeResult(2), ms: 1 });
    expect(headerText(s)).toMatch(/^Test scenario \(edited: 4× rtx-4090\) · /);
  });

  it('plans that differ only in the KV cache dtype read differently (explorer and report)', () => {
    const a = fakePlan(1);
    const fp8 = { ...a, options: { ...a.options, kvCacheDtype: 'fp8' as const } };
    const q8 = { ...fp8, choices: { ...fp8.choices, engine: 'llama.cpp' as const } };
    expect(techniqueRest(fp8)).not.toBe(techniqueRest(a));
    expect(techniqueRest(fp8)).toContain('KV fp8');
    expect(techniqueOf(fp8)).toContain('KV fp8');
    expect(techniqueOf(q8)).toContain('KV q8_0');
    expect(techniqueShort(fp8)).toContain('kvfp8');
    // The engine's short name is its registration's abbr (core/engines/llama-cpp/index.ts).
    expect(techniqueShort(q8)).toContain(' lcpp kvq8_0 ');
    expect(techniqueOf(a)).not.toContain('KV');
  });
});
