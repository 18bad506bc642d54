// Unsloth on several GPUs as unsloth 2026.10.9 runs it (engines/unsloth/multi-gpu.ts): DDP (--zero 0) holds a
// whole replica, its native FSDP2 (--zero 2 fit layout, --zero 3 sharded layout) shards; what it does not run
// is refused citing the wheel's source.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { engineRefusal, withEngineDefaults } from '../../src/core/engines/defaults.js';
import { parallelNote } from '../../src/core/engines/engines-runs.js';
import { mapUnsloth } from '../../src/core/engines/unsloth/from.js';
import { emitUnsloth } from '../../src/core/engines/unsloth/launch.js';
import { estimateMemory } from '../../src/core/memory/index.js';
import { estimateTime } from '../../src/core/time/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { defaultTimeOptions } from '../../src/schema/time.js';
import { upstreamKeys } from '../../src/io/load-upstream-keys.js';
import { launchInputOf } from '../helpers/launch.js';

type Flags = Record<string, string | number | boolean>;
const flagsOf = (f: Flags): Flags => ({ framework: 'unsloth', ...f });
// As estimate --framework unsloth builds them: the engine's defaults (NF4 double quant, offloaded checkpointing).
const optionsOf = (f: Flags) => withEngineDefaults(optionsFromFlags(flagsOf(f)), flagsOf(f));
const arch = resolveModel('llama-3.1-8b');
const small = resolveModel('llama-3.2-1b');
const h100 = findGpu('h100-sxm-80gb');

describe('Unsloth DDP (--zero 0)', () => {
  it('holds a whole replica on every GPU: weights and states as on one GPU, plus the LoRA gradient bucket', () => {
    const one = estimateMemory(arch, optionsOf({ method: 'qlora' })).perGpu;
    for (const gpus of [2, 4, 8]) {
      const many = estimateMemory(arch, optionsOf({ method: 'qlora', gpus })).perGpu;
      expect(many.breakdown.weights).toBe(one.breakdown.weights);
      expect(many.breakdown.optimizer).toBe(one.breakdown.optimizer);
      expect(many.breakdown.adapters).toBe(one.breakdown.adapters);
      // DDP's bucket copy of the fp32 adapter gradients: as large as the adapters (fp32 both).
      expect(many.breakdown.buffers - one.breakdown.buffers).toBeCloseTo(
        many.breakdown.adapters!,
        -3,
      );
      expect(many.allocatedBytes).toBeGreaterThan(one.allocatedBytes);
    }
  });

  it('full fine-tunes keep one gradient copy (gradient_as_bucket_view), LoRA a second in the buckets', () => {
    const full = (gpus: number) =>
      estimateMemory(small, optionsOf({ method: 'full', gpus })).perGpu.allocatedBytes;
    expect(full(2)).toBe(full(1));
    const lora = (gpus: number) =>
      estimateMemory(small, optionsOf({ method: 'lora', gpus })).perGpu.allocatedBytes;
    expect(lora(2)).toBeGreaterThan(lora(1));
  });

  it('all-reduces the gradients: per-GPU throughput never above one GPU', () => {
    const tps = (gpus: number) =>
      estimateTime(small, optionsOf({ method: 'full', gpus }), h100, defaultTimeOptions(gpus))
        .tokensPerSecondPerGpu;
    expect(tps(2)).toBeLessThan(tps(1));
    expect(tps(8)).toBeLessThanOrEqual(tps(2));
  });
});

