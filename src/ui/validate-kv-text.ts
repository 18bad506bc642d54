/** The KV-cache section of `validate` (calibration/kv-cache.json): vLLM startup logs beside the estimate. */
import type { KvCacheRow } from '../core/memory/index.js';
import { padLeft, padRight, signedPercent } from './format.js';

export function renderKvCacheSection(rows: readonly KvCacheRow[]): string[] {
  const out = [
    'KV cache: vLLM startup logs (calibration/kv-cache.json), pool / tokens vs estimate, bytes per token per GPU',
    `${padRight('case', 30)}${padRight('model', 34)}${padLeft('tp', 4)}${padLeft('logged', 10)}${padLeft('estimate', 10)}${padLeft('error', 9)}`,
  ];
  for (const r of rows)
    out.push(
      `${padRight(r.id, 30)}${padRight(r.model, 34)}${padLeft(String(r.tp), 4)}${padLeft(r.measuredBytesPerToken.toLocaleString('en-US'), 10)}${padLeft(r.estimatedBytesPerToken.toLocaleString('en-US'), 10)}${padLeft(signedPercent(r.error), 9)}`,
    );
  return out;
}
