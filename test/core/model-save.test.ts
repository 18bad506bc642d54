/**
 * A model save inside a timed run (TimeOptions.savesPerStep, set by `validate --throughput` from a row's timed_saves
 * over timed_steps): under ZeRO-3 the consolidated 16-bit state dict gathers every parameter module by module, copies
 * it to rank 0's host and broadcasts it back (time/model-save.ts).
 */
import { describe, expect, it } from 'vitest';
import '../../src/core/engines/registry.js';
import { estimateTime, modelFacts } from '../../src/core/time/index.js';
import { gpuRates } from '../../src/core/time/hardware.js';
import { consolidatedSaveSeconds } from '../../src/core/time/model-save.js';
import { PAGEABLE_COPY_SHARE } from '../../src/core/time/offload-work.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { timeOptionsFromFlags } from '../../src/schema/time.js';

// The QwenLM/Qwen3#736 harness's shape: LoRA r 64 on every linear, ZeRO-3 over 8 H100 SXM, 8 micro-batches a step.
const FLAGS = {
  method: 'lora',
  'lora-rank': 64,
  'lora-targets': 'q,k,v,o,gate,up,down',
  batch: 1,
  'grad-accum': 8,
  seq: 512,
  checkpointing: 'full',
  attention: 'sdpa',
  zero: 3,
  gpus: 8,
  gpu: 'h100-sxm',
  framework: 'hf-deepspeed',
} as const;

describe('a consolidated 16-bit save inside a timed run (savesPerStep)', () => {
  const arch = resolveModel('qwen2.5-72b');
  const m = modelFacts(arch);
  const gpu = findGpu('h100-sxm');
  const o = optionsFromFlags(FLAGS);
  const t = timeOptionsFromFlags(FLAGS, o);
  const r = gpuRates(gpu, t);
  const layout = { gpus: 8, zeroRanks: 8, tp: 1, pp: 1 };

  it('copies every 16-bit weight to the host once, frozen ones included, and moves each over the links twice', () => {
    const save = consolidatedSaveSeconds(m, o, layout, r);
    const bytes = 2 * m.total;
    // `.cpu()` lands in pageable memory: the host copy at the pageable share of the link's rate; the gather and the
    // broadcast back add two passes at the bus rate.
    const host = bytes / (r.host * PAGEABLE_COPY_SHARE);
    expect(save).toBeGreaterThan(host + bytes / r.intraMany);
    expect(save).toBeLessThan(1.2 * (host + 2 * (bytes / r.intraMany)));
  });

  it('takes the host copy at the pageable rate, not the pinned one', () => {
    const save = consolidatedSaveSeconds(m, o, layout, r);
    const bytes = 2 * m.total;
    // At the pinned rate the whole save (host copy, gather, broadcast) stays under twice the pinned host copy.
    expect(save).toBeGreaterThan(bytes / r.host / PAGEABLE_COPY_SHARE);
  });

  it('saves nothing extra below ZeRO-3 or on one rank', () => {
    const zero2 = optionsFromFlags({ ...FLAGS, zero: 2 });
    expect(consolidatedSaveSeconds(m, zero2, layout, r)).toBe(0);
    expect(consolidatedSaveSeconds(m, o, { gpus: 1, zeroRanks: 1, tp: 1, pp: 1 }, r)).toBe(0);
  });

  it("adds the save's share to the step and to its overhead phase, and nothing without it", () => {
    const plain = estimateTime(arch, o, gpu, t);
    const saved = estimateTime(arch, o, gpu, { ...t, savesPerStep: 0.1 });
    const share = 0.1 * consolidatedSaveSeconds(m, o, layout, r);
    expect(share).toBeGreaterThan(0.1);
    // stepSeconds carries four significant figures (0.01 s at this step): the difference is within two roundings.
    expect(Math.abs(saved.stepSeconds - plain.stepSeconds - share)).toBeLessThanOrEqual(
      0.01 + 1e-9,
    );
    const overhead = (x: typeof plain) => x.phases.find((p) => p.phase === 'overhead')!.seconds;
    expect(overhead(saved) - overhead(plain)).toBeCloseTo(share, 2);
    expect(estimateTime(arch, o, gpu, { ...t, savesPerStep: 0 }).stepSeconds).toBe(
      plain.stepSeconds,
    );
  });
});
