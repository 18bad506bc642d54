/**
 * GRPO with vLLM colocated in sleep mode (--rollout-sleep: TRL vllm_enable_sleep_mode, Unsloth Standby):
 * vLLM's share leaves the training step and fills the rollout phase only; the planner's capacity rule
 * (surface.ts onCapacity) still gives the estimate made on that GPU.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  estimateMemory,
  fitDeviceBytes,
  onCapacity,
  type MemoryEstimate,
} from '../../src/core/memory/index.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import type { ObjectiveExtras } from '../../src/core/memory/objective.js';
import type { Arch } from '../../src/core/model/index.js';
import { GiB } from '../../src/core/units.js';
import { listModels, resolveModel } from '../../src/io/load-model.js';
import type { EstimateOptions } from '../../src/schema/estimate.js';
import {
  checkCombination,
  FlagError,
  objectiveInto,
  optionsFromFlags,
  type RawFlags,
} from '../../src/schema/flags.js';
import { buildLaunch, launchBlocker } from '../../src/core/launch/index.js';
import { generatedArchArb, labelled, optionsArb, withDiffString } from '../helpers/arbitraries.js';
import { launchInputOf } from '../helpers/launch.js';

const RUNS = Number(process.env.VRAMPLAN_FC_RUNS ?? 100);
const SEED = Number(process.env.VRAMPLAN_FC_SEED ?? 20261126);
const params = { numRuns: RUNS, seed: SEED };
/** Bytes: allocated, reserved and device are rounded separately. */
const ROUNDING = 4;

const catalogArchs: Arch[] = listModels().map((m) =>
  labelled(resolveModel(m.id), `catalog:${m.id}`),
);
const archArb = fc.oneof(
  { weight: 2, arbitrary: generatedArchArb({ maxLayers: 48, maxHeads: 64 }) },
  { weight: 1, arbitrary: fc.constantFrom(...catalogArchs) },
);
const optsArb = optionsArb({
  methods: ['full', 'lora', 'qlora'],
  maxBatch: 8,
  maxSeq: 8192,
  maxDp: 8,
}).map((o) => withDiffString({ ...o, gpus: o.gpus / o.pp, pp: 1 }));
const grpoArb = fc.record({
  generations: fc.integer({ min: 2, max: 32 }),
  'prompt-tokens': fc.integer({ min: 1, max: 2048 }),
  'completion-tokens': fc.integer({ min: 1, max: 4096 }),
  'rollout-memory': fc.constantFrom(0.2, 0.3, 0.5, 0.9),
  reference: fc.constantFrom('model', 'none'),
});

/** `o` as `estimate --objective grpo --rollout vllm-colocate` makes it, or null when the flags reject it. */
function colocated(o: EstimateOptions, flags: RawFlags, sleep: boolean): EstimateOptions | null {
  const out = { ...o };
  try {
    objectiveInto(out, {
      objective: 'grpo',
      rollout: 'vllm-colocate',
      ...flags,
      ...(sleep ? { 'rollout-sleep': true } : {}),
    });
    checkCombination(out);
  } catch {
    return null;
  }
  return withDiffString(out);
}

const extras = (e: MemoryEstimate) =>
  (e as MemoryEstimate & { objective: ObjectiveExtras }).objective;
const capacities = [24 * GiB, 80 * GiB, 141 * GiB];

