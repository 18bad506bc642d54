/** Worker-thread entry of the explorer's re-plans: runs the one pipeline (io/plan-scenario.ts) off the UI thread. */
import { parentPort, workerData } from 'node:worker_threads';
import { planScenarioObject, type RecentPlan } from './plan-scenario.js';
import type { PlanRequest, PlanReply } from './plan-client.js';
import type { ModelSides, PlanResult } from '../core/plan/index.js';

/** Longest single wait on the client's gate, ms: a hold that is never released costs at most this per slice. */
const MAX_WAIT_MS = 50;

// The client's gate (plan-client.ts hold): 1 while the UI thread draws a key. The search waits at its
// next slice (PlanInput.pause) until the gate opens, so the UI gets the CPU first.
const gate = (workerData as { gate?: Int32Array } | null)?.gate;
const pause = gate
  ? () => {
      if (Atomics.load(gate, 0) !== 0) Atomics.wait(gate, 0, 1, MAX_WAIT_MS);
    }
  : undefined;

// The model sides of this worker's last plans: an edit that leaves them (or returns to one) reuses them.
const recent: ModelSides[] = [];
// The results of its last plans: an edit back to one of them (an undo) gets it again.
const recentPlans: RecentPlan[] = [];
// The requests each kept result answered: a client that still holds one of them is told which instead of
// sent the result again (PlanReply sameAs).
const answered = new WeakMap<PlanResult, number[]>();
/** Requests remembered per kept result: as many as a client holds results (plan-client.ts HELD_RESULTS). */
const ANSWERS_KEPT = 8;

/** The reply with `result` to `req`: which earlier answer it is, where the client holds that one. */
function replyOf(req: PlanRequest, result: PlanResult): PlanReply {
  const ids = answered.get(result) ?? [];
  const held = ids.find((id) => req.held.includes(id));
  answered.set(result, [...ids.slice(1 - ANSWERS_KEPT), req.id]);
  return held === undefined ? { id: req.id, result } : { id: req.id, sameAs: held };
}

const port = parentPort;
if (port) {
  port.on('message', (req: PlanRequest) => {
    const post = (m: PlanReply) => port.postMessage(m);
    planScenarioObject(req.file, req.scenario, {
      top: req.top,
      detected: req.detected,
      onProgress: (p) => post({ id: req.id, progress: p }),
      pause,
      recent,
      recentPlans,
    }).then(
      (result) => post(replyOf(req, result)),
      (e: unknown) => post({ id: req.id, error: e instanceof Error ? e.message : String(e) }),
    );
  });
}