describe('Unsloth native FSDP2 (--zero 2 fit layout, --zero 3 sharded layout)', () => {
  const methodArb = fc.constantFrom('full', 'lora', 'qlora');
  const modelArb = fc.constantFrom(arch, small);

  it('per-GPU memory of the sharded layout never grows with the GPU count', () => {
    fc.assert(
      fc.property(
        methodArb,
        modelArb,
        fc.constantFrom(2, 4, 8),
        fc.constantFrom(512, 2048),
        (method, model, gpus, seq) => {
          const at = (g: number) =>
            estimateMemory(model, optionsOf({ method, gpus: g, zero: 3, seq })).perGpu
              .allocatedBytes;
          expect(at(gpus * 2)).toBeLessThanOrEqual(at(gpus));
          // A full fine-tune's sharded weights, gradients and states sit below the DDP replica (a small
          // QLoRA model may not: the gathered root unit and blocks outweigh its 4-bit shards, which is why
          // Unsloth's auto layout keeps such models replicated).
          const ddp = estimateMemory(model, optionsOf({ method, gpus, seq })).perGpu.allocatedBytes;
          if (method === 'full') expect(at(gpus)).toBeLessThan(ddp);
        },
      ),
      { numRuns: 30 },
    );
  });

  it('the fit layout keeps the frozen weights whole and shards the optimizer states', () => {
    const one = estimateMemory(arch, optionsOf({ method: 'qlora' })).perGpu.breakdown;
    const fit = estimateMemory(arch, optionsOf({ method: 'qlora', gpus: 4, zero: 2 })).perGpu
      .breakdown;
    expect(fit.weights).toBe(one.weights);
    expect(fit.optimizer).toBeCloseTo(one.optimizer / 4, -3);
    const sharded = estimateMemory(arch, optionsOf({ method: 'qlora', gpus: 4, zero: 3 }));
    const phase = (name: string) => sharded.phases.find((p) => p.phase === name)!.parts;
    // The sharded layout shards the packed 4-bit base too (float-packed bnb storage) once training runs; each
    // rank loaded the whole model before Trainer.__init__ sharded it (fsdp2_load.py: sharded loading is opt-in).
    expect(phase('forward').weights).toBeCloseTo(one.weights / 4, -3);
    expect(phase('load').weights).toBeCloseTo(one.weights, -3);
  });

  it('reduce-scatters in fp32 (reduce_dtype float32): more bytes on the wire than a bf16 reduce', () => {
    const o = optionsOf({ method: 'full', gpus: 8, zero: 3 });
    const t = estimateTime(small, o, h100, defaultTimeOptions(8));
    const hf = estimateTime(
      small,
      optionsFromFlags({ framework: 'hf-fsdp', method: 'full', gpus: 8, zero: 3 }),
      h100,
      defaultTimeOptions(8),
    );
    const comm = (x: typeof t) => x.phases.find((p) => p.phase === 'gradient-reduce')?.seconds ?? 0;
    expect(comm(t)).toBeGreaterThanOrEqual(comm(hf));
  });

  it('FSDP2 CPU offload (UNSLOTH_FSDP2_CPU_OFFLOAD=1) is estimated: weights, gradients and states leave the GPU', () => {
    const f = { method: 'full', gpus: 4, zero: 3 };
    expect(
      engineRefusal(small, optionsOf({ ...f, offload: 'optimizer+params' }), flagsOf(f)),
    ).toBeNull();
    const on = estimateMemory(small, optionsOf({ ...f, offload: 'optimizer+params' })).perGpu;
    const off = estimateMemory(small, optionsOf(f)).perGpu;
    expect(on.breakdown.optimizer).toBe(0);
    expect(on.allocatedBytes).toBeLessThan(off.allocatedBytes);
    expect(parallelNote('unsloth', optionsOf({ ...f, offload: 'optimizer+params' }))).toMatch(
      /UNSLOTH_FSDP2_CPU_OFFLOAD=1/,
    );
    // bitsandbytes' 8-bit states need CUDA tensors: no host step for them.
    const bnb = { ...f, offload: 'optimizer+params', optimizer: 'adamw-8bit' };
    expect(engineRefusal(small, optionsOf(bnb), flagsOf(bnb))).toMatch(
      /no host-side adamw-8bit step/,
    );
  });

  it('notes which launch and layout the figures are', () => {
    expect(parallelNote('unsloth', optionsOf({ gpus: 4, zero: 3 }))).toMatch(
      /UNSLOTH_FSDP2=1.*UNSLOTH_FSDP2_LAYOUT=sharded.*fsdp2_perf\.py:141-230/,
    );
    expect(parallelNote('unsloth', optionsOf({ gpus: 4, zero: 2 }))).toMatch(
      /UNSLOTH_FSDP2_LAYOUT=fit/,
    );
    expect(parallelNote('unsloth', optionsOf({ gpus: 2 }))).toMatch(/DDP under torchrun/);
    expect(parallelNote('unsloth', optionsOf({}))).toBeNull();
  });
});

