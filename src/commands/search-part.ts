/** A worker thread's part of a split `plan` search (split-search.ts): the same input, one part, handed back. */
import type { MessagePort } from 'node:worker_threads';
import { searchPart } from '../core/plan/index.js';
import { loadLaunchers } from '../core/engines/registry.js';
import { planInputOf } from '../io/plan-scenario.js';
import type { Scenario } from '../schema/scenario.js';

/** What the main thread sends a part's worker (structured clone). */
export interface SearchPartJob {
  file: string;
  scenario: Scenario;
  top: number | undefined;
  detected: string[];
  index: number;
  parts: number;
  /** The main thread reads the part here (receiveMessageOnPort) once `done` says so. */
  port: MessagePort;
  /** 0 while the part runs, 1 when it was posted, 2 when it failed (the main thread then searches it). */
  done: Int32Array;
}

export async function runSearchPart(job: SearchPartJob): Promise<void> {
  let state = 2;
  try {
    await loadLaunchers(); // the search ranks only what a launcher writes, as plan-scenario.ts loads them
    const input = planInputOf(job.file, job.scenario, { top: job.top, detected: job.detected });
    const part = searchPart(input, job.index, job.parts);
    const buffers = [part.reasons, part.plans, part.start, part.seqs].map((a) => a.buffer);
    job.port.postMessage(part, buffers as ArrayBuffer[]);
    state = 1;
  } finally {
    Atomics.store(job.done, 0, state);
    Atomics.notify(job.done, 0);
    job.port.close();
  }
}
