/**
 * Where the gradients of a DeepSpeed full fine-tune live: each rank's gradient partition in the 16-bit training
 * dtype, the fp32 gradient only in the optimizer step, one ZeRO-3 sub-group at a time
 * (deepspeed/runtime/zero/stage3.py _prepare_fp32_grad_for_sub_group, v0.19.8), and with an offloaded optimizer the
 * ZeRO-3 partition buffer on the CPU.
 */
import { describe, expect, it } from 'vitest';
import { estimateMemory } from '../../src/core/memory/index.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';

const arch = resolveModel('Qwen/Qwen2.5-7B');
const run = (framework: string, zero: string, offload = 'none') =>
  estimateMemory(
    arch,
    optionsFromFlags({
      method: 'full',
      framework,
      zero,
      offload,
      checkpointing: 'full',
      attention: 'flash',
      gpus: '4',
      seq: '4096',
    }),
  );
const phase = (r: ReturnType<typeof run>, name: string) => {
  const p = r.phases.find((x) => x.phase === name);
  if (!p) throw new Error(`no ${name} phase`);
  return p.parts;
};

describe('DeepSpeed: bf16 gradient partitions, fp32 gradients only in the step', () => {
  const r = run('hf-deepspeed', '3');
  const n = r.params.trainable;
  const shard = n / 4;

  it('forward and backward hold 2 bytes of gradient per sharded parameter', () => {
    expect(phase(r, 'forward').gradients).toBeCloseTo(2 * shard, -3);
    expect(phase(r, 'backward-layer').gradients).toBeCloseTo(2 * shard, -3);
  });

  it('the ZeRO-3 step adds one sub-group of fp32 gradients and its flattened bf16 copy', () => {
    const sub = FRAMEWORKS.deepspeed.fp32GradsInStep!.subGroupElements;
    expect(shard).toBeGreaterThan(sub); // 1.9B partition elements: the sub-group bounds the piece
    const extra = phase(r, 'optimizer-step').gradients - 2 * shard;
    expect(extra).toBeGreaterThanOrEqual(6 * sub);
    expect(extra).toBeLessThan(6 * shard);
  });

  it('ZeRO-2 casts the whole partition in its step (4 bytes an element)', () => {
    const r2 = run('hf-deepspeed', '2');
    const extra = phase(r2, 'optimizer-step').gradients - phase(r2, 'forward').gradients;
    expect(extra).toBeCloseTo(4 * shard, -3);
  });
});

describe('DeepSpeed ZeRO-3 optimizer offload: the gradient partitions live in host RAM', () => {
  it('no gradient bytes on the GPU in any phase; ZeRO-2 keeps them counted there', () => {
    const off = run('hf-deepspeed', '3', 'optimizer');
    for (const p of off.phases) expect(p.parts.gradients, p.phase).toBe(0);
    const shard = phase(run('hf-deepspeed', '3'), 'forward').gradients;
    // Host: fp32 master, moments and gradients (16 bytes a sharded parameter) and the 16-bit gradient buffer.
    expect(off.hostBytesPerGpu).toBeGreaterThanOrEqual(9 * shard);
    // ZeRO-2's offload path keeps them counted on the GPU (not read at the pinned version).
    expect(phase(run('hf-deepspeed', '2', 'optimizer'), 'forward').gradients).toBeGreaterThan(0);
  });
});

describe('the fp32 gradient piece is the largest one-off block of the step', () => {
  it('reserved exceeds allocated by the slack plus the ZeRO-3 sub-group of fp32 gradients', () => {
    const r = run('hf-deepspeed', '3');
    const sub = FRAMEWORKS.deepspeed.fp32GradsInStep!.subGroupElements;
    const slack = r.perGpu.allocatedBytes * FRAMEWORKS.deepspeed.allocatorSlack;
    expect(r.perGpu.reservedBytes - r.perGpu.allocatedBytes - slack).toBeGreaterThanOrEqual(
      4 * sub - 1e6,
    );
  });
});
