// vLLM's V0 engine without chunked prefill steps a served burst prefills first: a step that admits waiting requests
// prefills them alone, no decode beside them, within max_num_batched_tokens = max(max_model_len, 2048) where the run
// set none (vllm==0.5.4 wheel: vllm/core/scheduler.py `_schedule_default`, vllm/config.py `SchedulerConfig`). The
// stepped burst (time/length-spread.ts) reads it from the engine profile's `v0Scheduler` (engines/vllm/memory.ts).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { caseInputs } from '../../src/commands/validate-throughput.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import {
  spreadBatchSeconds,
  stepPolicy,
  type LengthShape,
} from '../../src/core/time/length-spread.js';
import { steppedRunOf } from '../../src/core/time/stepped-burst.js';
import { loadThroughputCases } from '../../src/io/load-calibration.js';
import { loadDataset } from '../../src/io/load-catalog.js';
import { outputTokensOf, promptTokensOf } from '../../src/schema/estimate.js';

// LambdaLabsML/vllm-benchmark's vLLM 0.5.4 burst of 640 ShareGPT prompts on one H100 (--max-model-len 2048,
// --max-num-seqs 256): a V0 row that names its dataset, so validate --throughput runs it step by step.
const LAMBDA_V054_BURST640 = 'lambdavllm-l3-8b-h100-vllm054-sharegpt-burst640';

function lambdaRun() {
  const c = loadThroughputCases().find((x) => x.id === LAMBDA_V054_BURST640)!;
  const { options, time, gpu, arch, facts } = caseInputs(c);
  const run = steppedRunOf(options, gpu, time, facts.pool, {
    poolTokens: facts.poolTokens!,
    maxNumSeqs: c.max_num_seqs!,
  })!;
  const d = loadDataset('sharegpt');
  const shape: LengthShape = { levels: d.levels, ...d.samplers.vllm! };
  return { c, options, time, gpu, arch, run, shape };
}

describe("vLLM V0's scheduler in a served burst", () => {
  it('the vLLM profile: prefills first, a step budget of max(max_model_len, 2048); SGLang has no V0 engine', () => {
    const v0 = FRAMEWORKS.vllm.v0Scheduler!;
    expect(v0.prefillFirst).toBe(true);
    expect(v0.batchedTokens(1024)).toBe(2048);
    expect(v0.batchedTokens(2048)).toBe(2048);
    expect(v0.batchedTokens(8192)).toBe(8192);
    expect(FRAMEWORKS.sglang.v0Scheduler).toBeUndefined();
  });

  it("a V0 row's steps take the V0 budget at the run's max_model_len, or the model's positions; V1 keeps its own", () => {
    const { options, time, arch, run } = lambdaRun();
    expect(time.v0Scheduler).toBe(true);
    expect(time.maxModelLen).toBe(2048);
    expect(stepPolicy(arch, options, time, run.budgetTokens)).toEqual({
      alone: true,
      budgetTokens: 2048,
    });
    const noLen = { ...time, maxModelLen: undefined };
    expect(stepPolicy(arch, options, noLen, run.budgetTokens).budgetTokens).toBe(
      Math.max(arch.maxPositions, 2048),
    );
    // Chunked prefill on (or the V1 engine): the decodes share the step and the run's own budget.
    const chunked = { ...time, v0ChunkedPrefill: true };
    expect(stepPolicy(arch, options, chunked, run.budgetTokens)).toEqual({
      alone: false,
      budgetTokens: run.budgetTokens,
    });
    const v1 = { ...time, v0Scheduler: false };
    expect(stepPolicy(arch, options, v1, run.budgetTokens).alone).toBe(false);
  });

  it('640 ShareGPT prompts on 256 slots: each admission pauses the decodes, so the burst and its TPOT run longer', () => {
    const { options, time, gpu, arch, run, shape } = lambdaRun();
    const v0 = spreadBatchSeconds(arch, options, gpu, time, shape, run);
    const shared = spreadBatchSeconds(
      arch,
      options,
      gpu,
      { ...time, v0ChunkedPrefill: true },
      shape,
      run,
    );
    expect(v0.seconds).toBeGreaterThan(1.02 * shared.seconds);
    const tpot = (b: typeof v0) => b.burst.tpotSumSeconds / b.burst.tpotRequests;
    expect(tpot(v0)).toBeGreaterThan(tpot(shared));
  });

  it('more prompts never shorten a V0 burst (at the means; to a step-packing give of 0.1%)', () => {
    const { options, time, gpu, arch, run } = lambdaRun();
    fc.assert(
      fc.property(
        fc.integer({ min: 16, max: 1500 }),
        fc.integer({ min: 2, max: 300 }),
        fc.integer({ min: 2, max: 400 }),
        fc.integer({ min: 1, max: 100 }),
        (prompt, out, batch, more) => {
          const o = { ...options, seq: prompt + out, promptTokens: prompt };
          expect(promptTokensOf(o)).toBe(prompt);
          expect(outputTokensOf(o)).toBe(out);
          const flat: LengthShape = {
            levels: [0, 100],
            prompt: [prompt, prompt],
            output: [out, out],
          };
          const at = (n: number) =>
            spreadBatchSeconds(
              arch,
              { ...o, batch: n },
              gpu,
              time,
              flat,
              { ...run, slots: Math.min(run.slots, n), wave: Math.min(run.wave, n) },
              0,
            ).seconds;
          expect(at(batch + more)).toBeGreaterThanOrEqual(0.999 * at(batch));
        },
      ),
      { numRuns: 25 },
    );
  });
});
