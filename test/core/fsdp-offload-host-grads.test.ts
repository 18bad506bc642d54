/**
 * FSDP's CPU offload (FSDP2 CPUOffloadPolicy under hf-fsdp, torchtitan and torchtune) copies each reduce-scattered
 * gradient shard to the host in the sharded parameter's dtype and keeps it there until the optimizer steps on the
 * host (torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py foreach_reduce): host RAM holds each rank's
 * gradient shard besides its parameter and optimizer-state shards. The GPU figure is left as it was.
 */
import { describe, expect, it } from 'vitest';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { estimateMemory } from '../../src/core/memory/index.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';

const arch = resolveModel('Qwen/Qwen2.5-7B');
const GPUS = 4;
/** The engine's run as `estimate` builds it (its defaults applied: torchtitan trains fp32 shards). */
const run = (framework: string, offload: string, extra: Record<string, unknown> = {}) => {
  const flags = {
    method: 'full',
    framework,
    zero: '3',
    offload,
    checkpointing: 'full',
    gpus: String(GPUS),
    seq: '2048',
    batch: '1',
    ...extra,
  };
  return estimateMemory(arch, withEngineDefaults(optionsFromFlags(flags), flags));
};
const parts = (r: ReturnType<typeof run>, phase: string) => {
  const p = r.phases.find((x) => x.phase === phase);
  if (!p) throw new Error(`no ${phase} phase`);
  return p.parts;
};

/** Host bytes of the offloaded run beyond the resident run's sharded states and parameters. */
function beyondStatesAndParams(framework: string) {
  const off = run(framework, 'optimizer+params');
  const on = run(framework, 'none');
  const step = parts(on, 'optimizer-step');
  return { off, extra: off.hostBytesPerGpu - step.optimizer - step.masterWeights };
}

describe('FSDP CPU offload: the gradient shards live in host RAM', () => {
  for (const [framework, bytes] of [
    ['hf-fsdp', 2],
    ['torchtitan', 4],
    ['torchtune', 2],
  ] as const) {
    it(`${framework}: host RAM holds the parameter shard and a gradient shard of ${bytes} B a parameter`, () => {
      const { off, extra } = beyondStatesAndParams(framework);
      const shard = off.params.trainable / GPUS;
      // Parameters and gradients in the sharded parameter's dtype: two shards of `bytes` each.
      expect(extra).toBeCloseTo(2 * bytes * shard, -7);
    });
  }

  it('the GPU gradient figure is unchanged (docs/memory-model.md "Where gradients live")', () => {
    expect(parts(run('hf-fsdp', 'optimizer+params'), 'backward-layer').gradients).toBeGreaterThan(
      0,
    );
  });

  it('torchtune optimizer_in_bwd steps and frees each shard as it lands: no gradient shards held', () => {
    const held = run('torchtune', 'optimizer+params').hostBytesPerGpu;
    const inBwd = run('torchtune', 'optimizer+params', { 'optimizer-in-backward': true });
    expect(held - inBwd.hostBytesPerGpu).toBeCloseTo((2 * inBwd.params.trainable) / GPUS, -7);
  });
});
