// Explorer latency, part of `npm run bench`: the built explorer on scenarios/default.yaml, drawn by
// ink-testing-library, re-planning in its worker as `vramplan plan --tui` does. Prints the p90 of
// key move → redrawn frame, of knob edit (sequence length ± one step) → the re-planned ranking drawn, and of edits
// to views never planned before (GPU count + 1 a step), which no kept result answers.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// What `vramplan explore` runs (commands/tui.ts openTui): the planner workers start first, then the
// compiled explorer in dist/ loads (build first) under React's production build, as cli.ts selects it. The
// tree is built with createElement: tsx compiles JSX here to React's development runtime, whose production
// build has no jsxDEV.
process.env.NODE_ENV = 'production';
const FILE = 'scenarios/default.yaml';
const dist = '../dist/';
const { PlanClient } = (await import(
  `${dist}io/plan-client.js`
)) as typeof import('../src/io/plan-client.js');
const { loadScenario } = (await import(
  `${dist}io/load-scenario.js`
)) as typeof import('../src/io/load-scenario.js');
const scenario = loadScenario(FILE);
const planner = new PlanClient();
const { createElement } = await import('react');
const { render } = await import('ink-testing-library');
const { Explorer } = (await import(
  `${dist}ui/tui/Explorer.js`
)) as typeof import('../src/ui/tui/Explorer.js');
const { exportTo, launchTo, openExplorer } = (await import(
  `${dist}commands/explore-run.js`
)) as typeof import('../src/commands/explore-run.js');

const p90 = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)]!;
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const tick = () => new Promise((r) => setImmediate(r));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Milliseconds until `done()` holds, polled every event-loop turn (throws after 10 s). */
async function until(done: () => boolean): Promise<number> {
  const t0 = performance.now();
  while (!done()) {
    if (performance.now() - t0 > 10_000) throw new Error('explorer bench: no redraw within 10 s');
    await tick();
  }
  return performance.now() - t0;
}

const dir = mkdtempSync(join(tmpdir(), 'vramplan-bench-'));
const session = await openExplorer(FILE, {}, { scenario, planner });
const ui = render(
  createElement(Explorer, {
    file: FILE,
    scenario: session.scenario,
    result: session.result,
    width: 100,
    height: 30,
    replan: (s, onProgress) => session.planner.plan(s, onProgress),
    exportTo,
    launchTo: (plan, scenario) => launchTo(FILE, plan, scenario, dir),
    onQuit: () => {},
    onKey: () => session.planner.hold(),
    onDrawn: () => session.planner.drawn(),
  }),
);
const frame = () => ui.lastFrame() ?? '';
await until(() => frame() !== '');
await sleep(100); // Ink attaches its input listener in an effect after the first frame

const moves: number[] = [];
for (let i = 0; i < 60; i++) {
  const before = frame();
  ui.stdin.write(i % 2 === 0 ? 'j' : 'k');
  const ms = await until(() => frame() !== before);
  if (i >= 10) moves.push(ms); // the first moves run unoptimized code
  await sleep(5);
}

ui.stdin.write('i'); // edit knobs: model, GPU, count, methods, sequence length, ...
await sleep(50);
for (let i = 0; i < 4; i++) {
  ui.stdin.write('j');
  await sleep(20);
}
const edits: number[] = [];
for (let i = 0; i < 24; i++) {
  ui.stdin.write(i % 2 === 0 ? '\u001b[C' : '\u001b[D'); // → then ←: sequence length up, back down
  await until(() => !frame().includes('re-planned in')); // the edit is drawn, the re-plan started
  const ms = await until(() => frame().includes('re-planned in'));
  if (i >= 4) edits.push(ms); // the first edits warm the worker's JIT
  await sleep(20);
}
// Edits to views never planned before (GPU count +1 each time): no kept result answers them.
ui.stdin.write('k');
await sleep(20);
ui.stdin.write('k'); // the count knob
await sleep(20);
const fresh: number[] = [];
for (let i = 0; i < 12; i++) {
  ui.stdin.write('\u001b[C');
  await until(() => !frame().includes('re-planned in'));
  const ms = await until(() => frame().includes('re-planned in'));
  if (i >= 2) fresh.push(ms);
  await sleep(20);
}
const edited = /\(edited: ([^)]*)\)/.exec(frame())?.[1] ?? 'no edit';
ui.unmount();
session.planner.close();
rmSync(dir, { recursive: true, force: true });

const fmt = (xs: number[]) =>
  `median ${median(xs).toFixed(0)} ms, p90 ${p90(xs).toFixed(0)} ms (${xs.length} runs)`;
console.log(`explorer key move → redraw:  ${fmt(moves)}   (target p90 < 16 ms)`);
console.log(
  `explorer knob edit → re-plan: ${fmt(edits)}   (target p90 < 100 ms; back and forth between two views)`,
);
console.log(
  `explorer knob edit to a view never planned → re-plan: ${fmt(fresh)}   (target p90 < 100 ms; GPU count +1 a step, to ${edited})`,
);
