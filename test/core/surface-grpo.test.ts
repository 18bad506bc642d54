// The planner's GRPO memory path (memory/surface.ts, memory.ts policyMemo, objective.ts objectiveFigures)
// against estimateMemory: sharing policy estimates between surfaces must change no figure, not by a byte.
import { describe, expect, it } from 'vitest';
import {
  estimateMemory,
  memorySurface,
  policyMemo,
  type MemoryEstimate,
} from '../../src/core/memory/index.js';
import type { GrpoPoints } from '../../src/core/memory/surface.js';
import { policyOptions } from '../../src/core/memory/objective.js';
import { resolveModel } from '../../src/io/load-model.js';
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';
import { grpo } from '../helpers/grpo.js';

const arch = resolveModel('qwen2.5-7b');

// Every rollout mode, on policies that differ and policies that agree (so the memo is shared and hit).
const CASES: EstimateOptions[] = [
  grpo({}, { rollout: 'hf' }),
  grpo({}, { rollout: 'vllm-colocate', 'rollout-memory': 0.3 }),
  grpo({}, { rollout: 'vllm-colocate', 'rollout-memory': 0.5 }),
  grpo({}, { rollout: 'vllm-colocate', 'rollout-memory': 0.3, 'rollout-sleep': true }),
  grpo({}, { rollout: 'vllm-server', 'rollout-gpus': 2 }),
  // The same trainers beside a server of another size: their points are shared (surface.ts pointClass).
  grpo({}, { rollout: 'vllm-server', 'rollout-gpus': 1 }),
  grpo({}, { rollout: 'vllm-server', 'rollout-gpus': 3 }),
  grpo({ method: 'full', zero: 3 }, { rollout: 'hf', reference: 'model' }),
  grpo({ method: 'full', zero: 3 }, { rollout: 'vllm-colocate', reference: 'model' }),
  grpo({ framework: 'unsloth', checkpointing: 'offload' }, { rollout: 'vllm-colocate' }),
  grpo({ method: 'qlora', weights: 'nf4', tp: 2 }, { rollout: 'vllm-server' }),
  // transformers generate runs the 4-bit policy; a colocated vLLM loads its own 16-bit copy.
  grpo({ method: 'qlora', weights: 'nf4' }, { rollout: 'hf' }),
  grpo({ method: 'qlora', weights: 'nf4' }, { rollout: 'vllm-colocate' }),
];

const worst = (e: MemoryEstimate) => e.stages.find((s) => s.stage === e.worstStage)!;

describe('GRPO memory surfaces with shared policy estimates', () => {
  it('write exactly what estimateMemory gives at every (micro-batch, data-parallel degree)', () => {
    const policies = policyMemo(arch); // one memo for every surface, as the planner shares it
    const points: GrpoPoints = new Map(); // and the points, shared between rollout twins
    let asked = 0;
    for (const o of CASES) {
      const s = memorySurface(arch, o, {}, policies, undefined, points);
      for (const dp of [1, 2, 3, 8])
        for (const batch of [1, 2, 3, 8]) {
          const gpus = dp * o.tp * o.pp + (o.rollout === 'vllm-server' ? o.rolloutGpus! : 0);
          const e = estimateMemory(arch, { ...o, batch, gpus });
          const col = () => new Float64Array(1);
          const out = {
            device: col(),
            host: col(),
            weights: col(),
            kv: col(),
            share: col(),
            floor: col(),
          };
          s.into(batch, dp, out, 0);
          asked++;
          expect(out.device[0]).toBe(e.perGpu.deviceBytes);
          expect(out.host[0]).toBe(e.hostBytesPerGpu);
          expect(out.weights[0]).toBe(Math.round(worst(e).weights));
          expect(out.kv[0]).toBe(Math.round(worst(e).kv));
          const x = (e as { objective?: { rolloutFloor: number } }).objective!;
          expect(out.floor[0]).toBe(x.rolloutFloor);
        }
    }
    // Colocated at 0.3 and 0.5 share their points, as do servers of 1, 2 and 3 GPUs.
    const made = [...points.values()].reduce((n, m) => n + m.size, 0);
    expect(made).toBe(asked - 3 * 16);
  });

  it('count a deferred point as one estimate, once, whether or not it is read', () => {
    const s = memorySurface(arch, CASES[1]!);
    expect(s.defer(2, 4)).toBe(true);
    expect(s.defer(2, 4)).toBe(true);
    expect(s.evaluations).toBe(1);
    s.at(2, 4);
    s.at(1, 1);
    expect(s.evaluations).toBe(2);
    // Fitted surfaces (no objective) are written at once.
    expect(memorySurface(arch, defaultOptions('lora')).defer(1, 1)).toBe(false);
  });
});

describe('policyOptions', () => {
  it('drops the objective keys and keeps every other key in order', () => {
    for (const o of CASES) {
      const p = policyOptions(o);
      const expected: Record<string, unknown> = { ...o };
      for (const k of [
        'objective',
        'reference',
        'generations',
        'promptTokens',
        'completionTokens',
        'rollout',
        'rolloutMemory',
        'rolloutSleep',
        'rolloutGpus',
      ])
        delete expected[k];
      expected.gpus = o.gpus - (o.rollout === 'vllm-server' ? o.rolloutGpus! : 0);
      expect(JSON.stringify(p)).toBe(JSON.stringify(expected));
    }
  });
});
