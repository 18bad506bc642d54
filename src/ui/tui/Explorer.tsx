/** The interactive plan explorer: owns the state (useReducer over the pure reducer) and the side effects. */
import { useEffect, useLayoutEffect, useReducer } from 'react';
import { Box, Text, useApp, useInput, useStdin } from 'ink';
import type { Plan, PlanProgress, PlanResult } from '../../core/plan/index.js';
import type { Scenario } from '../../schema/scenario.js';
import { CompareView } from './CompareView.js';
import { DetailPane } from './DetailPane.js';
import { EditPanel } from './EditPanel.js';
import { HelpOverlay } from './HelpOverlay.js';
import { NothingFits } from './NothingFits.js';
import { PlanTable } from './PlanTable.js';
import { Prompt } from './Prompt.js';
import { compareSet, detailShown, initialState, reducer, selectedPlan } from './state.js';
import {
  compareProps,
  detailProps,
  editProps,
  footerText,
  headerText,
  helpProps,
  nothingFitsProps,
  quitSummary,
  tableProps,
} from './view.js';

export interface ExplorerProps {
  readonly file: string;
  readonly scenario: Scenario;
  readonly result: PlanResult;
  readonly width: number;
  readonly height: number;
  /**
   * Plan an edited scenario (the one pipeline, in a worker; a newer call may cancel an older one, whose
   * answer is dropped); throw an Error whose message is shown in the footer.
   */
  readonly replan: (
    s: Scenario,
    onProgress?: (p: PlanProgress) => void,
  ) => PlanResult | Promise<PlanResult>;
  /**
   * The validation an edit gets before it is planned (the CLI's, for the same scenario): its one-line
   * error refuses the edit, shown after the knob's name; the schema alone when not given.
   */
  readonly check?: (s: Scenario) => string | null;
  /** Write `result` to `path` in the format its extension names; return the path written; throw on failure. */
  readonly exportTo: (path: string, result: PlanResult) => string;
  /** Write one plan's launch folder (as `vramplan launch <scenario> --plan N`); returns the folder. */
  readonly launchTo?: (plan: Plan, scenario: Scenario) => string;
  /** Wait this long after an edit before re-planning (0: next tick; keys of one burst still plan once). */
  readonly debounceMs?: number;
  readonly clock?: () => number;
  /**
   * Called once with the exit code when the user quits (0, 2 when nothing fits, 130 on Ctrl-C) and the
   * summary to print once the screen is restored (the selected plan; see quitSummary).
   */
  readonly onQuit?: (code: number, summary: string) => void;
  /**
   * Called as each key arrives, before it is handled, and after each frame is drawn (layout effects run
   * once Ink has written the frame): the planner pauses its workers in between.
   */
  readonly onKey?: () => void;
  readonly onDrawn?: () => void;
}

/** Searches shorter than this show no progress. */
const PROGRESS_AFTER_MS = 300;

export function Explorer(props: ExplorerProps) {
  const { replan, exportTo, debounceMs = 0, clock = () => performance.now() } = props;
  const [s, dispatch] = useReducer(reducer, undefined, () =>
    initialState(props.file, props.scenario, props.result, props.height, props.width, props.check),
  );
  const { exit } = useApp();
  const { isRawModeSupported } = useStdin();

  useEffect(
    () => dispatch({ type: 'resize', height: props.height, width: props.width }),
    [props.height, props.width],
  );

  useEffect(() => {
    if (s.quit === null) return;
    props.onQuit?.(s.quit, quitSummary(s));
    exit();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [s.quit, exit]);

  useEffect(() => {
    if (s.exportSeq === 0) return;
    try {
      const path = exportTo(s.draft, { ...s.result, plans: s.visible });
      dispatch({ type: 'exported', path });
    } catch (e) {
      dispatch({ type: 'exportFailed', message: e instanceof Error ? e.message : String(e) });
    }
    // Export only when Enter commits the prompt; the draft and plans travel with it.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [s.exportSeq]);

  useEffect(() => {
    if (s.launchSeq === 0 || !props.launchTo) return;
    const plan = selectedPlan(s);
    if (!plan) return;
    try {
      dispatch({ type: 'exported', path: props.launchTo(plan, s.scenario) });
    } catch (e) {
      dispatch({ type: 'exportFailed', message: e instanceof Error ? e.message : String(e) });
    }
    // Launch only when `l` bumps the sequence; the selection travels with it.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [s.launchSeq]);

  useEffect(() => {
    if (s.planGen === 0) return;
    const gen = s.planGen;
    const scenario = s.scenario;
    const timer = setTimeout(() => {
      const t0 = clock();
      const onProgress = (p: PlanProgress) => {
        if (clock() - t0 < PROGRESS_AFTER_MS) return;
        const pct = p.total > 0 ? Math.floor((100 * p.done) / p.total) : 0;
        dispatch({ type: 'progress', gen, text: `${pct}% of ${p.total.toLocaleString('en-US')}` });
      };
      Promise.resolve()
        .then(() => replan(scenario, onProgress))
        .then(
          (result) => dispatch({ type: 'planned', gen, result, ms: clock() - t0 }),
          (e: unknown) =>
            dispatch({
              type: 'planFailed',
              gen,
              message: e instanceof Error ? e.message.split('\n')[0]! : String(e),
            }),
        );
    }, debounceMs);
    return () => clearTimeout(timer);
    // Re-plan only when an edit bumps the generation; the scenario travels with it.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [s.planGen]);

  // The reducer maps keys to actions against the latest state, so keys of one burst all land.
  const { onKey, onDrawn } = props;
  useLayoutEffect(() => {
    onDrawn?.();
  });
  useInput(
    (input, key) => {
      onKey?.();
      dispatch({ type: 'key', input, key });
    },
    {
      isActive: isRawModeSupported === true,
    },
  );

  const width = props.width;
  const plan = selectedPlan(s);
  let body;
  if (s.mode === 'help') body = <HelpOverlay {...helpProps(s)} />;
  else if (s.mode === 'compare')
    body = <CompareView {...compareProps(compareSet(s), width, s.height)} />;
  else if (s.result.plans.length === 0 && s.mode !== 'edit')
    body = <NothingFits {...nothingFitsProps(s.result, width)} />;
  else
    body = (
      <>
        <PlanTable {...tableProps(s, width)} />
        {s.mode === 'edit' ? <EditPanel {...editProps(s)} /> : null}
        {s.mode !== 'edit' && detailShown(s.height, s.detail, width) && plan ? (
          <DetailPane {...detailProps(plan, s.result, width)} />
        ) : null}
      </>
    );
  return (
    <Box flexDirection="column" width={width}>
      <Text bold wrap="truncate">
        {headerText(s, width)}
      </Text>
      {body}
      {s.mode === 'search' ? (
        <Prompt label="search:" draft={s.draft} hint="Enter keep · Esc clear" />
      ) : null}
      {s.mode === 'export' ? (
        <Prompt label="export to:" draft={s.draft} hint="Tab format · Enter write · Esc cancel" />
      ) : null}
      <Text
        dimColor={!s.status}
        color={s.status?.kind === 'error' ? 'red' : undefined}
        wrap="truncate"
      >
        {footerText(s, width)}
      </Text>
    </Box>
  );
}