describe('Unsloth multi-GPU refusals', () => {
  const refusal = (f: Flags) => engineRefusal(arch, optionsOf(f), flagsOf(f));

  it('estimate accepts DDP and FSDP2 on several GPUs', () => {
    for (const zero of [0, 2, 3]) expect(refusal({ method: 'qlora', gpus: 4, zero })).toBeNull();
  });

  it('refuses LLM.int8 weights under the sharded layout (Unsloth keeps them replicated), citing the wheel', () => {
    const why = refusal({ method: 'lora', weights: 'int8', gpus: 4, zero: 3 });
    expect(why).toMatch(/unsloth-int8-replicated-under-fsdp2.*fsdp2_native\.py:674-685/);
    expect(refusal({ method: 'lora', weights: 'int8', gpus: 4, zero: 2 })).toBeNull();
  });

  it('refuses a ZeRO-1 layout, citing the wheel source of what it runs', () => {
    const why = refusal({ method: 'lora', gpus: 4, zero: 1 });
    expect(why).toMatch(/ZeRO stages 0\/2\/3 only/);
    expect(why).toMatch(/pypi\.org\/project\/unsloth\/2026\.10\.9\/.*fsdp2_perf\.py:141-230/);
  });
});

describe('Unsloth launch on several GPUs', () => {
  const emit = (flags: Flags) => {
    const r = emitUnsloth(launchInputOf('llama-3.1-8b', 'h100-sxm', flagsOf(flags)));
    if (!r.ok) throw new Error(r.reason);
    const file = (p: string) => r.files.find((f) => f.path === p)!.content;
    return {
      args: JSON.parse(file('unsloth-args.json')),
      sh: file('launch.sh'),
      py: file('train_unsloth.py'),
    };
  };

  it('DDP: torchrun with no FSDP2 env; each rank loads onto its own GPU', () => {
    const { args, sh, py } = emit({ method: 'qlora', gpus: 4 });
    expect(args.torchrun).toEqual({ nproc_per_node: 4, nnodes: 1, env: {} });
    expect(sh).toContain(
      'torchrun --standalone --nproc_per_node 4 train_unsloth.py unsloth-args.json',
    );
    expect(sh).not.toContain('UNSLOTH_FSDP2');
    expect(py).toMatch(
      /load\["device_map"\] = \{"": int\(os\.environ\.get\("LOCAL_RANK", "0"\)\)\}/,
    );
  });

  it('FSDP2: UNSLOTH_FSDP2=1 with the layout of the plan', () => {
    for (const [zero, layout] of [
      [2, 'fit'],
      [3, 'sharded'],
    ] as const) {
      const { args, sh } = emit({ method: 'lora', gpus: 8, zero });
      expect(args.torchrun.env).toEqual({ UNSLOTH_FSDP2: '1', UNSLOTH_FSDP2_LAYOUT: layout });
      expect(sh).toContain(`export UNSLOTH_FSDP2_LAYOUT=${layout}`);
    }
  });

  it('one GPU: no torchrun block, the one-process script', () => {
    const { args, sh, py } = emit({ method: 'qlora' });
    expect(args.torchrun).toBeUndefined();
    expect(sh).toContain('python train_unsloth.py unsloth-args.json');
    expect(py).not.toContain('LOCAL_RANK');
  });

  it('--from reads the GPU count and the ZeRO stage back', () => {
    const cases: Flags[] = [
      { method: 'qlora', gpus: 4 },
      { method: 'lora', gpus: 8, zero: 2 },
      { method: 'full', gpus: 8, zero: 3 },
    ];
    for (const f of cases) {
      const back = mapUnsloth(emit(f).args, undefined, upstreamKeys);
      expect(back.flags.gpus).toBe(f.gpus);
      expect(back.flags.zero).toBe(f.zero ?? 0);
      expect(back.unknown).toEqual([]);
    }
    // Unsloth's auto layout: estimated as the sharded one, with a warning.
    const auto = emit({ method: 'lora', gpus: 4, zero: 3 }).args;
    delete auto.torchrun.env.UNSLOTH_FSDP2_LAYOUT;
    const back = mapUnsloth(auto, undefined, upstreamKeys);
    expect(back.flags.zero).toBe(3);
    expect(back.warnings.join('\n')).toMatch(/picks its FSDP2 layout by memory/);
  });
});
