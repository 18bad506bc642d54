// A saturated burst the KV pool or the running cap cannot hold at once, as `validate --throughput` times it
// (commands/validate-throughput.ts steppedBurstSeconds): step by step at the means, in whole waves.
import { describe, expect, it } from 'vitest';
import { casePool, steppedBurstSeconds } from '../../src/commands/validate-throughput.js';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { staticBatchSeconds } from '../../src/core/time/serving-request.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { timeOptionsFromFlags } from '../../src/schema/time.js';

const setup = (flags: Record<string, unknown>) => {
  const o = withEngineDefaults(optionsFromFlags(flags), flags);
  return { o, t: timeOptionsFromFlags(flags, o), gpu: findGpu(String(flags.gpu)) };
};

describe('a burst in waves of the sequences the engine runs', () => {
  it('300 requests on 256 slots run two waves, the second of 44 decoding its 600 tokens alone', () => {
    const flags = {
      method: 'inference',
      framework: 'vllm',
      batch: 300,
      seq: 700,
      'prompt-tokens': 100,
      gpu: 'rtx-4090',
    };
    const { o, t, gpu } = setup(flags);
    const arch = resolveModel('calibration/configs/Qwen__Qwen2.5-1.5B.json');
    const c = { max_num_seqs: 256 };
    const facts = casePool(c, arch, o, gpu, t);
    expect(facts.pool).toBe(256);
    const stepped = steppedBurstSeconds(c, arch, o, gpu, t, facts)!;
    const wave = (batch: number) => staticBatchSeconds(arch, { ...o, batch }, gpu, t);
    // The pool's queue of 300 / 256 waves of 256 undercounts the second wave's 600 steps.
    expect(stepped).toBeGreaterThan((300 / 256) * wave(256) * 1.2);
    expect(stepped).toBeGreaterThanOrEqual(0.97 * (wave(256) + wave(44)));
  });

  it('a burst the pool holds at once starts as the budget admits it; one request or V0 keeps the static batch', () => {
    const flags = {
      method: 'inference',
      framework: 'vllm',
      batch: 100,
      seq: 2100,
      'prompt-tokens': 2000,
      gpu: 'rtx-4090',
    };
    const { o, t, gpu } = setup(flags);
    const arch = resolveModel('calibration/configs/Qwen__Qwen2.5-1.5B.json');
    const facts = casePool({}, arch, o, gpu, t);
    expect(facts.pool).toBe(100);
    // 100 prompts of 2,000 tokens through 2,048 a step: about a hundred steps before the last prompt's first token,
    // its 99 further tokens after; never shorter than the static batch's prefill of all of them, then 99 steps.
    const stepped = steppedBurstSeconds({}, arch, o, gpu, t, facts)!;
    expect(stepped).toBeGreaterThanOrEqual(staticBatchSeconds(arch, o, gpu, t));
    const one = { ...o, batch: 1 };
    expect(
      steppedBurstSeconds({}, arch, one, gpu, t, casePool({}, arch, one, gpu, t)),
    ).toBeUndefined();
    const v0 = { ...t, v0Scheduler: true };
    expect(steppedBurstSeconds({}, arch, o, gpu, v0, facts)).toBeUndefined();
  });
});
