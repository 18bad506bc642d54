// A layer-by-layer NF4 loader (axolotl's load_sharded_model_quant, the Answer.AI FSDP-QLoRA loop) keeps the
// quantized model on local rank 0's host and holds one safetensors file per process while it quantizes: a 70B
// QLoRA over two 24 GB cards fits 128 GiB of host RAM, where counting the whole 16-bit checkpoint did not.
import { describe, expect, it } from 'vitest';
import { modelLoad } from '../helpers/host-ram.js';
import {
  hostRamOf,
  hostRamPerNode,
  modelLoadOf,
  SAFETENSORS_FILE_BYTES,
  shardedQuantHostBytes,
} from '../../src/core/memory/host-ram.js';
import { paramCounts } from '../../src/core/model/params.js';
import { resolveModel } from '../../src/io/load-model.js';
import { GiB } from '../../src/core/units.js';
import { planYaml } from '../helpers/plan.js';

const P70 = paramCounts(resolveModel('llama-3.1-70b'));
const CKPT70 = P70.total * 2;

describe('host RAM of a layer-by-layer NF4 load', () => {
  it('keeps the layers as double-quantized NF4 and the rest in 16 bits', () => {
    // 0.5 byte a weight plus one uint8 absmax per 64 and one fp32 per 64 x 256 (bitsandbytes double quant).
    const nf4 = P70.linear * (0.5 + 1 / 64 + 4 / (64 * 256));
    expect(shardedQuantHostBytes(P70)).toBeCloseTo(nf4 + (P70.total - P70.linear) * 2, -3);
    const gib = shardedQuantHostBytes(P70) / GiB;
    expect(gib).toBeGreaterThan(35);
    expect(gib).toBeLessThan(40);
  });

  it('adds one safetensors file per process on the node, never more than the checkpoint', () => {
    const q = shardedQuantHostBytes(P70);
    const two = hostRamOf('hf-fsdp', 3, 2, 0, 'nf4', modelLoad(CKPT70, false, q));
    expect(two.loadingBytes).toBe(q + 2 * SAFETENSORS_FILE_BYTES);
    expect(two.loadingBytes).toBeLessThan(CKPT70 / 2);
    expect(hostRamPerNode('hf-fsdp', 3, 2, 0, 'nf4', modelLoad(CKPT70, false, q))).toBe(
      two.loadingBytes,
    );
    // A checkpoint of one small file: each process holds at most the checkpoint.
    expect(hostRamOf('hf-fsdp', 3, 2, 0, 'nf4', modelLoad(1e9, false, 0.3e9)).loadingBytes).toBe(
      0.3e9 + 2e9,
    );
  });

  it("each process holds the model's own largest file where its headers gave it", () => {
    const arch = resolveModel('llama-3.1-70b');
    const q = shardedQuantHostBytes(P70);
    // The catalog stores no file sizes: the 10 GB bound.
    expect(modelLoadOf(arch, P70.total).fileBytes).toBe(SAFETENSORS_FILE_BYTES);
    // Llama-3.1-70B's Hub files are about 5 GB (30 files): read from its headers, each process holds 5 GB.
    const read = modelLoadOf({ ...arch, safetensorsFileBytes: 5e9 }, P70.total);
    expect(read).toEqual({
      checkpointBytes: CKPT70,
      routedExperts: false,
      quantizedBytes: q,
      fileBytes: 5e9,
    });
    expect(hostRamOf('hf-fsdp', 3, 8, 0, 'nf4', read).loadingBytes).toBe(q + 8 * 5e9);
  });

  it('only on the layer-by-layer path: ZeRO-2, routed experts and 16-bit weights load as before', () => {
    expect(hostRamOf('hf-fsdp', 2, 2, 0, 'nf4', modelLoad(CKPT70, false, 1)).loadingBytes).toBe(0);
    expect(hostRamOf('hf-fsdp', 3, 2, 0, 'nf4', modelLoad(CKPT70, true, 1)).loadingBytes).toBe(0);
    expect(hostRamOf('hf-fsdp', 3, 2, 0, 'bf16', modelLoad(CKPT70, false, 1)).loadingBytes).toBe(
      CKPT70,
    );
  });

  it('Llama-3.1-70B QLoRA plans on 2x RTX 4090 with 128 GiB of host RAM (FSDP-QLoRA, CPU offload)', () => {
    const r = planYaml(
      'qlora-70b-2x4090.yaml',
      `name: qlora-70b-2x4090
model: llama-3.1-70b
job: { kind: fine-tune, methods: [qlora], seq: 2048, globalBatch: 16, datasetTokens: 5000000 }
hardware: { owned: [{ gpu: rtx-4090, count: 2 }], counts: { min: 2, max: 2 }, hostRamGiB: 128 }
rank: time
`,
      1,
    );
    expect(r.fits).toBe(true);
    const best = r.plans[0]!;
    expect(best.choices.engine).toBe('hf-fsdp');
    expect(best.options.zero).toBe(3);
    expect(best.choices.offload).toBe('optimizer+params');
    expect(best.hostRam.loadingBytes).toBeLessThan(60 * GiB);
    expect(best.hostRam.perNodeBytes).toBeLessThanOrEqual(128 * GiB);
  });
});
