// bitsandbytes 4-bit weights under Accelerate FSDP or DeepSpeed ZeRO-3 load whole onto every rank's GPU before
// they are sharded (transformers 5.14.1: the 4-bit quantizer's device_map {"": current device}, engines/hf/memory.ts
// BNB_4BIT_LOADS_WHOLE): the load phase holds the whole quantized model, and a 70B QLoRA no longer fits 24 GB cards
// that hold its sharded step. 16-bit weights still load on the host (rank 0) or partitioned, below the step.
import { describe, expect, it } from 'vitest';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { parallelNote } from '../../src/core/engines/engines-runs.js';
import { estimateMemory } from '../../src/core/memory/index.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { GiB } from '../../src/core/units.js';
import { planYaml } from '../helpers/plan.js';
import { readMeasureFixture } from '../helpers/measured.js';

type Flags = Record<string, string | number | boolean>;
const optionsOf = (f: Flags) => withEngineDefaults(optionsFromFlags(f), f);
const arch = resolveModel('llama-2-70b');
// Plan 1 of scenarios/70b-qlora-rent-cheapest.yaml before the load phase counted: 16.6 GiB at the step peak.
const FSDP_QLORA: Flags = {
  method: 'qlora',
  'lora-targets': 'all-linear',
  batch: 2,
  checkpointing: 'full',
  zero: 3,
  gpus: 8,
};

type Load = { type: string; holdsCheckpointValues: boolean | null; zeroInitPartitioned: boolean };
type Probe = {
  versions: Record<string, string>;
  quantizerDeviceMapOnCudaRank5: Record<string, number>;
  loads: { bf16: Load; nf4: Load };
};
// scripts/measure/bnb_sharded_load.py at the launch pins: local rank 1 of a node loading a tiny Llama.
const PROBE = readMeasureFixture('bnb-sharded-load.json') as { fsdp: Probe; zero3: Probe };

const phaseOf = (e: ReturnType<typeof estimateMemory>, name: string) =>
  e.phases.find((p) => p.phase === name)!;

describe('the pinned loader, measured on the CPU (scripts/measure/bnb_sharded_load.py)', () => {
  for (const [mode, p] of Object.entries(PROBE)) {
    it(`${mode}: 16-bit weights are left to rank 0 or zero.Init, 4-bit ones load whole on every rank`, () => {
      expect(p.versions.transformers).toBe('5.14.1');
      // With no device_map, the 4-bit quantizer sends a CUDA rank's load to its own current device.
      expect(p.quantizerDeviceMapOnCudaRank5).toEqual({ '': 5 });
      // 16-bit: under FSDP a rank other than 0 holds zeros (rank 0 broadcasts at wrap time); under ZeRO-3
      // zero.Init partitions each weight as it is built.
      if (mode === 'fsdp') expect(p.loads.bf16.holdsCheckpointValues).toBe(false);
      else expect(p.loads.bf16.zeroInitPartitioned).toBe(true);
      expect(p.loads.nf4).toMatchObject({
        type: 'Params4bit',
        holdsCheckpointValues: true,
        zeroInitPartitioned: false,
      });
    });
  }
});

describe('4-bit weights load whole before FSDP / ZeRO-3 shards them', () => {
  for (const framework of ['hf-fsdp', 'hf-deepspeed'] as const) {
    it(`${framework}: the load phase holds the whole NF4 model, above the sharded step`, () => {
      // hf-fsdp's own launch loads NF4 layer by layer (axolotl-sharded-load.test.ts): a run through
      // transformers' from_pretrained (the Trainer's train.py) is the whole load.
      const sharded = estimateMemory(arch, optionsOf({ ...FSDP_QLORA, framework }), {
        quantizerLoadsWhole: true,
      });
      // One GPU of the Trainer (DDP engine): the whole model, unsharded.
      const one = estimateMemory(
        arch,
        optionsOf({ ...FSDP_QLORA, framework: 'hf-trainer', zero: 0, gpus: 1 }),
      );
      const load = phaseOf(sharded, 'load').parts;
      // Every rank holds what one unsharded GPU holds: all the packed weights and their constants.
      expect(load.weights).toBeCloseTo(phaseOf(one, 'load').parts.weights, -3);
      expect(load.quantConstants).toBeCloseTo(phaseOf(one, 'load').parts.quantConstants, -3);
      // 68.98B parameters, nearly all in 4-bit linears: over 30 GiB on each GPU.
      expect(load.weights).toBeGreaterThan(30 * GiB);
      expect(sharded.peakPhase).toBe('load');
      expect(phaseOf(sharded, 'forward').parts.weights).toBeLessThan(load.weights / 7);
      expect(
        parallelNote(framework, optionsOf({ ...FSDP_QLORA, framework, weights: 'fp4' })),
      ).toMatch(/each rank loads the whole 4-bit model onto its GPU/);
      expect(parallelNote(framework, optionsOf({ ...FSDP_QLORA, framework, zero: 2 }))).toBeNull();
    });
  }

  it('16-bit LoRA under FSDP loads on the host first: its load phase stays below the step', () => {
    const e = estimateMemory(
      arch,
      optionsOf({ ...FSDP_QLORA, method: 'lora', framework: 'hf-fsdp' }),
    );
    expect(e.peakPhase).not.toBe('load');
    expect(phaseOf(e, 'load').parts.weights).toBeLessThan(20 * GiB);
  });

  it('a 70B ZeRO-3 QLoRA is pruned on 8x RTX 3090 and fits 8x RTX A6000', () => {
    const scenario = (gpu: string) => `name: fsdp-qlora-load
model: llama-2-70b
job: { kind: fine-tune, methods: [qlora], seq: 2048, globalBatch: 16, datasetTokens: 5000000 }
hardware: { owned: [{ gpu: ${gpu}, count: 8 }], counts: { min: 8, max: 8 } }
search: { engines: [hf-deepspeed], optimizers: [adamw], checkpointing: [full], attention: [sdpa] }
rank: time
`;
    const small = planYaml('fsdp-qlora-3090.yaml', scenario('rtx-3090'), 1);
    expect(small.fits).toBe(false);
    expect(small.pruned.find((p) => p.code === 'oom')?.count ?? 0).toBeGreaterThan(0);
    const large = planYaml('fsdp-qlora-a6000.yaml', scenario('rtx-a6000'), 1);
    expect(large.fits).toBe(true);
    expect(large.plans[0]!.choices.zero).toBe(3);
  });
});
