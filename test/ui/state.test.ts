import { describe, expect, it } from 'vitest';
import {
  cycleExtension,
  initialState,
  reducer,
  tableRows,
  type Action,
  type State,
} from '../../src/ui/tui/state.js';
import { keyToAction } from '../../src/ui/tui/keys.js';
import { nextAxisValue, scrollTop, visiblePlans, NO_FILTERS } from '../../src/ui/tui/rows.js';
import { fakeResult, scenario } from './fixtures.js';

const run = (s: State, ...actions: Action[]): State => actions.reduce(reducer, s);
const start = (n = 50, height = 30) => initialState('t.yaml', scenario, fakeResult(n), height);

describe('explorer reducer', () => {
  it('moves, pages and clamps at both ends', () => {
    const s = start(50, 30);
    const page = tableRows(30, true);
    expect(run(s, { type: 'move', delta: -1 }).cursor).toBe(0);
    expect(run(s, { type: 'move', delta: 3 }).cursor).toBe(3);
    expect(run(s, { type: 'page', dir: 1 }).cursor).toBe(page);
    expect(run(s, { type: 'end' }).cursor).toBe(49);
    expect(run(s, { type: 'end' }, { type: 'move', delta: 1 }).cursor).toBe(49);
    expect(run(s, { type: 'end' }, { type: 'home' }).cursor).toBe(0);
  });

  it('scrolls the window just enough to keep the cursor visible', () => {
    const s = run(start(50, 30), { type: 'end' });
    const h = tableRows(30, true);
    expect(s.top).toBe(50 - h);
    expect(run(s, { type: 'move', delta: -1 }).top).toBe(50 - h);
    expect(scrollTop(0, 0, 10, 5)).toBe(0);
    expect(scrollTop(5, 3, 10, 100)).toBe(3);
    expect(scrollTop(0, 12, 10, 100)).toBe(3);
  });

  it('sorts by a key, reverses on the second press, and keeps the selected plan selected', () => {
    const s = run(start(20), { type: 'move', delta: 4 });
    const id = s.visible[4]!.id;
    const byTime = run(s, { type: 'sort', key: 'time' });
    expect(byTime.visible.map((p) => p.time.hours)).toEqual(
      [...byTime.visible.map((p) => p.time.hours)].sort((a, b) => a - b),
    );
    expect(byTime.visible[byTime.cursor]!.id).toBe(id);
    const back = run(byTime, { type: 'sort', key: 'time' });
    expect(back.descending).toBe(true);
    expect(back.visible[0]!.time.hours).toBe(Math.max(...back.visible.map((p) => p.time.hours)));
    expect(
      run(s, { type: 'sort', key: 'cost' }, { type: 'sort', key: 'rank' })
        .visible.map((p) => p.rank)
        .slice(0, 3),
    ).toEqual([1, 2, 3]);
  });

  it('cycles filters through the values present, then back to all', () => {
    let s = start(12);
    s = run(s, { type: 'filter', axis: 'method' });
    expect(s.filters.method).toBe('full');
    expect(s.visible.every((p) => p.choices.method === 'full')).toBe(true);
    s = run(
      s,
      { type: 'filter', axis: 'method' },
      { type: 'filter', axis: 'method' },
      { type: 'filter', axis: 'method' },
    );
    expect(s.filters.method).toBeNull();
    expect(s.visible).toHaveLength(12);
    expect(run(s, { type: 'toggle', flag: 'frontOnly' }).visible.map((p) => p.rank)).toEqual([
      1, 6, 11,
    ]);
    expect(run(s, { type: 'filter', axis: 'gpu' }, { type: 'clearFilters' }).visible).toHaveLength(
      12,
    );
    expect(nextAxisValue([], null)).toBeNull();
  });

  it('searches as you type and Esc clears the search', () => {
    let s = run(start(30), { type: 'mode', mode: 'search' }, { type: 'draft', text: 'a100' });
    expect(s.visible.every((p) => p.hardware.gpuId === 'a100-80gb')).toBe(true);
    s = run(s, { type: 'searchCancel' });
    expect(s.mode).toBe('table');
    expect(s.visible).toHaveLength(30);
  });

  it('commits a knob edit as a new scenario and a new plan generation; drops stale plans', () => {
    let s = run(
      start(5),
      { type: 'mode', mode: 'edit' },
      { type: 'knob', delta: 4 },
      { type: 'editBegin' },
      { type: 'draft', text: '4096' },
      { type: 'editCommit' },
    );
    expect(s.scenario.job.kind === 'fine-tune' && s.scenario.job.seq).toBe(4096);
    expect(s.planGen).toBe(1);
    expect(s.planning).toBe(true);
    expect(
      run(s, { type: 'planned', gen: 0, result: fakeResult(2), ms: 1 }).result.plans,
    ).toHaveLength(5);
    s = run(s, { type: 'planned', gen: 1, result: fakeResult(2), ms: 12.4 });
    expect(s.visible).toHaveLength(2);
    expect(s.status?.text).toBe(
      're-planned in 12 ms: 2 feasible configurations → 2 distinct plans',
    );
  });

  it('rejects a bad knob value with a sentence and keeps the scenario', () => {
    const s = run(
      start(5),
      { type: 'mode', mode: 'edit' },
      { type: 'knob', delta: 3 },
      { type: 'editBegin' },
      { type: 'draft', text: 'full,dora' },
      { type: 'editCommit' },
    );
    expect(s.status).toEqual({
      kind: 'error',
      text: "methods: expected a list of full, lora, qlora, got 'dora'",
    });
    expect(s.planGen).toBe(0);
  });

  it('export prompt starts from the scenario name and Tab cycles the format', () => {
    const s = run(start(3), { type: 'exportBegin' });
    expect(s.draft).toBe('test-scenario-plans.json');
    expect(run(s, { type: 'exportCycle' }).draft).toBe('test-scenario-plans.csv');
    expect(cycleExtension('a.svg')).toBe('a.json');
    expect(cycleExtension('a')).toBe('a.json');
  });

  it('sorts headroom with the most free memory first', () => {
    const v = visiblePlans(fakeResult(4).plans, NO_FILTERS, 'headroom');
    expect(v[0]!.hardware.gpuId).toBe('a100-80gb');
  });
});

describe('keys', () => {
  const s = start(5);
  it('map to actions by mode', () => {
    expect(keyToAction(s, 'j', {})).toEqual({ type: 'move', delta: 1 });
    expect(keyToAction(s, '', { pageDown: true })).toEqual({ type: 'page', dir: 1 });
    expect(keyToAction(s, '1', {})).toEqual({ type: 'sort', key: 'cost' });
    expect(keyToAction(s, '', { escape: true })).toEqual({ type: 'quit', code: 0 });
    const search = { ...s, mode: 'search' as const, draft: 'ab' };
    expect(keyToAction(search, 'q', {})).toEqual({ type: 'draft', text: 'abq' });
    expect(keyToAction(search, '', { backspace: true })).toEqual({ type: 'draft', text: 'a' });
    expect(keyToAction(search, '', { escape: true })).toEqual({ type: 'searchCancel' });
    expect(keyToAction(search, '\u007f\u007f\u007f', {})).toEqual({ type: 'draft', text: '' });
    expect(keyToAction(search, 'u', { ctrl: true })).toEqual({ type: 'draft', text: '' });
    expect(keyToAction({ ...s, mode: 'help' }, '', { escape: true })).toEqual({
      type: 'mode',
      mode: 'table',
    });
  });
});
