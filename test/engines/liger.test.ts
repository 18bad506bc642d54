// --liger: Liger kernels on the Hugging Face engines, modelled by mechanism, searched, launched and read back.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildEstimate } from '../../src/core/estimate.js';
import { engineOf, onEngine } from '../../src/core/engines/index.js';
import { ligerPatches } from '../../src/core/kernels/liger.js';
import { mergeFlags } from '../../src/core/from/index.js';
import { buildLaunch } from '../../src/core/launch/index.js';
import { estimateMemory } from '../../src/core/memory/index.js';
import { plan, variantsOf } from '../../src/core/plan/index.js';
import { readFromConfig } from '../../src/io/from/read.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { parseScenario, resolveHardware } from '../../src/io/load-scenario.js';
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';
import { FlagError, optionsFromFlags } from '../../src/schema/flags.js';

const tmp = mkdtempSync(join(tmpdir(), 'vramplan-liger-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const llama3 = resolveModel('llama-3-8b');

describe('memory: what Liger keeps (Llama-3-8B, LoRA, bf16, seq 8192, no checkpointing)', () => {
  const plain: EstimateOptions = { ...defaultOptions('lora'), seq: 8192 };
  const phases = (o: EstimateOptions) => {
    const e = estimateMemory(llama3, o);
    const at = (name: string) => {
      const p = e.phases.find((x) => x.phase === name)!;
      return { act: p.parts.activations, logits: p.parts.logits };
    };
    return { forward: at('forward'), backward: at('backward') };
  };
  const before = phases(plain);
  const after = phases({ ...plain, liger: true });
  // Facts from the model's config.json: 32 layers, hidden 4096, intermediate 14336, vocabulary 128256.
  const T = 8192;
  const L = 32;
  const h = 4096;
  const I = 14_336;
  const V = 128_256;

  it('saved activations drop by the fp32 RMSNorm copies and the SwiGLU output', () => {
    // Eager LlamaRMSNorm saves an fp32 copy of its input (4 B), LigerRMSNorm the bf16 input (2 B): two norms
    // per layer. Eager act_fn(gate) * up saves gate, act(gate) and up; LigerSiLUMulFunction gate and up.
    const perTokenLayer = 2 * (4 - 2) * h + 2 * I;
    // The final norm: eager, its fp32 input beside the bf16 output lm_head reads; Liger's, the bf16 input alone.
    expect(before.backward.act - after.backward.act).toBe(L * T * perTokenLayer + 4 * h * T);
  });

  it('no vocabulary-sized logits: one chunk of logits in forward, the hidden-state gradient after it', () => {
    // inc_factor = cdiv(V, H) = 32; chunk_size = next_power_of_2(cdiv(8192, 32)) = 256 rows.
    const chunk = 256;
    expect(after.forward.logits).toBe(chunk * V * 2 + T * h * 2 + T * 4);
    expect(after.backward.logits).toBe(T * h * 2);
    // Plain HF: bf16 logits + fp32 upcast + fp32 log_softmax in forward; three fp32 tensors in backward.
    expect(before.forward.logits).toBe(T * V * (2 + 4 + 4));
    expect(before.backward.logits).toBe(T * V * 12);
  });

  it('activations + logits at the backward peak fall by the sum of both mechanisms', () => {
    const drop =
      before.backward.act + before.backward.logits - (after.backward.act + after.backward.logits);
    expect(drop).toBe(L * T * (4 * h + 2 * I) + 4 * h * T + T * V * 12 - T * h * 2);
    const e0 = buildEstimate(llama3, plain);
    const e1 = buildEstimate(llama3, { ...plain, liger: true });
    expect(e1.perGpu.deviceBytes).toBeLessThan(e0.perGpu.deviceBytes);
    expect(e1.options.liger).toBe(true);
  });

  it('a full fine-tune keeps the output layer gradient Liger makes in forward (and its fp32 product)', () => {
    const full: EstimateOptions = { ...defaultOptions('full'), seq: 8192 };
    const f = estimateMemory(llama3, { ...full, liger: true }).phases.find(
      (p) => p.phase === 'forward',
    )!;
    // grad_weight (bf16) + torch.mm(...) (bf16) + .float() (fp32) over V x H, beside the chunk and grad_input.
    expect(f.parts.logits).toBe(256 * V * 2 + T * h * 2 + T * 4 + V * h * (2 + 2 + 4));
  });
});

describe('contract', () => {
  it('options echo liger (default off)', () => {
    expect(optionsFromFlags({}).liger).toBe(false);
    expect(optionsFromFlags({ liger: true }).liger).toBe(true);
    expect(optionsFromFlags({ liger: true, framework: 'deepspeed' }).liger).toBe(true);
  });
  it('elsewhere: a one-line error naming the flag and the engines that run it', () => {
    for (const framework of ['torchtune', 'unsloth', 'litgpt', 'torchtitan', 'vllm']) {
      const run = () => optionsFromFlags({ liger: true, framework });
      expect(run).toThrow(FlagError);
      expect(run).toThrow(/^--liger: .*hf-trainer, hf-fsdp, hf-deepspeed/);
    }
  });
});

describe('model types Liger does not patch', () => {
  const phi = resolveModel('phi-2');
  it('phi (Liger 0.8.x patches no phi model) is a no-op in memory', () => {
    expect(ligerPatches(phi.modelType)).toBe(false);
    const o = { ...defaultOptions('lora'), seq: 4096 };
    expect(buildEstimate(phi, { ...o, liger: true }).perGpu).toEqual(buildEstimate(phi, o).perGpu);
  });
  it('the planner offers no Liger variant for it', () => {
    const s = scenario('phi-2', 'lora', 2048);
    expect(variantsOf(s, phi).some((v) => v.liger)).toBe(false);
    expect(
      variantsOf(s, llama3)
        .filter((v) => v.liger)
        .map((v) => v.engine),
    ).toEqual(['hf-trainer', 'hf-fsdp', 'hf-deepspeed']);
  });
});

function scenario(model: string, method: string, seq: number) {
  return parseScenario(
    'liger.yaml',
    `name: liger
model: ${model}
job: { kind: fine-tune, methods: [${method}], seq: ${seq}, globalBatch: 8, datasetTokens: 1000000, epochs: 1 }
hardware: { owned: [{ gpu: rtx-4090, count: 1 }], counts: { min: 1, max: 1 } }
search: { framework: hf }
rank: cost
`,
  );
}

describe('search: a 128k vocabulary on a 24 GB card', () => {
  it('Llama-3.1-8B LoRA at seq 8192 on an RTX 4090: Liger fits without offload, plain HF would not', () => {
    const s = scenario('llama-3.1-8b', 'lora', 8192);
    const arch = resolveModel(s.model);
    const hw = resolveHardware(s);
    const r = plan({ scenario: s, arch, hardware: hw.options, circuits: hw.circuits, top: 60 });
    // Every ranked plan runs Liger; the first ones may be one-GPU ZeRO-3 with the (tiny) adapter optimizer
    // offloaded, whose bf16 adapters (TRL under ZeRO-3) skip the fp32 adapter casts. The best plan without offload:
    expect(r.plans.slice(0, 3).every((p) => p.options.liger)).toBe(true);
    const best = r.plans.find((p) => p.options.offload === 'none')!;
    expect(best.options.liger).toBe(true);
    expect(best.options.offload).toBe('none');
    expect(best.options.checkpointing).not.toBe('offload');
    expect(best.id).toContain('-liger/');
    // The same configuration without Liger does not fit the card.
    const gpu = findGpu('rtx-4090');
    expect(buildEstimate(arch, { ...best.options, liger: false }, gpu).fits).toBe(false);
    expect(buildEstimate(arch, best.options, gpu).fits).toBe(true);
  });
});

describe('launch and --from', () => {
  const arch = resolveModel('llama-3.1-8b');
  const gpu = findGpu('a100-80gb');
  const launch = (flags: Record<string, unknown>) => {
    const asked = optionsFromFlags(flags);
    const options = onEngine(asked, engineOf(asked));
    const bundle = buildLaunch({
      arch,
      options,
      gpu,
      gradAccum: 2,
      powerLimitW: null,
      estimate: buildEstimate(arch, options, gpu),
      modelRef: arch.hfId ?? arch.id,
    });
    return { options, files: new Map(bundle.files.map((f) => [f.path, f.content])) };
  };
  const write = (name: string, files: Map<string, string>) => {
    const dir = join(tmp, name);
    for (const [path, content] of files) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), content);
    }
    return dir;
  };
  const readBack = (path: string) => optionsFromFlags(mergeFlags(readFromConfig(path), {}));

  it('--liger: use_liger_kernel, every axolotl Liger key, liger-kernel pinned; read back as liger', () => {
    const { files } = launch({ method: 'lora', liger: true });
    const args = JSON.parse(files.get('hf-args.json')!) as { sft_config: Record<string, unknown> };
    expect(args.sft_config.use_liger_kernel).toBe(true);
    expect(args.sft_config.liger_kernel_config).toBeUndefined();
    expect(files.get('requirements.txt')).toContain('liger-kernel==0.8.5');
    const yaml = files.get('axolotl.yaml')!;
    for (const line of [
      '- axolotl.integrations.liger.LigerPlugin',
      'liger_rope: true',
      'liger_rms_norm: true',
      'liger_glu_activation: true',
      'liger_fused_linear_cross_entropy: true',
    ])
      expect(yaml).toContain(line);
    const dir = write('liger', files);
    expect(readBack(dir).liger).toBe(true);
    expect(readBack(join(dir, 'axolotl.yaml')).liger).toBe(true);
  });

  it('--chunked-loss alone: Liger fused linear cross-entropy only, read back as chunked loss', () => {
    const { files } = launch({ method: 'lora', 'chunked-loss': true });
    const args = JSON.parse(files.get('hf-args.json')!) as { sft_config: Record<string, unknown> };
    expect(args.sft_config.use_liger_kernel).toBe(true);
    expect(args.sft_config.liger_kernel_config).toMatchObject({
      fused_linear_cross_entropy: true,
      rms_norm: false,
      swiglu: false,
      rope: false,
    });
    const yaml = files.get('axolotl.yaml')!;
    expect(yaml).toContain('liger_fused_linear_cross_entropy: true');
    expect(yaml).not.toContain('liger_rms_norm');
    const dir = write('chunked', files);
    for (const back of [readBack(dir), readBack(join(dir, 'axolotl.yaml'))]) {
      expect(back.chunkedLoss).toBe(true);
      expect(back.liger).toBe(false);
    }
  });

  it('LLaMA-Factory enable_liger_kernel reads as liger (as chunked loss under use_unsloth)', () => {
    const file = (name: string, extra: string) => {
      const path = join(tmp, name);
      writeFileSync(
        path,
        `model_name_or_path: meta-llama/Llama-3.1-8B\nstage: sft\nfinetuning_type: lora\ncutoff_len: 2048\nbf16: true\nenable_liger_kernel: true\n${extra}`,
      );
      return path;
    };
    expect(readBack(file('lf.yaml', '')).liger).toBe(true);
    const unsloth = readBack(file('lf-unsloth.yaml', 'use_unsloth: true\n'));
    expect(unsloth.liger).toBe(false);
    expect(unsloth.chunkedLoss).toBe(true);
  });
});
