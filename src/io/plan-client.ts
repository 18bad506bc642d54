/**
 * The explorer's planner: the one pipeline in a worker thread, so the UI keeps drawing while it searches.
 * A new request while one runs cancels it (the busy worker is terminated; the latest edit wins) and goes
 * to a spare worker that was started and warmed in advance, so a burst of edits does not wait on cold starts.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { PlanProgress, PlanResult } from '../core/plan/index.js';
import type { Scenario } from '../schema/scenario.js';

export interface PlanRequest {
  id: number;
  file: string;
  scenario: Scenario;
  top: number;
  detected: readonly string[];
  /** Ids of earlier requests to this worker whose results the client still holds (Slot.results). */
  held: readonly number[];
}

export type PlanReply =
  | { id: number; progress: PlanProgress }
  | { id: number; result: PlanResult }
  /** The result is the one the worker answered request `sameAs` with (an edit back to a kept plan). */
  | { id: number; sameAs: number }
  | { id: number; error: string };

/** Results a client holds per worker: as many as the worker keeps (io/plan-scenario.ts RECENT_PLANS) and some. */
const HELD_RESULTS = 8;

/** Longest hold of the workers for one key, ms. */
const HOLD_MS = 100;

/** Rejection reason of a request that a newer one replaced. */
export class Superseded extends Error {
  constructor() {
    super('superseded by a newer edit');
  }
}

/** The compiled worker (dist/), or the TypeScript source loaded through tsx's loader (tests, `npm run dev`). */
function newWorker(gate: Int32Array): Worker {
  const workerData = { gate };
  const js = new URL('./plan-worker.js', import.meta.url);
  if (existsSync(fileURLToPath(js))) return new Worker(js, { workerData });
  // tsx's ESM entry (the CommonJS one cannot register the loader from a worker).
  const cjs = createRequire(import.meta.url).resolve('tsx/esm/api');
  const tsx = pathToFileURL(cjs.replace(/\.cjs$/, '.mjs')).href;
  const ts = new URL('./plan-worker.ts', import.meta.url).href;
  const boot = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(ts)}); });`;
  return new Worker(boot, { eval: true, workerData });
}

interface Job {
  id: number;
  resolve: (r: PlanResult) => void;
  reject: (e: Error) => void;
  onProgress?: (p: PlanProgress) => void;
}

class Slot {
  readonly worker: Worker;
  job: Job | null = null;
  /** This worker's latest results by request id, oldest first: a `sameAs` reply names one of them. */
  readonly results = new Map<number, PlanResult>();
  constructor(
    gate: Int32Array,
    onReply: (slot: Slot, m: PlanReply) => void,
    onError: (slot: Slot, e: Error) => void,
  ) {
    this.worker = newWorker(gate);
    this.worker.unref();
    this.worker.on('message', (m: PlanReply) => onReply(this, m));
    this.worker.on('error', (e) => onError(this, e));
  }
}

/** What the requests of one explorer session plan against (PlanClient.begin). */
interface Session {
  file: string;
  top: number;
  detected: readonly string[];
  /** Planned once in each fresh worker to warm its JIT (the opening scenario). */
  warmWith?: Scenario;
}

export class PlanClient {
  private active: Slot;
  private spare: Slot | null = null;
  private nextId = 1;
  private closed = false;
  private session: Session | null = null;
  /** Shared with the workers (plan-worker.ts): 1 while a key is being drawn, and their search waits. */
  private readonly gate = new Int32Array(new SharedArrayBuffer(4));
  private fallback: ReturnType<typeof setTimeout> | undefined;

  /** Starts both workers now, so that their module loading overlaps the caller's own start-up. */
  constructor() {
    this.active = this.spawn();
    this.spare = this.spawn();
  }

  /** The session's scenario file (relative paths resolve beside it), plans to rank and detected GPUs. */
  begin(session: Session): void {
    this.session = session;
    for (const slot of [this.active, this.spare]) if (slot) this.warm(slot);
  }

  private warm(slot: Slot): void {
    const scenario = this.session?.warmWith;
    if (scenario) slot.worker.postMessage(this.request(0, scenario, slot));
  }

  private spawn(): Slot {
    const slot = new Slot(
      this.gate,
      (s, m) => this.reply(s, m),
      (s, e) => {
        s.job?.reject(e);
        s.job = null;
      },
    );
    this.warm(slot);
    return slot;
  }

  private request(id: number, scenario: Scenario, slot: Slot): PlanRequest {
    const { file, top, detected } = this.session!;
    return { id, file, scenario, top, detected, held: [...slot.results.keys()] };
  }

  /**
   * A key arrived: the workers pause their search at its next slice until `drawn()` says its frame is out
   * (or HOLD_MS pass: a key that changes nothing draws no frame). On two cores a warming or re-planning
   * worker otherwise takes half the CPU from the frame.
   */
  hold(): void {
    Atomics.store(this.gate, 0, 1);
    clearTimeout(this.fallback);
    this.fallback = setTimeout(() => this.drawn(), HOLD_MS);
    this.fallback.unref(); // quitting on a key must not wait for it
  }

  /** The frame is drawn: the workers go on. */
  drawn(): void {
    clearTimeout(this.fallback);
    if (Atomics.exchange(this.gate, 0, 0) !== 0) Atomics.notify(this.gate, 0);
  }

  private reply(slot: Slot, m: PlanReply): void {
    const job = slot.job;
    if (!job || m.id !== job.id) return; // a warm-up plan, or a cancelled one
    if ('progress' in m) return job.onProgress?.(m.progress);
    slot.job = null;
    if ('error' in m) return job.reject(new Error(m.error));
    const result = 'result' in m ? m.result : slot.results.get(m.sameAs)!;
    slot.results.set(m.id, result);
    if (slot.results.size > HELD_RESULTS) slot.results.delete(slot.results.keys().next().value!);
    job.resolve(result);
  }

  /** Plan `scenario`; a later call cancels this one (its promise rejects with Superseded). */
  plan(scenario: Scenario, onProgress?: (p: PlanProgress) => void): Promise<PlanResult> {
    if (this.closed) return Promise.reject(new Error('planner closed'));
    if (!this.session) return Promise.reject(new Error('planner not begun'));
    if (this.active.job) {
      const stale = this.active;
      stale.job!.reject(new Superseded());
      stale.job = null;
      void stale.worker.terminate();
      this.active = this.spare ?? this.spawn();
      this.spare = this.spawn();
    }
    const id = this.nextId++;
    return new Promise<PlanResult>((resolve, reject) => {
      this.active.job = { id, resolve, reject, onProgress };
      this.active.worker.postMessage(this.request(id, scenario, this.active));
    });
  }

  close(): void {
    this.closed = true;
    this.drawn();
    for (const slot of [this.active, this.spare]) {
      if (!slot) continue;
      slot.job?.reject(new Superseded());
      slot.job = null;
      void slot.worker.terminate();
    }
  }
}
