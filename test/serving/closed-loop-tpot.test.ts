// A closed loop of equal requests (vllm bench serve --max-concurrency with --ignore-eos at fixed lengths, every prompt
// sent at once) turns over in rounds: a request's TPOT, (latency - ttft) / (output_len - 1) (vllm/benchmarks/serve.py
// at v0.27.1), holds the round's decode and not its neighbours' prefills, which sit in the round's TTFTs. A tpot_s row
// with num_prompts and equal_lengths is timed so (validate-throughput.ts closedLoopTpotSeconds); every other row keeps
// the steady state's TPOT, which spreads the neighbours' prefills over each request's decode.
import { describe, expect, it } from 'vitest';
import {
  caseInputs,
  closedLoopTpotSeconds,
  throughputRows,
} from '../../src/commands/validate-throughput.js';
import { estimateTime } from '../../src/core/time/index.js';
import { loadThroughputCases } from '../../src/io/load-calibration.js';
import { outputTokensOf } from '../../src/schema/estimate.js';

// kubesimplify's Qwen3-32B bf16 over TP 2 on two RTX PRO 6000, 128 prompts of 1024 in / 256 out at 32 in flight.
const TP2_C32 = 'kubesimplify-qwen3-32b-bf16-2xpro6000-tp2-i1k-o256-c32';

function inputs(id: string) {
  const c = loadThroughputCases().find((x) => x.id === id)!;
  return { c, ...caseInputs(c) };
}

describe('the TPOT of a closed loop of equal requests', () => {
  it("is a round's duration less its mean TTFT over the further tokens, below the steady state's", () => {
    const { options, time, gpu, arch, facts } = inputs(TP2_C32);
    const out = outputTokensOf(options);
    const b = estimateTime(arch, options, gpu, time, facts.pool, false, {
      poolTokens: facts.poolTokens!,
    }).burst!;
    const loop = closedLoopTpotSeconds(arch, options, gpu, time, 128, facts)!;
    expect(loop).toBeCloseTo((b.durationSeconds! - b.ttftMeanSeconds) / (out - 1), 9);
    const steady = estimateTime(arch, options, gpu, time, facts.pool).tpotSeconds!;
    expect(loop).toBeLessThan(steady);
    // The round's decode still pays the prompt chunks its early requests decode beside: above the bare step.
    expect(loop).toBeGreaterThan(estimateTime(arch, options, gpu, time, facts.pool).stepSeconds);
  });

  it('weights a last, smaller round by its requests', () => {
    const { options, time, gpu, arch, facts } = inputs(TP2_C32);
    const whole = closedLoopTpotSeconds(arch, options, gpu, time, 32, facts)!;
    const part = closedLoopTpotSeconds(arch, { ...options, batch: 8 }, gpu, time, 8, facts)!;
    const mixed = closedLoopTpotSeconds(arch, options, gpu, time, 40, facts)!;
    expect(mixed).toBeCloseTo((32 * whole + 8 * part) / 40, 9);
    // One request at a time decodes alone: the steady state's TPOT at one in flight.
    const one = closedLoopTpotSeconds(arch, { ...options, batch: 1 }, gpu, time, 16, facts)!;
    expect(one).toBeCloseTo(
      estimateTime(arch, { ...options, batch: 1 }, gpu, time, facts.pool).tpotSeconds!,
      9,
    );
  });

  it('times only the tpot_s rows that say their requests were equal and sent at once', () => {
    const rows = new Map(throughputRows().map((r) => [r.id, r]));
    const { c, options, time, gpu, arch, facts } = inputs(TP2_C32);
    expect(c.equal_lengths).toBe(true);
    const loop = closedLoopTpotSeconds(arch, options, gpu, time, c.num_prompts!, facts)!;
    expect(rows.get(TP2_C32)!.estimated).toBeCloseTo(loop, 9);
    // A closed loop whose requests were sent at a rate keeps the steady state: adjbench's Qwen3-8B runs.
    const paced = loadThroughputCases().filter(
      (x) => x.id.startsWith('adjbench-') && x.metric === 'tpot_s' && x.num_prompts !== undefined,
    );
    expect(paced.length).toBeGreaterThan(0);
    for (const x of paced) {
      expect(x.equal_lengths).toBeUndefined();
      const i = caseInputs(x);
      const steady = estimateTime(i.arch, i.options, i.gpu, i.time, i.facts.pool).tpotSeconds!;
      expect(rows.get(x.id)!.estimated, x.id).toBeCloseTo(steady, 9);
    }
  });
});
