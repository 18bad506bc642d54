// Quantized-on-load weights placed by a per-rank device_map stream from the checkpoint to the GPU: the host
// holds no whole copy, so a 70B QLoRA on one 48 GB card needs no 131 GiB of host RAM.
import { describe, expect, it } from 'vitest';
import { modelLoad } from '../helpers/host-ram.js';
import { hostRamOf } from '../../src/core/memory/host-ram.js';
import { planYaml } from '../helpers/plan.js';
import { GiB } from '../../src/core/units.js';

const CKPT = 70.55e9 * 2; // Llama-3.1-70B in bf16

describe('loading peak of device_map loads', () => {
  it('bitsandbytes weights on the HF trainer stream; 16-bit weights are held on the host', () => {
    expect(hostRamOf('hf-trainer', 0, 1, 0, 'nf4', modelLoad(CKPT)).loadingBytes).toBe(0);
    expect(hostRamOf('hf-trainer', 0, 2, 0, 'int8', modelLoad(CKPT)).loadingBytes).toBe(0);
    expect(hostRamOf('hf-trainer', 0, 1, 0, 'bf16', modelLoad(CKPT)).loadingBytes).toBe(CKPT);
  });
  it('4-bit weights stream under ZeRO-3 too (the quantizer sets the device_map); 16-bit ones are held', () => {
    expect(hostRamOf('hf-deepspeed', 2, 1, 0, 'nf4', modelLoad(CKPT)).loadingBytes).toBe(0);
    expect(hostRamOf('hf-deepspeed', 3, 8, 0, 'nf4', modelLoad(CKPT)).loadingBytes).toBe(0);
    expect(hostRamOf('hf-fsdp', 3, 8, 0, 'fp4', modelLoad(CKPT)).loadingBytes).toBe(0);
    // hf-fsdp's NF4 loads through axolotl's layer-by-layer loader onto rank 0's host (dense models only): the
    // quantized model there (given, or the 16-bit checkpoint where the caller passes none) and one file per process.
    expect(hostRamOf('hf-fsdp', 3, 8, 0, 'nf4', modelLoad(CKPT)).loadingBytes).toBe(
      CKPT + 8 * 10e9,
    );
    expect(hostRamOf('hf-fsdp', 3, 8, 0, 'nf4', modelLoad(CKPT, false, 40e9)).loadingBytes).toBe(
      40e9 + 8 * 10e9,
    );
    expect(hostRamOf('hf-fsdp', 3, 8, 0, 'nf4', modelLoad(CKPT, true)).loadingBytes).toBe(0);
    expect(hostRamOf('hf-deepspeed', 3, 8, 0, 'bf16', modelLoad(CKPT)).loadingBytes).toBe(CKPT);
    expect(hostRamOf('hf-fsdp', 3, 8, 0, 'bf16', modelLoad(CKPT)).loadingBytes).toBe(CKPT);
  });
  it('Unsloth loads onto the GPU whatever the weights', () => {
    for (const w of ['nf4', 'bf16'] as const)
      expect(hostRamOf('unsloth', 0, 1, 0, w, modelLoad(CKPT)).loadingBytes).toBe(0);
  });
  it('a 70B QLoRA fits one RTX A6000 with the default host RAM', () => {
    const r = planYaml(
      'qlora-70b-a6000.yaml',
      `name: qlora-70b-a6000
model: llama-3.1-70b
job: { kind: fine-tune, methods: [qlora], seq: 2048, globalBatch: 16, datasetTokens: 5000000 }
hardware: { owned: [{ gpu: rtx-a6000, count: 1 }], counts: { min: 1, max: 1 } }
rank: time
`,
      1,
    );
    expect(r.fits).toBe(true);
    const best = r.plans[0]!;
    expect(best.choices.method).toBe('qlora');
    expect(best.hostRam.perNodeBytes).toBeLessThan(64 * GiB);
  });
});
