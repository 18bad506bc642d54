// A vLLM V0 row whose server ran with --enable-chunked-prefill (the case's chunked_prefill): the V0 scheduler batches
// the running decodes and then prefill chunks into one forward (vllm-project/vllm docs/source/models/performance.rst,
// "Chunked Prefill"), so a neighbour's prefill shares the decode step's read of the weights.
import { describe, expect, it } from 'vitest';
import { caseInputs } from '../../src/commands/validate-throughput.js';
import { estimateTime } from '../../src/core/time/index.js';
import { loadThroughputCases } from '../../src/io/load-calibration.js';

const row = (id: string) => {
  const c = loadThroughputCases('throughput.json').find((x) => x.id === id);
  if (c === undefined) throw new Error(`no row ${id}`);
  return c;
};

describe("a V0 server's chunked prefill", () => {
  it('the case field sets the time option on V0 rows only', () => {
    const c = row('crusoe-l31-8b-bf16-l40s-qps9');
    expect(c.scheduler).toBe('v0');
    expect(caseInputs(c).time.v0ChunkedPrefill).toBe(true);
    expect(caseInputs({ ...c, scheduler: 'serial' }).time.v0ChunkedPrefill).toBeUndefined();
    // vllm-project/vllm#6677's server left chunked prefill off (an 8K-context model): a prefill step of its own.
    expect(
      caseInputs(row('vllm6677-l3-8b-fp8-l40s-cutlass-qps1')).time.v0ChunkedPrefill,
    ).toBeUndefined();
  });

  it('77 in flight on an L40S: the neighbours no longer read the weights again, so the TPOT falls', () => {
    const { options, time, gpu, arch, facts } = caseInputs(row('crusoe-l31-8b-bf16-l40s-qps9'));
    const chunked = estimateTime(arch, options, gpu, time, facts.pool).tpotSeconds ?? 0;
    const own = estimateTime(
      arch,
      options,
      gpu,
      { ...time, v0ChunkedPrefill: false },
      facts.pool,
    ).tpotSeconds;
    // 76 neighbours' prefills over 150 output tokens, each sparing one read of 15 GB of weights at the card's
    // modelled rate (about 24 ms): about 12 ms a token.
    expect((own ?? 0) - chunked).toBeGreaterThan(8e-3);
  });
});
