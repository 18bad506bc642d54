// The explorer's planner workers give the UI the CPU: while a key is held (hold() until drawn()), their
// search waits at its next slice; it goes on, to the same answer, once the frame is drawn. An edit back to a
// scenario a worker planned lately gets the result the client already holds.
import { afterAll, describe, expect, it } from 'vitest';
import { plan } from '../../src/core/plan/index.js';
import { PlanClient } from '../../src/io/plan-client.js';
import { planInputOf, planScenarioObject } from '../../src/io/plan-scenario.js';
import { loadScenario } from '../../src/io/load-scenario.js';
import { planJson } from '../../src/ui/plan-json.js';
import type { Scenario } from '../../src/schema/scenario.js';

const FILE = 'scenarios/default.yaml';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const planner = new PlanClient();
afterAll(() => planner.close());

describe('PlanClient', () => {
  it('pauses the search while a key is held and finishes it, unchanged, once the frame is drawn', async () => {
    const scenario = loadScenario(FILE);
    planner.begin({ file: FILE, top: 5, detected: [] });
    await planner.plan(scenario); // boots and warms the worker
    // Another scenario, so the worker searches (it answers a scenario it planned lately with that plan).
    const edited = { ...scenario, job: { ...scenario.job, seq: 1024 } } as Scenario;
    const free = await planScenarioObject(FILE, edited, { top: 5 });
    // Held for 400 ms (each hold lasts at most 100 ms unless renewed): a warm worker plans this in far less.
    planner.hold();
    const renew = setInterval(() => planner.hold(), 30);
    let done = false;
    const held = planner.plan(edited).then((r) => ((done = true), r));
    await sleep(400);
    clearInterval(renew);
    expect(done).toBe(false);
    const t0 = performance.now();
    planner.drawn();
    const r = await held;
    expect(performance.now() - t0).toBeLessThan(60_000); // a hang detector, not a speed check
    expect(planJson(r)).toEqual(planJson(free));
  });

  it('answers an edit back to a scenario it planned lately with the result it holds', async () => {
    const scenario = loadScenario(FILE);
    const up = { ...scenario, job: { ...scenario.job, seq: 4096 } } as Scenario;
    const first = await planner.plan(scenario);
    const other = await planner.plan(up);
    const back = await planner.plan(scenario);
    const again = await planner.plan(up);
    // The worker names the earlier answer instead of sending the plan again: the very objects come back.
    expect(back).toBe(first);
    expect(again).toBe(other);
    expect(planJson(back)).toEqual(planJson(await planScenarioObject(FILE, scenario, { top: 5 })));
    expect(planJson(again)).toEqual(planJson(await planScenarioObject(FILE, up, { top: 5 })));
  });

  it('lets a hold lapse when no frame is drawn', async () => {
    const scenario = loadScenario(FILE);
    planner.hold(); // a key that changes nothing: no drawn() follows
    const r = await planner.plan(scenario);
    expect(r.plans.length).toBeGreaterThan(0);
  });
});

describe('plan pause hook', () => {
  it('is called between slices and leaves the result unchanged', () => {
    const input = planInputOf(FILE, loadScenario(FILE), { top: 5 });
    let calls = 0;
    const paused = plan({ ...input, pause: () => void calls++ });
    expect(calls).toBeGreaterThan(10);
    expect(planJson(paused)).toEqual(planJson(plan(input)));
  });
});
