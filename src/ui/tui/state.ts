/** The explorer's state and its pure reducer: every key press is an action; side effects live in the App. */
import type { Plan, PlanResult } from '../../core/plan/index.js';
import type { Scenario } from '../../schema/scenario.js';
import { HELP_LINES, keyToAction, splitKeys } from './keys.js';
import { NARROW } from './cells.js';
import { applyEdit, KNOB_LABEL, KNOBS, parseEdit, scenarioProblem, stepEdit } from './edit.js';
import { axisValues, clamp, nextAxisValue, NO_FILTERS, scrollTop, visiblePlans } from './rows.js';

export type { Action, Mode, ScenarioCheck, Snapshot, State, Status } from './types.js';
import type { Action, ScenarioCheck, Snapshot, State } from './types.js';
import { planCountText } from '../plan-count.js';

/** Lines the explorer spends outside the table rows (header, column titles, footer, detail pane). */
export const CHROME_LINES = 5;
export const DETAIL_LINES = 13;

/** Extra lines under a narrow table: the legend of its abbreviations and the selected plan in full. */
export const narrowLines = (width: number): number => (width < NARROW ? 2 : 0);

/** Is the detail pane drawn: asked for, and there is room for a few rows besides. */
export function detailShown(height: number, detail: boolean, width = 100): boolean {
  return detail && height - CHROME_LINES - narrowLines(width) - DETAIL_LINES >= 3;
}

/** Table rows that fit: the detail pane takes its share only when there is room for a few rows besides. */
export function tableRows(height: number, detail: boolean, width = 100): number {
  const pane = detailShown(height, detail, width) ? DETAIL_LINES : 0;
  return Math.max(3, height - CHROME_LINES - narrowLines(width) - pane);
}

/**
 * Plan rows the table keeps beside the detail pane when the explorer opens: on a shorter terminal (80×24)
 * the pane starts closed, so the table shows a screenful of plans, and Enter opens it.
 */
export const ROWS_BESIDE_DETAIL = 8;

/** Help lines that fit: the explorer's header and footer, the help's border and title. */
export const helpRows = (height: number): number => Math.max(3, height - 5);

export function initialState(
  file: string,
  scenario: Scenario,
  result: PlanResult,
  height = 24,
  width = 100,
  check: ScenarioCheck = scenarioProblem,
): State {
  return view({
    file,
    scenario,
    planned: scenario,
    check,
    result,
    visible: [],
    cursor: 0,
    top: 0,
    height,
    width,
    helpTop: 0,
    sort: 'rank',
    descending: false,
    filters: NO_FILTERS,
    mode: 'table',
    detail: height - CHROME_LINES - narrowLines(width) - DETAIL_LINES >= ROWS_BESIDE_DETAIL,
    draft: '',
    knob: 0,
    typing: false,
    status: null,
    planGen: 0,
    planning: false,
    lastPlanMs: null,
    progress: '',
    pinned: [],
    exportSeq: 0,
    launchSeq: 0,
    quit: null,
  });
}

/** Recompute the visible plans, keep the selected plan selected when it is still shown, and scroll to it. */
function view(s: State, keepId: string | null = null): State {
  const visible = visiblePlans(s.result.plans, s.filters, s.sort, s.descending);
  let cursor = s.cursor;
  if (keepId !== null) {
    const i = visible.findIndex((p) => p.id === keepId);
    cursor = i >= 0 ? i : 0;
  }
  return cursorAt({ ...s, visible }, cursor);
}

function cursorAt(s: State, cursor: number): State {
  const c = clamp(cursor, 0, Math.max(0, s.visible.length - 1));
  return {
    ...s,
    cursor: c,
    top: scrollTop(s.top, c, tableRows(s.height, s.detail, s.width), s.visible.length),
  };
}

const selectedId = (s: State): string | null => s.visible[s.cursor]?.id ?? null;
export const selectedPlan = (s: State): Plan | null => s.visible[s.cursor] ?? null;

/** The default export path for the scenario: its name in kebab case. */
export function defaultExportPath(s: State): string {
  const slug =
    s.result.scenario.name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'plans';
  return `${slug}-plans.json`;
}

const FORMATS = ['json', 'csv', 'md', 'svg'] as const;

export function cycleExtension(path: string): string {
  const m = /\.(json|csv|md|svg)$/i.exec(path);
  if (!m) return `${path}.json`;
  const next =
    FORMATS[
      (FORMATS.indexOf(m[1]!.toLowerCase() as (typeof FORMATS)[number]) + 1) % FORMATS.length
    ]!;
  return path.slice(0, -m[1]!.length) + next;
}

/** An edit is planned only when it passes the check; else refused with its message, naming the knob. */
function edited(s: State, scenario: Scenario): State {
  const problem = s.check(scenario);
  if (problem)
    return { ...s, status: { kind: 'error', text: `${KNOB_LABEL[KNOBS[s.knob]!]}: ${problem}` } };
  return { ...s, scenario, planGen: s.planGen + 1, planning: true, progress: '', status: null };
}