describe('GRPO vLLM sleep mode (--rollout-sleep)', () => {
  it('never holds more than vLLM awake, and holds the woken share in the rollout phase', () => {
    fc.assert(
      fc.property(archArb, optsArb, grpoArb, fc.constantFrom(...capacities), (arch, o, g, cap) => {
        const awake = colocated(o, g, false);
        const asleep = colocated(o, g, true);
        fc.pre(awake !== null && asleep !== null);
        expect(asleep!.rolloutSleep).toBe(true);
        const ctx = { gpuCapacityBytes: cap };
        const a = estimateMemory(arch, awake!, ctx);
        const s = estimateMemory(arch, asleep!, ctx);
        expect(s.perGpu.deviceBytes).toBeLessThanOrEqual(a.perGpu.deviceBytes + ROUNDING);
        const rollout = s.phases.find((p) => p.phase === 'rollout');
        expect(rollout).toBeDefined();
        const x = extras(s);
        // A share short of vLLM's start: the card it would start on, past this one (it does not start here).
        if (asleep!.rolloutMemory! * cap < x.rolloutStart) {
          expect(s.perGpu.deviceBytes).toBeGreaterThan(cap);
          return;
        }
        // The woken share: vLLM's weights (TRL's own copy) and the KV pool, in the rollout phase only.
        expect(rollout!.parts.rolloutKvCache).toBe(Math.round(x.rolloutKvCache));
        expect(rollout!.allocatedBytes).toBeGreaterThanOrEqual(
          x.rolloutWeights + x.rolloutKvCache - ROUNDING,
        );
        expect(s.perGpu.allocatedBytes).toBeGreaterThanOrEqual(rollout!.allocatedBytes - ROUNDING);
        for (const p of s.phases.filter((q) => q.phase !== 'rollout'))
          expect(p.parts.rolloutKvCache ?? 0).toBe(0);
        if (s.peakPhase !== 'rollout') {
          expect(s.perGpu.breakdown.rolloutKvCache).toBe(0);
          expect(s.perGpu.breakdown.rolloutWeights).toBe(0);
        } else {
          // torch's cache is emptied before wake_up: only the allocator slack on the trainer's holdings is
          // reserved beyond them, not the step's one-off blocks; vLLM's share carries none.
          const pool = x.rolloutWeights + x.rolloutKvCache;
          const slack = FRAMEWORKS[asleep!.framework].allocatorSlack;
          const expected = (rollout!.allocatedBytes - pool) * slack;
          expect(
            Math.abs(s.perGpu.reservedBytes - rollout!.allocatedBytes - expected),
          ).toBeLessThanOrEqual(ROUNDING);
        }
      }),
      params,
    );
  });

  it("the planner's capacity rule gives the estimate made on the GPU, asleep or awake, where vLLM starts", () => {
    fc.assert(
      fc.property(
        archArb,
        optsArb,
        grpoArb,
        fc.boolean(),
        fc.constantFrom(...capacities),
        (arch, o, g, sleep, cap) => {
          const opts = colocated(o, g, sleep);
          fc.pre(opts !== null);
          const free = estimateMemory(arch, opts!, { lean: true });
          const onCard = estimateMemory(arch, opts!, { gpuCapacityBytes: cap, lean: true });
          // A share short of vLLM's start: the estimate is the card it would start on, past this one (the
          // planner prunes the row: plan/loop.ts startShort).
          if (opts!.rolloutMemory! * cap < extras(free).rolloutStart) {
            expect(onCard.perGpu.deviceBytes).toBeGreaterThan(cap);
            return;
          }
          // Paged optimizer states: the planner's figure is the fit figure (only their working set on the card).
          const planned = onCapacity(
            fitDeviceBytes(free),
            opts!.rolloutMemory!,
            extras(free).rolloutFloor,
            cap,
          );
          expect(Math.abs(planned - fitDeviceBytes(onCard))).toBeLessThanOrEqual(ROUNDING);
        },
      ),
      params,
    );
  });

  it('Unsloth Standby shares the weights: the woken rollout holds the KV pool, not a second copy', () => {
    const arch = resolveModel('qwen2.5-7b');
    const flags = {
      method: 'lora',
      framework: 'unsloth',
      objective: 'grpo',
      rollout: 'vllm-colocate',
      'rollout-memory': 0.9,
      'rollout-sleep': true,
      batch: 8,
      checkpointing: 'offload',
    };
    const s = estimateMemory(arch, optionsFromFlags(flags), { gpuCapacityBytes: 80 * GiB });
    const x = extras(s);
    expect(x.rolloutWeights).toBe(0);
    expect(x.rolloutSharedWeights).toBeGreaterThan(14 * GiB);
    // vLLM's pool is its share of the card less the weights it shares (vllm_utils.py, gpu_memory_utilization).
    expect(x.rolloutKvCache).toBeCloseTo(0.9 * 80 * GiB - x.rolloutSharedWeights, -3);
    expect(s.peakPhase).toBe('rollout');
    expect(s.perGpu.breakdown.rolloutKvCache).toBe(Math.round(x.rolloutKvCache));
  });

  it('rejects --rollout-sleep without a colocated vLLM, naming the flag', () => {
    for (const rollout of ['hf', 'vllm-server']) {
      const o = optionsFromFlags({ method: 'lora' });
      const run = () => objectiveInto(o, { objective: 'grpo', rollout, 'rollout-sleep': true });
      expect(run).toThrow(FlagError);
      expect(run).toThrow(/rollout-sleep.*only with --rollout vllm-colocate/);
    }
    expect(() =>
      optionsFromFlags({ method: 'lora', objective: 'dpo', 'rollout-sleep': true }),
    ).toThrow(/rollout-sleep/);
  });

  it('the TRL launcher turns sleep mode on; the Unsloth launcher says why it cannot', () => {
    const flags = {
      method: 'lora',
      objective: 'grpo',
      rollout: 'vllm-colocate',
      'rollout-sleep': true,
    };
    const args = (extra: Record<string, unknown>) => {
      const bundle = buildLaunch(launchInputOf('qwen2.5-0.5b', 'h100-sxm', { ...flags, ...extra }));
      return JSON.parse(bundle.files.find((f) => f.path === 'hf-args.json')!.content) as {
        grpo_config: Record<string, unknown>;
      };
    };
    expect(args({ framework: 'hf' }).grpo_config.vllm_enable_sleep_mode).toBe(true);
    expect(args({ framework: 'hf', 'rollout-sleep': false }).grpo_config).not.toHaveProperty(
      'vllm_enable_sleep_mode',
    );
    const unsloth = launchInputOf('qwen2.5-0.5b', 'h100-sxm', { ...flags, framework: 'unsloth' });
    expect(launchBlocker(unsloth)).toMatch(/Standby.*gpu_memory_utilization itself/);
  });
});
