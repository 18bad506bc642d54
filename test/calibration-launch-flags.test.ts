// A serving row whose quoted launch sets the engine's memory share (vLLM --gpu-memory-utilization, SGLang
// --mem-fraction-static) or its running-sequence cap (vLLM --max-num-seqs) carries the value in the field the estimate
// reads (pool_fraction, max_num_seqs: validate-throughput.ts casePool), so the pool and the profile are sized as run.
import { describe, expect, it } from 'vitest';
import { loadThroughputCases } from '../src/io/load-calibration.js';

/** The first memory-share flag a row's quote or notes give with a value (`--flag 0.9`, `--flag=0.9`). */
const POOL_FLAG =
  /(?:--gpu-memory-utilization|--gpu_memory_utilization|--mem-fraction-static)[= ]+(\d*\.\d+)/;
/** vLLM's running-sequence cap with a value (`--max-num-seqs 64`, `--max_num_seqs=64`, the `--max-num-seq` prefix). */
const SEQS_FLAG = /--(?:max-num-seqs?|max_num_seqs)[= ]+(\d+)/;

const cases = loadThroughputCases('throughput.json').filter((c) => c.kind === 'decode');
/** A row's quote or notes as text (the schema keeps a quote it does not declare as unknown). */
const text = (x: unknown): string => (typeof x === 'string' ? x : '');
const quoted = (c: (typeof cases)[number], flag: RegExp): string | undefined =>
  flag.exec(text(c.quote))?.[1] ?? flag.exec(text(c.notes))?.[1];

describe('serving rows carry the launch flags they quote', () => {
  it("a quoted --gpu-memory-utilization or --mem-fraction-static is the row's pool_fraction", () => {
    const rows = cases.filter((c) => quoted(c, POOL_FLAG) !== undefined);
    expect(rows.length).toBeGreaterThan(100);
    const missing = rows
      .filter((c) => c.pool_fraction !== Number(quoted(c, POOL_FLAG)))
      .map((c) => `${c.id}: quotes ${quoted(c, POOL_FLAG)}, pool_fraction ${c.pool_fraction}`);
    expect(missing).toEqual([]);
  });

  it("a vLLM row's quoted --max-num-seqs is its max_num_seqs", () => {
    const rows = cases.filter((c) => c.framework === 'vllm' && quoted(c, SEQS_FLAG) !== undefined);
    expect(rows.length).toBeGreaterThan(30);
    const missing = rows
      .filter((c) => c.max_num_seqs !== Number(quoted(c, SEQS_FLAG)))
      .map((c) => `${c.id}: quotes ${quoted(c, SEQS_FLAG)}, max_num_seqs ${c.max_num_seqs}`);
    expect(missing).toEqual([]);
  });

  it('the patterns read the forms the sources print, and not a flag named without a value', () => {
    expect(POOL_FLAG.exec('vllm serve m --gpu-memory-utilization 0.85 --x')?.[1]).toBe('0.85');
    expect(POOL_FLAG.exec('--gpu_memory_utilization=0.8 --max-model-len=10000')?.[1]).toBe('0.8');
    expect(POOL_FLAG.exec('--mem-fraction-static=0.8 --disable-radix-cache')?.[1]).toBe('0.8');
    expect(POOL_FLAG.exec('no --max-model-len or --gpu-memory-utilization given')).toBeNull();
    expect(SEQS_FLAG.exec('--guided-decoding-backend guidance --max-num-seq 30 ...')?.[1]).toBe(
      '30',
    );
    expect(SEQS_FLAG.exec('--max-num-seqs 1 --no-enable-prefix-caching')?.[1]).toBe('1');
  });
});