export function reducer(s: State, a: Action): State {
  switch (a.type) {
    case 'key': {
      // Each key of a chunk acts on the state the previous one left (no key is lost to a stale closure).
      let next = s;
      for (const [input, key] of splitKeys(s, a.input, a.key)) {
        const action = keyToAction(next, input, key);
        if (action) next = reducer(next, action);
        if (next.quit !== null) break;
      }
      return next;
    }
    case 'progress':
      return a.gen === s.planGen && s.planning ? { ...s, progress: a.text } : s;
    case 'move':
      return cursorAt(s, s.cursor + a.delta);
    case 'page':
      return cursorAt(s, s.cursor + a.dir * tableRows(s.height, s.detail, s.width));
    case 'home':
      return cursorAt(s, 0);
    case 'end':
      return cursorAt(s, s.visible.length - 1);
    case 'sort': {
      const descending = s.sort === a.key ? !s.descending : false;
      return view({ ...s, sort: a.key, descending }, selectedId(s));
    }
    case 'filter': {
      const values = axisValues(s.result.plans, a.axis);
      const filters = { ...s.filters, [a.axis]: nextAxisValue(values, s.filters[a.axis]) };
      return view({ ...s, filters }, selectedId(s));
    }
    case 'toggle':
      return view({ ...s, filters: { ...s.filters, [a.flag]: !s.filters[a.flag] } }, selectedId(s));
    case 'clearFilters':
      return view({ ...s, filters: NO_FILTERS }, selectedId(s));
    case 'detail':
      return cursorAt({ ...s, detail: !s.detail }, s.cursor);
    case 'mode': {
      const draft = a.mode === 'search' ? s.filters.search : '';
      return {
        ...s,
        mode: a.mode,
        helpTop: 0,
        draft,
        typing: false,
        status:
          a.mode === 'compare' && s.pinned.length === 0
            ? {
                kind: 'info',
                text: 'nothing pinned yet: press b to pin this scenario, edit it, then c to compare',
              }
            : s.status,
      };
    }
    case 'draft': {
      const next = { ...s, draft: a.text };
      // Search filters as you type.
      return s.mode === 'search'
        ? view({ ...next, filters: { ...s.filters, search: a.text } }, selectedId(s))
        : next;
    }
    case 'searchCommit':
      return { ...s, mode: 'table' };
    case 'searchCancel':
      return view(
        { ...s, mode: 'table', draft: '', filters: { ...s.filters, search: '' } },
        selectedId(s),
      );
    case 'knob':
      return { ...s, knob: (s.knob + a.delta + KNOBS.length) % KNOBS.length, status: null };
    case 'editBegin':
      return { ...s, typing: true, draft: '' };
    case 'editCommit': {
      const parsed = parseEdit(KNOBS[s.knob]!, s.draft);
      if ('error' in parsed) return { ...s, status: { kind: 'error', text: parsed.error } };
      return edited({ ...s, typing: false, draft: '' }, applyEdit(s.scenario, parsed.edit));
    }
    case 'editStep': {
      const e = stepEdit(s.scenario, KNOBS[s.knob]!, a.dir);
      return e
        ? edited(s, applyEdit(s.scenario, e))
        : { ...s, status: { kind: 'info', text: 'type a value: Enter' } };
    }
    case 'planned':
      if (a.gen !== s.planGen) return s;
      return view(
        {
          ...s,
          result: a.result,
          planned: s.scenario,
          planning: false,
          progress: '',
          lastPlanMs: a.ms,
          status: {
            kind: 'info',
            text: `re-planned in ${Math.round(a.ms)} ms: ${planCountText(a.result)}`,
          },
        },
        selectedId(s),
      );
    case 'planFailed':
      if (a.gen !== s.planGen) return s;
      // The plans shown stay, and so does the scenario they were planned from.
      return {
        ...s,
        scenario: s.planned,
        planning: false,
        progress: '',
        status: { kind: 'error', text: a.message },
      };
    case 'launch':
      return selectedPlan(s) ? { ...s, launchSeq: s.launchSeq + 1, status: null } : s;
    case 'exportBegin':
      return { ...s, mode: 'export', draft: defaultExportPath(s), status: null };
    case 'exportCycle':
      return { ...s, draft: cycleExtension(s.draft) };
    case 'exportCommit':
      return { ...s, exportSeq: s.exportSeq + 1 }; // the App writes the file, then dispatches exported / exportFailed
    case 'exported':
      return { ...s, mode: 'table', status: { kind: 'info', text: `wrote ${a.path}` } };
    case 'exportFailed':
      return { ...s, status: { kind: 'error', text: a.message } };
    case 'pin': {
      const name =
        s.planGen === 0
          ? s.result.scenario.name
          : `${s.result.scenario.name} (edit ${s.pinned.length + 1})`;
      return {
        ...s,
        pinned: [...s.pinned, { name, result: s.result, job: s.planned.job }],
        status: { kind: 'info', text: `pinned '${name}' for comparison (c)` },
      };
    }
    case 'resize':
      return cursorAt({ ...s, height: a.height, width: a.width ?? s.width }, s.cursor);
    case 'helpScroll': {
      const max = Math.max(0, HELP_LINES.length - helpRows(s.height));
      return { ...s, helpTop: clamp(s.helpTop + a.delta, 0, max) };
    }
    case 'quit':
      return { ...s, quit: a.code };
  }
}

/** What the compare view shows: the pinned scenarios, then the current one if it differs from the last pin. */
export function compareSet(s: State): Snapshot[] {
  const last = s.pinned[s.pinned.length - 1];
  return last && last.result === s.result
    ? s.pinned
    : [
        ...s.pinned,
        {
          name: `${s.result.scenario.name}${s.planGen > 0 ? ' (current)' : ''}`,
          result: s.result,
          job: s.planned.job,
        },
      ];
}
