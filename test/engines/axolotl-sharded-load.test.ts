/**
 * NF4 FSDP-QLoRA on hf-fsdp loads through axolotl 0.19.0's layer-by-layer loader (qlora_sharded_model_loading with
 * fsdp_config.cpu_ram_efficient_loading: utils/model_shard_quant.py load_sharded_model_quant): each tensor is
 * quantized on the GPU and kept on local rank 0's host, so the load phase holds the shards and two quantize-on-load
 * transients, not the whole model. axolotl.yaml sets the key, train.py (whole load) is not written for it, and
 * `--from` on the written yaml gives the plan's estimate; a config without the key loads whole.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { parallelNote } from '../../src/core/engines/engines-runs.js';
import { buildEstimate } from '../../src/core/estimate.js';
import { mergeFlags } from '../../src/core/from/index.js';
import { buildLaunch } from '../../src/core/launch/index.js';
import {
  hostRamOfOptions,
  SAFETENSORS_FILE_BYTES,
  shardedQuantHostBytes,
} from '../../src/core/memory/host-ram.js';
import { paramCounts } from '../../src/core/model/params.js';
import { estimateMemory } from '../../src/core/memory/index.js';
import { readFromConfig } from '../../src/io/from/read.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { GiB } from '../../src/core/units.js';
import { launchInputOf } from '../helpers/launch.js';
import { planYaml } from '../helpers/plan.js';

type Flags = Record<string, string | number | boolean>;
const optionsOf = (f: Flags) => withEngineDefaults(optionsFromFlags(f), f);
const arch = resolveModel('llama-2-70b');
const FSDP_QLORA: Flags = {
  framework: 'hf-fsdp',
  method: 'qlora',
  'lora-targets': 'all-linear',
  'double-quant': true,
  batch: 2,
  checkpointing: 'full',
  zero: 3,
  gpus: 8,
};
const phaseOf = (e: ReturnType<typeof estimateMemory>, name: string) =>
  e.phases.find((p) => p.phase === name)!;
const tmp = mkdtempSync(join(tmpdir(), 'vramplan-axoshard-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("hf-fsdp NF4 QLoRA loads through axolotl's sharded loader", () => {
  it('the load phase holds the shards and two quantize-on-load transients, below the step', () => {
    const o = optionsOf(FSDP_QLORA);
    const sharded = estimateMemory(arch, o);
    const whole = estimateMemory(arch, o, { quantizerLoadsWhole: true });
    const load = phaseOf(sharded, 'load').parts;
    expect(sharded.peakPhase).not.toBe('load');
    expect(load.weights).toBe(phaseOf(sharded, 'forward').parts.weights);
    // Two workers (loading_workers=2) each hold one tensor being quantized: twice the one-tensor transient.
    expect(load.buffers).toBe(2 * phaseOf(whole, 'load').parts.buffers);
    expect(phaseOf(whole, 'load').parts.weights).toBeGreaterThan(30 * GiB);
    expect(whole.peakPhase).toBe('load');
    // fp4 is not what the loader builds (its Linear4bit is NF4): the whole load stays.
    expect(estimateMemory(arch, optionsOf({ ...FSDP_QLORA, weights: 'fp4' })).peakPhase).toBe(
      'load',
    );
    // DeepSpeed ZeRO-3 has no such loader (axolotl takes it under FSDP only).
    expect(
      estimateMemory(arch, optionsOf({ ...FSDP_QLORA, framework: 'hf-deepspeed' })).peakPhase,
    ).toBe('load');
    expect(parallelNote('hf-fsdp', o)).toMatch(/qlora_sharded_model_loading/);
  });

  it('a model with routed experts loads whole (the loader does not convert fused-expert checkpoints)', () => {
    const moe = resolveModel('qwen3-30b-a3b');
    const o = optionsOf({ ...FSDP_QLORA, gpus: 2 });
    const e = estimateMemory(moe, o);
    expect(phaseOf(e, 'load').parts.weights).toBe(
      phaseOf(estimateMemory(moe, o, { quantizerLoadsWhole: true }), 'load').parts.weights,
    );
    expect(phaseOf(e, 'load').parts.weights).toBeGreaterThan(
      1.9 * phaseOf(e, 'forward').parts.weights,
    );
    const out = buildLaunch(
      launchInputOf('qwen3-30b-a3b', 'a100-80gb-sxm', { ...FSDP_QLORA, gpus: 2 }),
    );
    // (Its LoRA on the fused experts is refused under FSDP1 anyway: rule fsdp1-peft-param-wrapper.)
    expect(out.files.find((f) => f.path === 'axolotl.yaml')?.content ?? '').not.toContain(
      'qlora_sharded_model_loading',
    );
  });

  it("rank 0's host holds the NF4 model and each process one safetensors file while loading (not nil)", () => {
    const o = optionsOf(FSDP_QLORA);
    const e = buildEstimate(arch, o, findGpu('rtx-3090'));
    const host = hostRamOfOptions(arch, o, e.params.total, e.hostBytesPerGpu);
    expect(host.loadingBytes).toBe(
      shardedQuantHostBytes(paramCounts(arch)) + 8 * SAFETENSORS_FILE_BYTES,
    );
    // Under the 16-bit checkpoint (128 GiB for Llama-2-70B), far over nothing.
    expect(host.loadingBytes).toBeGreaterThan(60 * GiB);
    expect(host.loadingBytes).toBeLessThan(120 * GiB);
    const fp4 = optionsOf({ ...FSDP_QLORA, weights: 'fp4' });
    expect(hostRamOfOptions(arch, fp4, e.params.total, e.hostBytesPerGpu).loadingBytes).toBe(0);
  });

  it('a 70B FSDP QLoRA fits 8x RTX 3090 again', () => {
    const scenario = `name: fsdp-qlora-sharded-load
model: llama-2-70b
job: { kind: fine-tune, methods: [qlora], seq: 2048, globalBatch: 16, datasetTokens: 5000000 }
hardware: { owned: [{ gpu: rtx-3090, count: 8 }], counts: { min: 8, max: 8 }, hostRamGiB: 256 }
search: { engines: [hf-fsdp], optimizers: [adamw], checkpointing: [full], attention: [sdpa] }
rank: time
`;
    const r = planYaml('fsdp-qlora-sharded-3090.yaml', scenario, 1);
    expect(r.fits).toBe(true);
    expect(r.plans[0]!.choices.zero).toBe(3);
    expect(r.plans[0]!.choices.weights).toBe('nf4');
  });
});

describe('axolotl.yaml sets qlora_sharded_model_loading, and --from reads it', () => {
  const x = launchInputOf('llama-2-70b', 'rtx-3090', FSDP_QLORA);
  const bundle = buildLaunch(x);
  const text = bundle.files.find((f) => f.path === 'axolotl.yaml')?.content ?? '';
  const dir = join(tmp, 'fsdp-qlora');
  mkdirSync(dir, { recursive: true });

  it('writes the key with FSDP1 cpu_ram_efficient_loading, and no train.py args', () => {
    const c = parse(text) as Record<string, unknown>;
    expect(c.qlora_sharded_model_loading).toBe(true);
    expect(c.adapter).toBe('qlora');
    expect(c.fsdp_version).toBe(1);
    expect((c.fsdp_config as Record<string, unknown>).cpu_ram_efficient_loading).toBe(true);
    expect(bundle.files.some((f) => f.path === 'hf-args.json')).toBe(false);
  });

  it('is not written for 16-bit LoRA, fp4, ZeRO-2 or DeepSpeed', () => {
    const cases: Flags[] = [
      { ...FSDP_QLORA, method: 'lora', weights: 'bf16' },
      { ...FSDP_QLORA, weights: 'fp4' },
      { ...FSDP_QLORA, zero: 2 },
      { ...FSDP_QLORA, framework: 'hf-deepspeed' },
    ];
    for (const flags of cases) {
      const out = buildLaunch(launchInputOf('llama-2-70b', 'rtx-a6000', flags));
      const yaml = out.files.find((f) => f.path === 'axolotl.yaml')?.content ?? '';
      expect(yaml, JSON.stringify(flags)).not.toContain('qlora_sharded_model_loading');
    }
  });

  it('--from on the written yaml gives the estimate the plan has', () => {
    writeFileSync(join(dir, 'axolotl.yaml'), text);
    const c = readFromConfig(join(dir, 'axolotl.yaml'));
    expect(c.build?.quantizerLoadsWhole).toBeUndefined();
    const flags = mergeFlags(c, { gpus: 8 });
    const back = withEngineDefaults(optionsFromFlags(flags), flags);
    const gpu = findGpu('rtx-3090');
    const fromEstimate = buildEstimate(arch, back, gpu, undefined, c.build);
    expect(fromEstimate.perGpu).toEqual(x.estimate.perGpu);
    expect(fromEstimate.fits).toBe(true);
  });

  it('without the key (or without cpu_ram_efficient_loading) the model loads whole', () => {
    const c = parse(text) as Record<string, unknown>;
    const fsdp = c.fsdp_config as Record<string, unknown>;
    for (const [name, doc] of [
      ['no-key', { ...c, qlora_sharded_model_loading: false }],
      ['no-efficient', { ...c, fsdp_config: { ...fsdp, cpu_ram_efficient_loading: false } }],
    ] as const) {
      const file = join(dir, `${name}.yaml`);
      writeFileSync(file, JSON.stringify(doc));
      const r = readFromConfig(file);
      expect(r.build?.quantizerLoadsWhole, name).toBe(true);
      const flags = mergeFlags(r, { gpus: 8 });
      const o = withEngineDefaults(optionsFromFlags(flags), flags);
      expect(estimateMemory(arch, o, r.build).peakPhase, name).toBe('load');
    }
  });
});
