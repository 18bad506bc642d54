/** What `plan --json` prints: the PlanResult with sentences beside the codes. */
import type { PlanResult } from '../core/plan/index.js';
import { REASON_LABEL, fixSentence, sloNearestSentence } from './plan-messages.js';

export function planJson(r: PlanResult): unknown {
  return {
    ...r,
    pruned: r.pruned.map((p) => ({ ...p, message: REASON_LABEL[p.code] })),
    nearestFixes: r.nearestFixes.map((f) => ({ ...f, message: fixSentence(f) })),
    ...(r.sloNearest
      ? { sloNearest: { ...r.sloNearest, message: sloNearestSentence(r.sloNearest) } }
      : {}),
  };
}
