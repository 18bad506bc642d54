// SGLang's get_new_batch_prefill rebuilds its waiting queue after every prefill admission with
// `[x for x in self.waiting_queue if x not in set(can_run_list)]` (managers/scheduler.py of the sglang 0.4.3.post2 and
// 0.5.5.post1 wheels): a set of the C admitted requests per waiting request. The fixture times that line on the CPU
// (scripts/measure/sglang_waiting_queue_rebuild.py). These tests hold docs/time-model.md's reading of it against the
// one burst whose queue is long enough for it to matter: it is seconds there, and still a small share of the gap.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadThroughputCases } from '../../src/io/load-calibration.js';

interface Point {
  waiting: number;
  admitted: number;
  per_waiting_us: number;
}
const measured = JSON.parse(
  readFileSync(
    new URL('../fixtures/measure/sglang-waiting-queue-rebuild.json', import.meta.url),
    'utf8',
  ),
) as { results: Point[]; fit_us: { per_waiting: number; per_waiting_per_admitted: number } };
const { per_waiting: a, per_waiting_per_admitted: b } = measured.fit_us;

// chunked_prefill_size 8192 on a card of 25 GB or more (sglang 0.4.3.post2 srt/server_args.py): the prompts a prefill
// step admits, the last of them chunked.
const SGLANG_043_CHUNK_TOKENS = 8192;

/**
 * The rebuild's CPU seconds over a burst of `requests` prompts of `prompt` tokens, every one of them waiting from the
 * start (the longest the queue can be): the k-th step admits `perStep` and sees the rest waiting.
 */
function rebuildUpperBoundSeconds(requests: number, prompt: number, chunk: number): number {
  const perStep = chunk / prompt;
  const admitted = Math.ceil(perStep);
  let total = 0;
  for (let waiting = requests; waiting > 0; waiting -= perStep)
    total += waiting * (a + b * admitted);
  return total * 1e-6;
}

const SINGLE_TOKEN_ROW = 'rgshaw-qwen25-05b-h100-sglang043-burst25000-o1';

describe("SGLang's waiting-queue rebuild per prefill admission", () => {
  it('grows with the admitted count as the fit says (within 30% at 4 or more admitted)', () => {
    for (const p of measured.results.filter((r) => r.admitted >= 4)) {
      const ratio = p.per_waiting_us / (a + b * p.admitted);
      expect(ratio).toBeGreaterThan(0.7);
      expect(ratio).toBeLessThan(1.3);
    }
    expect(b).toBeGreaterThan(0);
  });

  it('costs seconds in the 25,000-prompt single-token burst, yet under a tenth of its measured duration', () => {
    const row = loadThroughputCases('throughput.json').find((c) => c.id === SINGLE_TOKEN_ROW)!;
    const prompt = row.flags['prompt-tokens'] as number;
    const bound = rebuildUpperBoundSeconds(row.batch, prompt, SGLANG_043_CHUNK_TOKENS);
    expect(bound).toBeGreaterThan(1);
    expect(bound).toBeLessThan(row.measured_value / 10);
  });

  it('is milliseconds in a 1,000-request burst of 128-token prompts', () => {
    expect(rebuildUpperBoundSeconds(1000, 128, SGLANG_043_CHUNK_TOKENS)).toBeLessThan(0.05);
  });
});
