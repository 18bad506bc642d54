// Two pieces of SGLang's scheduler work per prefill step that grow with the burst, timed on the CPU and held against
// the one burst long enough for them to matter (docs/time-model.md "The host side: small models"):
// - get_new_batch_prefill rebuilds its waiting queue after every admission with
//   `[x for x in self.waiting_queue if x not in set(can_run_list)]` (managers/scheduler.py of the sglang 0.4.3.post2
//   and 0.5.5.post1 wheels): a set of the C admitted requests per waiting request
//   (scripts/measure/sglang_waiting_queue_rebuild.py);
// - RadixCache.evict walks every cached leaf once the pool is full (scripts/measure/sglang_radix_evict.py).
// Both are seconds there, and together a small share of the measured duration. So is a third, in the TokenizerManager:
// every prompt in flight wakes every 4 s in _wait_one_response (managers/tokenizer_manager.py:416-423) to ask
// starlette whether its client left (scripts/measure/sglang_wait_response_wakeups.py).
import { describe, expect, it } from 'vitest';
import { loadThroughputCases } from '../../src/io/load-calibration.js';
import { caseInputs } from '../../src/commands/validate-throughput.js';
import { readMeasureFixture } from '../helpers/measured.js';

interface Point {
  waiting: number;
  admitted: number;
  per_waiting_us: number;
}
const measured = readMeasureFixture('sglang-waiting-queue-rebuild.json') as {
  results: Point[];
  fit_us: { per_waiting: number; per_waiting_per_admitted: number };
};
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

// RadixCache.evict over a tree of M cached prompts (scripts/measure/sglang_radix_evict.py, the 0.4.3.post2 wheel's
// mem_cache/radix_cache.py): the walk of every leaf, the heapify and the pops, once per prefill step once the pool is
// full of finished prompts.
interface EvictPoint {
  leaves: number;
  evict_ms: number;
}
const evictMeasured = readMeasureFixture('sglang-radix-evict.json') as {
  results: EvictPoint[];
  prompt_tokens: number;
};
const largest = evictMeasured.results[evictMeasured.results.length - 1]!;
/** Seconds of one evict call on a tree of `leaves` prompts: linear through the largest measured tree. */
const evictSeconds = (leaves: number) => (largest.evict_ms * 1e-3 * leaves) / largest.leaves;

/**
 * The evictions' CPU seconds over the single-token burst: each prompt leaves its `prompt` tokens cached, so once
 * `pool` tokens are cached every further prefill step evicts over pool / prompt leaves.
 */
function evictionSeconds(requests: number, prompt: number, pool: number, chunk: number): number {
  const leaves = Math.floor(pool / prompt);
  const stepsAfterFull = Math.max(0, requests - leaves) / (chunk / prompt);
  return stepsAfterFull * evictSeconds(leaves);
}

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
    const requests = row.flags['batch'] as number;
    const bound = rebuildUpperBoundSeconds(requests, prompt, SGLANG_043_CHUNK_TOKENS);
    expect(bound).toBeGreaterThan(1);
    expect(bound).toBeLessThan(row.measured_value / 10);
  });

  it("with the radix cache's evictions once the pool is full, still under a fifth of the measured duration", () => {
    const first = evictMeasured.results[0]!;
    // the walk covers every leaf: nine times the tree, four to twenty times the time
    expect(largest.evict_ms / first.evict_ms).toBeGreaterThan(4);
    expect(largest.evict_ms / first.evict_ms).toBeLessThan(20);
    const row = loadThroughputCases('throughput.json').find((c) => c.id === SINGLE_TOKEN_ROW)!;
    const prompt = row.flags['prompt-tokens'] as number;
    const requests = row.flags['batch'] as number;
    expect(requests).toBe(25000);
    expect(prompt).toBe(evictMeasured.prompt_tokens);
    const pool = caseInputs(row).facts.poolTokens!;
    const evictions = evictionSeconds(requests, prompt, pool, SGLANG_043_CHUNK_TOKENS);
    expect(evictions).toBeGreaterThan(1);
    const both = evictions + rebuildUpperBoundSeconds(requests, prompt, SGLANG_043_CHUNK_TOKENS);
    expect(both).toBeLessThan(row.measured_value / 5);
  });

  it("and the TokenizerManager's 4-second wake-ups of every prompt in flight, bounded by the run's mean latency", () => {
    const wake = readMeasureFixture('sglang-wait-response-wakeups.json') as {
      results: { us_per_wakeup: number }[];
    };
    const perWakeup = Math.max(...wake.results.map((r) => r.us_per_wakeup)) * 1e-6;
    const row = loadThroughputCases('throughput.json').find((c) => c.id === SINGLE_TOKEN_ROW)!;
    const requests = row.flags['batch'] as number;
    // a prompt waits no longer than its HTTP request: benchmark.py's "Avg Latency" over the 100 requests
    const avgLatency = Number(/Avg Latency:\s*([\d.]+)/.exec(row.quote as string)![1]);
    expect(avgLatency).toBeGreaterThan(10);
    const wakeSeconds = ((requests * avgLatency) / 4) * perWakeup;
    expect(wakeSeconds).toBeGreaterThan(1);
    expect(wakeSeconds).toBeLessThan(row.measured_value / 4);
  });

  it('is milliseconds in a 1,000-request burst of 128-token prompts', () => {
    expect(rebuildUpperBoundSeconds(1000, 128, SGLANG_043_CHUNK_TOKENS)).toBeLessThan(0.05);
  });
});
