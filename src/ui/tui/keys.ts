/** Pure: a key press (as Ink's useInput reports it) → an explorer action, given the mode. One place lists every key. */
import type { Action, KeyLike, State } from './types.js';

export type { KeyLike } from './types.js';

/** Every key, for the help overlay: [keys, what they do], grouped. */
export const KEY_HELP: readonly (readonly [string, readonly (readonly [string, string])[]])[] = [
  [
    'move',
    [
      ['↑ ↓  k j', 'previous / next plan'],
      ['PgUp PgDn  ^u ^d', 'page up / down'],
      ['Home End', 'first / last plan'],
    ],
  ],
  [
    'sort (again: reverse)',
    [
      ['1', 'cost'],
      ['2', 'x fastest'],
      ['3', 'wall power'],
      ['4', 'time'],
      ['5', 'memory headroom'],
      ['0', 'planner rank'],
    ],
  ],
  [
    'filter',
    [
      ['m g o', 'cycle method / GPU type / optimizer'],
      ['f', 'fits even if the estimate is low by its p90 error'],
      ['p', 'Pareto front only'],
      ['/', 'search plans (Enter keeps, Esc clears)'],
      ['x', 'clear filters and search'],
    ],
  ],
  [
    'views',
    [
      ['Enter d', 'detail pane on / off'],
      ['i', 'edit scenario knobs (re-plans live)'],
      ['b', 'pin this scenario for comparison'],
      ['c', 'compare pinned scenarios side by side'],
      ['e', 'export plans (json / csv / md / svg)'],
      ['l', "write the selected plan's launch folder (launch-<rank>)"],
      ['?', 'this help (↑↓ PgUp PgDn space scroll it)'],
      ['q Esc', 'quit (Esc closes a prompt first); ^c quits from anywhere (exit 130)'],
    ],
  ],
  [
    'editing knobs (i)',
    [
      ['↑ ↓', 'choose a knob'],
      ['← →', 'step it (count ±1; sequence, micro-batch, budget ÷2 ×2)'],
      ['Enter', 'type a value, Enter again to apply'],
      ['^u', 'clear a prompt (search, value, export path)'],
    ],
  ],
];

/** The help as lines: a section title, then its keys indented (the help pages through these). */
export const HELP_LINES: readonly { text: string; bold: boolean }[] = KEY_HELP.flatMap(
  ([title, keys]) => [
    { text: title, bold: true },
    ...keys.map(([k, what]) => ({ text: `  ${k.padEnd(18)}${what}`, bold: false })),
  ],
);

const SORT_BY_KEY: Record<string, 'cost' | 'slowdown' | 'power' | 'time' | 'headroom' | 'rank'> = {
  '1': 'cost',
  '2': 'slowdown',
  '3': 'power',
  '4': 'time',
  '5': 'headroom',
  '0': 'rank',
};

/** Editing a text prompt: characters append, backspace deletes. null when the key is not text editing. */
function typed(draft: string, input: string, key: KeyLike): Action | null {
  if (key.backspace || key.delete) return { type: 'draft', text: draft.slice(0, -1) };
  // Several deletes in one chunk (fast typing, tmux send-keys) reach us as raw DEL/BS characters.
  if (input !== '' && [...input].every((c) => c === '\u007f' || c === '\b'))
    return { type: 'draft', text: draft.slice(0, Math.max(0, draft.length - input.length)) };
  if (key.ctrl && input === 'u') return { type: 'draft', text: '' };
  if (
    input &&
    !key.ctrl &&
    !key.tab &&
    !key.return &&
    !key.escape &&
    ![...input].some((c) => c.charCodeAt(0) < 32)
  )
    return { type: 'draft', text: draft + input };
  return null;
}

/** Is a text prompt taking the keys (so a pasted chunk is text, not a series of commands)? */
const typingText = (s: State): boolean =>
  s.mode === 'search' || s.mode === 'export' || (s.mode === 'edit' && s.typing);

/**
 * One chunk from the terminal → the key presses in it, in order. Keys typed faster than a frame (a paste,
 * key repeat, tmux send-keys) arrive as one chunk: `jjj` is three moves, as if typed slowly.
 */
