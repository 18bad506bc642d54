// One fresh Node process: where a cold `plan` of the benchmark space spends its time (run by scripts/bench.ts
// on the compiled dist/). Prints one JSON line: ms for Node start-up to this script, loading the plan
// path's modules, reading the scenario and catalogs, the first plan() and a second plan() in the same process.
import { performance } from 'node:perf_hooks';

const t0 = performance.now(); // performance.now() counts from the process's start (Node's timeOrigin)
const { planInputOf } = await import('../dist/io/plan-scenario.js');
const { loadScenario } = await import('../dist/io/load-scenario.js');
const { plan } = await import('../dist/core/plan/index.js');
const { loadLaunchers } = await import('../dist/core/engines/registry.js');
await loadLaunchers(); // the planner ranks only what a launcher writes
const t1 = performance.now();
const file = process.argv[2];
const input = planInputOf(file, loadScenario(file), {});
const t2 = performance.now();
plan(input);
const t3 = performance.now();
plan(planInputOf(file, loadScenario(file), {}));
const t4 = performance.now();
console.log(
  JSON.stringify({ start: t0, modules: t1 - t0, inputs: t2 - t1, first: t3 - t2, repeat: t4 - t3 }),
);
