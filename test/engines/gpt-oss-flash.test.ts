// gpt-oss on the Hugging Face training engines: transformers 5.14.1 swaps a flash request for the kernels hub's
// kernels-community/vllm-flash-attn3 (GptOssPreTrainedModel._compatible_flash_implementations), whose attention
// sinks run on Hopper only ("S aux is currently only supported for Hopper GPUs", flash_api.cpp). Elsewhere the
// planner trains it with eager attention (sdpa is refused for gpt_oss), and `estimate --gpu` estimates flash with a note naming the
// Hopper-only kernel (published runs report those memory figures).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { flashRefusal } from '../../src/core/engines/kernels.js';
import { plan } from '../../src/core/plan/index.js';
import { planInputOf } from '../../src/io/plan-scenario.js';
import { scenarioSchema } from '../../src/schema/scenario.js';
import { runCli } from '../helpers/run-cli.js';

const HF = ['hf-trainer', 'hf-fsdp', 'hf-deepspeed'] as const;

// One GPU per architecture class: Ampere (A100 8.0, RTX 3090 8.6), Ada (L40S, RTX 4090: 8.9), Hopper (9.0),
// Blackwell (10.0: the kernel is built for 8.0 and 9.0a only).
const CLASSES = [
  { gpu: 'a100-80gb-sxm', cc: '8.0', flash: false },
  { gpu: 'rtx-3090', cc: '8.6', flash: false },
  { gpu: 'l40s', cc: '8.9', flash: false },
  { gpu: 'rtx-4090', cc: '8.9', flash: false },
  { gpu: 'h100-sxm', cc: '9.0', flash: true },
  { gpu: 'b200', cc: '10.0', flash: false },
] as const;

describe('gpt-oss flash attention on the HF engines, by GPU architecture', () => {
  it('runs on Hopper only; other models keep flash everywhere the GPU has it', () => {
    for (const engine of HF)
      for (const c of CLASSES) {
        const why = flashRefusal(engine, 'gpt_oss', c.cc);
        if (c.flash) expect(why).toBeNull();
        else expect(why).toMatch(/vllm-flash-attn3.*Hopper.*eager/);
        expect(flashRefusal(engine, 'llama', c.cc)).toBeNull();
      }
    // Not an HF engine: no such swap.
    expect(flashRefusal('torchtune', 'gpt_oss', '8.0')).toBeNull();
  });

  const scenario = (gpu: string) =>
    scenarioSchema.parse({
      name: 'oss',
      model: 'gpt-oss-20b',
      job: { kind: 'fine-tune', methods: ['lora'], seq: 1024, globalBatch: 8 },
      search: { engines: [...HF], optimizers: ['adamw'], checkpointing: ['full'] },
      hardware: { owned: [{ gpu, count: 1 }], counts: { min: 1, max: 1 }, hostRamGiB: 256 },
    });

  for (const c of CLASSES.filter((x) => x.gpu !== 'rtx-3090' && x.gpu !== 'b200')) {
    it(`a LoRA plan on ${c.gpu} trains with ${c.flash ? 'flash' : 'eager'} attention`, () => {
      const r = plan({ ...planInputOf('oss.yaml', scenario(c.gpu)), top: 20 });
      if (c.gpu === 'rtx-4090') {
        // 24 GB: nothing fits, and no flash plan is counted against the GPU's memory either.
        const noFlash = r.pruned.find((x) => x.code === 'no-model-flash');
        expect(noFlash?.count ?? 0).toBeGreaterThan(0);
        return;
      }
      expect(r.plans.length).toBeGreaterThan(0);
      const attentions = new Set(r.plans.map((p) => p.options.attention));
      expect(attentions.has('flash')).toBe(c.flash);
      if (!c.flash) expect(attentions).toEqual(new Set(['eager']));
    });
  }

  it('estimate --gpu notes that flash for gpt-oss runs on Hopper only, and estimates it', () => {
    const args = (gpu: string) => [
      'estimate',
      '--model',
      'gpt-oss-20b',
      '--method',
      'lora',
      '--framework',
      'hf-trainer',
      '--attention',
      'flash',
      '--gpu',
      gpu,
    ];
    const off = runCli(args('a100-80gb-sxm'));
    expect(off.status).toBe(0);
    expect(off.stdout).toMatch(/--attention flash:.*vllm-flash-attn3/s);
    const on = runCli(args('h100-sxm'));
    expect(on.status).toBe(0);
    expect(on.stdout).not.toMatch(/--attention flash:/);
  });

  it('the launch files load the MXFP4 checkpoint dequantized for a 16-bit plan (transformers trains no MXFP4)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vramplan-oss-'));
    try {
      const args = (method: string) => [
        'launch',
        '--model',
        'gpt-oss-20b',
        '--method',
        method,
        '--framework',
        'hf-fsdp',
        '--zero',
        '3',
        '--gpus',
        '2',
        '--attention',
        'flash',
        '--gpu',
        'h100-sxm',
        '--out',
        join(dir, method),
      ];
      expect(runCli(args('lora')).status).toBe(0);
      const py = readFileSync(join(dir, 'lora', 'train.py'), 'utf8');
      expect(py).toContain('model_kwargs["quantization_config"] = Mxfp4Config(dequantize=True)');
      expect(py.indexOf('Mxfp4Config(dequantize=True)')).toBeLessThan(
        py.indexOf('.from_pretrained(args["model_name_or_path"], **model_kwargs)'),
      );
      const yaml = readFileSync(join(dir, 'lora', 'axolotl.yaml'), 'utf8');
      expect(yaml).toMatch(/^model_quantization_config: Mxfp4Config$/m);
      expect(yaml).toMatch(/^model_quantization_config_kwargs:\n {2}dequantize: true$/m);
      // QLoRA would pass a BitsAndBytesConfig beside the checkpoint's Mxfp4Config, which transformers 5.14.1
      // refuses (merge_quantization_configs raises): launch writes nothing and names the rule.
      const qlora = [...args('qlora').slice(0, 6), 'hf-trainer', ...args('qlora').slice(11)];
      const q = runCli(qlora);
      expect(q.status).not.toBe(0);
      expect(q.stderr).toMatch(/transformers-bnb-on-quantized-checkpoint/);
      expect(existsSync(join(dir, 'qlora', 'train.py'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
