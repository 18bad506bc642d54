/** Worker-thread entry of the explorer's re-plans: runs the one pipeline (io/plan-scenario.ts) off the UI thread. */
import { parentPort } from 'node:worker_threads';
import { planScenarioObject } from './plan-scenario.js';
import type { PlanRequest, PlanReply } from './plan-client.js';

const port = parentPort;
if (port) {
  port.on('message', (req: PlanRequest) => {
    const post = (m: PlanReply) => port.postMessage(m);
    planScenarioObject(req.file, req.scenario, {
      top: req.top,
      detected: req.detected,
      onProgress: (p) => post({ id: req.id, progress: p }),
    }).then(
      (result) => post({ id: req.id, result }),
      (e: unknown) => post({ id: req.id, error: e instanceof Error ? e.message : String(e) }),
    );
  });
}
