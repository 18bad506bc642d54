/** A progress line on stderr for searches that run longer than ~300 ms, only when stderr is a terminal. */
import type { PlanProgress } from '../core/plan/index.js';

/** Searches quicker than this draw nothing. */
export const PROGRESS_AFTER_MS = 300;

export interface ProgressLine {
  update: (p: PlanProgress) => void;
  /** Erase the line (if one was drawn). */
  done: () => void;
}

/** null when stderr is not a terminal (pipes, CI logs and --json consumers see nothing). */
export function stderrProgress(
  label: string,
  out: NodeJS.WriteStream = process.stderr,
  clock: () => number = () => performance.now(),
): ProgressLine | null {
  if (!out.isTTY) return null;
  const t0 = clock();
  let drawn = false;
  let last = 0;
  return {
    update: (p) => {
      const now = clock();
      if (now - t0 < PROGRESS_AFTER_MS || now - last < 100) return;
      last = now;
      drawn = true;
      const pct = p.total > 0 ? Math.floor((100 * p.done) / p.total) : 0;
      out.write(
        `\r\u001b[2Kplanning ${label}: ${pct}% of ${p.total.toLocaleString('en-US')} configurations`,
      );
    },
    done: () => {
      if (drawn) out.write('\r\u001b[2K');
    },
  };
}
