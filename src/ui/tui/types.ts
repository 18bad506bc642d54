/** The explorer's types: its state, the actions its reducer takes, and a key as Ink reports it. */
import type { Plan, PlanResult } from '../../core/plan/index.js';
import type { Scenario } from '../../schema/scenario.js';
import type { FilterAxis, Filters, SortKey } from './rows.js';

/** The fields of Ink's Key that the explorer reads. */
export interface KeyLike {
  upArrow?: boolean;
  downArrow?: boolean;
  leftArrow?: boolean;
  rightArrow?: boolean;
  pageUp?: boolean;
  pageDown?: boolean;
  home?: boolean;
  end?: boolean;
  return?: boolean;
  escape?: boolean;
  ctrl?: boolean;
  tab?: boolean;
  backspace?: boolean;
  delete?: boolean;
}

export type Mode = 'table' | 'help' | 'search' | 'edit' | 'export' | 'compare';

export interface Snapshot {
  name: string;
  result: PlanResult;
  /** The job it was planned for (its dataset tokens and global batch are shown in compare). */
  job?: Scenario['job'];
}

export interface Status {
  kind: 'info' | 'error';
  text: string;
}

/** The validation an edited scenario gets before it is planned: the one-line error, or null when valid. */
export type ScenarioCheck = (s: Scenario) => string | null;

export interface State {
  file: string;
  scenario: Scenario;
  /** The scenario of the plans shown: an edit the planner refuses falls back to it. */
  planned: Scenario;
  /** What an edit must pass (the CLI's validation in the app; the schema alone by default). */
  check: ScenarioCheck;
  result: PlanResult;
  /** Plans after filter, search and sort (derived; kept in state so moves can clamp against it). */
  visible: Plan[];
  cursor: number;
  top: number;
  /** Terminal rows available to the whole explorer. */
  height: number;
  /** Terminal columns (a narrow table spends two more lines: its legend and the selected plan). */
  width: number;
  /** First line of the help shown (the help scrolls when taller than the screen). */
  helpTop: number;
  sort: SortKey;
  descending: boolean;
  filters: Filters;
  mode: Mode;
  detail: boolean;
  /** Text being typed in the search, edit or export prompt. */
  draft: string;
  knob: number;
  typing: boolean;
  status: Status | null;
  /** Bumped on every scenario edit; the App re-plans when it changes and drops stale answers. */
  planGen: number;
  planning: boolean;
  lastPlanMs: number | null;
  /** Search progress of the running re-plan ('' until it has run ~300 ms). */
  progress: string;
  /** Scenarios pinned for the side-by-side view. */
  pinned: Snapshot[];
  /** Bumped when Enter commits the export prompt; the App writes `draft` then. */
  exportSeq: number;
  /** Bumped by `l`: the App writes the selected plan's launch folder then. */
  launchSeq: number;
  /** The exit code once the user quits (0 plans, 2 nothing fits, 130 Ctrl-C). */
  quit: number | null;
}

export type Action =
  | { type: 'key'; input: string; key: KeyLike }
  | { type: 'progress'; gen: number; text: string }
  | { type: 'move'; delta: number }
  | { type: 'page'; dir: 1 | -1 }
  | { type: 'home' }
  | { type: 'end' }
  | { type: 'sort'; key: SortKey }
  | { type: 'filter'; axis: FilterAxis }
  | { type: 'toggle'; flag: 'fitsOnly' | 'frontOnly' }
  | { type: 'clearFilters' }
  | { type: 'detail' }
  | { type: 'mode'; mode: Mode }
  | { type: 'draft'; text: string }
  | { type: 'searchCommit' }
  | { type: 'searchCancel' }
  | { type: 'knob'; delta: number }
  | { type: 'editBegin' }
  | { type: 'editCommit' }
  | { type: 'editStep'; dir: 1 | -1 }
  | { type: 'planned'; gen: number; result: PlanResult; ms: number }
  | { type: 'planFailed'; gen: number; message: string }
  | { type: 'exportBegin' }
  | { type: 'launch' }
  | { type: 'exportCycle' }
  | { type: 'exportCommit' }
  | { type: 'exported'; path: string }
  | { type: 'exportFailed'; message: string }
  | { type: 'pin' }
  | { type: 'resize'; height: number; width?: number }
  | { type: 'helpScroll'; delta: number }
  | { type: 'quit'; code: number };