export function splitKeys(s: State, input: string, key: KeyLike): [string, KeyLike][] {
  const plain =
    !key.ctrl && !key.return && !key.escape && !key.tab && !key.backspace && !key.delete;
  if (!plain || input.length <= 1 || typingText(s)) return [[input, key]];
  return [...input].map((c) => [c, {}]);
}

export function keyToAction(s: State, input: string, key: KeyLike): Action | null {
  if (key.ctrl && input === 'c') return { type: 'quit', code: 130 };
  switch (s.mode) {
    case 'help':
      if (key.downArrow || input === 'j') return { type: 'helpScroll', delta: 1 };
      if (key.upArrow || input === 'k') return { type: 'helpScroll', delta: -1 };
      if (key.pageDown || input === ' ' || (key.ctrl && input === 'd'))
        return { type: 'helpScroll', delta: Math.max(1, s.height - 6) };
      if (key.pageUp || (key.ctrl && input === 'u'))
        return { type: 'helpScroll', delta: -Math.max(1, s.height - 6) };
      if (input === 'q' || key.escape || input === '?') return { type: 'mode', mode: 'table' };
      return null;
    case 'compare':
      if (input === 'q' || key.escape || input === '?' || (s.mode === 'compare' && input === 'c'))
        return { type: 'mode', mode: 'table' };
      return null;
    case 'search':
      if (key.return) return { type: 'searchCommit' };
      if (key.escape) return { type: 'searchCancel' };
      return typed(s.draft, input, key);
    case 'export':
      if (key.return) return { type: 'exportCommit' };
      if (key.escape) return { type: 'mode', mode: 'table' };
      if (key.tab) return { type: 'exportCycle' };
      return typed(s.draft, input, key);
    case 'edit':
      if (s.typing) {
        if (key.return) return { type: 'editCommit' };
        if (key.escape) return { type: 'mode', mode: 'edit' };
        return typed(s.draft, input, key);
      }
      if (key.escape || input === 'q' || input === 'i') return { type: 'mode', mode: 'table' };
      if (key.upArrow || input === 'k') return { type: 'knob', delta: -1 };
      if (key.downArrow || input === 'j') return { type: 'knob', delta: 1 };
      if (key.leftArrow || input === '-' || input === 'h') return { type: 'editStep', dir: -1 };
      if (key.rightArrow || input === '+' || input === 'l') return { type: 'editStep', dir: 1 };
      if (key.return) return { type: 'editBegin' };
      return null;
    case 'table':
      break;
  }
  if (key.upArrow || input === 'k') return { type: 'move', delta: -1 };
  if (key.downArrow || input === 'j') return { type: 'move', delta: 1 };
  if (key.pageUp || (key.ctrl && input === 'u')) return { type: 'page', dir: -1 };
  if (key.pageDown || (key.ctrl && input === 'd')) return { type: 'page', dir: 1 };
  if (key.home) return { type: 'home' };
  if (key.end) return { type: 'end' };
  if (key.return || input === 'd') return { type: 'detail' };
  if (key.escape || input === 'q') return { type: 'quit', code: s.result.fits ? 0 : 2 };
  const sort = SORT_BY_KEY[input];
  if (sort) return { type: 'sort', key: sort };
  switch (input) {
    case 'm':
      return { type: 'filter', axis: 'method' };
    case 'g':
      return { type: 'filter', axis: 'gpu' };
    case 'o':
      return { type: 'filter', axis: 'optimizer' };
    case 'f':
      return { type: 'toggle', flag: 'fitsOnly' };
    case 'p':
      return { type: 'toggle', flag: 'frontOnly' };
    case 'x':
      return { type: 'clearFilters' };
    case '/':
      return { type: 'mode', mode: 'search' };
    case 'i':
      return { type: 'mode', mode: 'edit' };
    case 'b':
      return { type: 'pin' };
    case 'c':
      return { type: 'mode', mode: 'compare' };
    case 'e':
      return { type: 'exportBegin' };
    case 'l':
      return { type: 'launch' };
    case '?':
      return { type: 'mode', mode: 'help' };
  }
  return null;
}
