/**
 * The `plan` command's split search (core/plan/types.ts SearchSplit): a search large enough to pay for a
 * worker thread's start runs its second part there, the first on the main thread, and plan() merges the two
 * into the serial result (core/plan/split.ts). The worker loads the program as the CLI does (the bundle with
 * its V8 code cache: load-program.ts), re-reads the scenario's input and builds the same rows, then searches
 * the other half of the rows' blocks. VRAMPLAN_SERIAL=1 keeps every search on the main thread.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { MessageChannel, receiveMessageOnPort, Worker } from 'node:worker_threads';
import type { LoopPart, SearchSplit } from '../core/plan/index.js';
import type { Scenario } from '../schema/scenario.js';
import type { SearchPartJob } from './search-part.js';

/** Set to 1: every search runs on the main thread. */
export const SERIAL_ENV = 'VRAMPLAN_SERIAL';

/**
 * Least search size (configurations x GPU counts x engine variants x power levels: SearchSplit.parts) that is
 * split: measured on the shipped scenarios (docs/performance.md), a worker's start, load and its own rows cost
 * more than half a loop below it.
 */
const MIN_SPLIT_SIZE = 4_000_000;

/** Longest wait for the worker's part: past it the main thread searches the part itself. */
const MAX_WAIT_MS = 300_000;

/**
 * The worker's code: the program as the CLI runs it (bundle or tsc's modules), then its part. Where the
 * program does not load, `done` says the part failed (the main thread searches it). An ES module or a
 * CommonJS script (a worker's eval code is what the main process runs), so only import().
 */
function workerCode(): string | null {
  const here = import.meta.url;
  let run: string;
  if (here.endsWith('.cjs')) {
    // The bundle (dist/vramplan.cjs): load-program.ts evaluates it with its code cache.
    const loader = new URL('./commands/load-program.js', here).href;
    const bundle = JSON.stringify(fileURLToPath(here));
    run = `import(${JSON.stringify(loader)}).then((m) => m.runBundle(${bundle}).program.runSearchPart(job))`;
  } else {
    const part = new URL('./search-part.js', here);
    if (!existsSync(fileURLToPath(part))) return null; // sources under tsx: no split
    run = `import(${JSON.stringify(part.href)}).then((m) => m.runSearchPart(job))`;
  }
  return `import('node:worker_threads').then(({ workerData: job }) => ${run}.catch(() => {
    Atomics.store(job.done, 0, 2);
    Atomics.notify(job.done, 0);
  }));`;
}

/** The split of a `plan` of `scenario` (from `file`), or undefined where it stays serial. */
export function cliSplit(
  file: string,
  scenario: Scenario,
  opts: { top?: number; detected?: readonly string[] },
): SearchSplit | undefined {
  if (process.env[SERIAL_ENV] === '1' || availableParallelism() < 2) return undefined;
  const code = workerCode();
  if (code === null) return undefined;
  let worker: Worker | undefined;
  const { port1, port2 } = new MessageChannel();
  const done = new Int32Array(new SharedArrayBuffer(4));
  return {
    parts(size) {
      if (size < MIN_SPLIT_SIZE) return 1;
      const job: SearchPartJob = {
        file,
        scenario,
        top: opts.top,
        detected: [...(opts.detected ?? [])],
        index: 1,
        parts: 2,
        port: port2,
        done,
      };
      worker = new Worker(code, { eval: true, workerData: job, transferList: [port2] });
      worker.unref();
      worker.on('error', () => {}); // a failed part is searched on the main thread (collect)
      return 2;
    },
    collect() {
      if (!worker) return null;
      Atomics.wait(done, 0, 0, MAX_WAIT_MS);
      const got = Atomics.load(done, 0) === 1 ? receiveMessageOnPort(port1) : undefined;
      port1.close();
      void worker.terminate();
      return got ? [got.message as LoopPart] : null;
    },
  };
}
