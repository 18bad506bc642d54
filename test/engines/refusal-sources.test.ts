// What the engines run and how a refusal that stands reads: hf-generate (transformers generate) runs NVFP4
// through FP-Quant on Blackwell; its multi-LoRA refusal, and a ZeRO stage on the wrong Hugging Face engine, name
// the field, the value, the engine's source and what runs it instead, in one line.
import { describe, expect, it } from 'vitest';
import { buildEstimate } from '../../src/core/estimate.js';
import { engineRefusal, withEngineDefaults } from '../../src/core/engines/defaults.js';
import { ENGINE_PROFILES } from '../../src/core/engines/engines.js';
import { kernelRefusal } from '../../src/core/engines/kernels.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { estimateChecks, runEstimate } from '../../src/commands/estimate-run.js';
import { stdoutOf } from '../helpers/published-configs.js';

const llama = resolveModel('llama-3.1-8b');
const SOURCE = /https:\/\/github\.com\/huggingface\/transformers\/(blob|tree)\/[0-9a-f]{40}\//;

function onGenerate(flags: Record<string, unknown>, gpu = 'b200') {
  const all = { method: 'inference', framework: 'hf-generate', batch: 8, seq: 4096, ...flags };
  const o = withEngineDefaults(optionsFromFlags(all), all);
  return {
    o,
    refusal: engineRefusal(llama, o, all),
    e: () => buildEstimate(llama, o, findGpu(gpu)),
  };
}

describe('hf-generate: what transformers runs', () => {
  it('NVFP4 on Blackwell (FP-Quant with QuTLASS) is estimated, finite and smaller than bf16', () => {
    for (const gpu of ['b200', 'rtx-5090']) {
      const nv = onGenerate({ weights: 'nvfp4' }, gpu);
      expect(nv.refusal, gpu).toBeNull();
      expect(kernelRefusal('hf-generate', 'nvfp4', findGpu(gpu).computeCapability)).toBeNull();
      const e = nv.e();
      const bf16 = onGenerate({ weights: 'bf16' }, gpu).e();
      expect(Number.isFinite(e.time!.decodeTokensPerSecond!)).toBe(true);
      expect(e.perGpu.breakdown.weights).toBeLessThan(0.4 * bf16.perGpu.breakdown.weights);
    }
    // Estimated, not written: the launcher's set is unchanged.
    expect(ENGINE_PROFILES['hf-generate'].baseWeights).not.toContain('nvfp4');
  });
  it('NVFP4 below Blackwell and on AMD GPUs is refused with the quantizer as source', () => {
    for (const cc of ['9.0', '8.9', 'gfx942']) {
      const why = kernelRefusal('hf-generate', 'nvfp4', cc);
      expect(why, cc).toMatch(SOURCE);
      expect(why, cc).toMatch(/nvfp4/);
    }
    expect(kernelRefusal('hf-generate', 'nvfp4', '9.0')).toMatch(/estimate --weights bf16/);
  });
  it('multi-LoRA serving is refused in one line naming the field, value, source and what runs instead', () => {
    const why = onGenerate({ 'max-loras': 4 }).refusal!;
    expect(why).toMatch(/^hf-generate: --max-loras: got 4; /);
    expect(why).toMatch(/integrations\/peft\.py/);
    expect(why).toMatch(SOURCE);
    expect(why).toMatch(/vllm, sglang or llama\.cpp/);
    expect(why).not.toMatch(/\n/);
  });
});

describe('--dp-attention with one data-parallel rank', () => {
  it('is estimated as plain tensor parallelism, with a note', () => {
    const qwen = resolveModel('qwen3-30b-a3b');
    for (const framework of ['vllm', 'sglang']) {
      const flags = {
        method: 'inference',
        framework,
        gpus: 8,
        tp: 8,
        ep: 8,
        'dp-attention': true,
      };
      const o = withEngineDefaults(optionsFromFlags(flags), flags);
      expect(o.dpAttention, framework).toBeUndefined();
      const notes = estimateChecks(qwen, o, flags, findGpu('h200-sxm'));
      expect(notes.join('\n'), framework).toMatch(/attention DP of width 1/);
      const e = buildEstimate(qwen, o, findGpu('h200-sxm'));
      expect(Number.isFinite(e.time!.decodeTokensPerSecond!)).toBe(true);
    }
  });
});

describe('a ZeRO stage on the wrong Hugging Face engine', () => {
  const refusalOf = (framework: string, zero: number, more: Record<string, unknown> = {}) => {
    const flags = { framework, method: 'full', gpus: 8, zero, ...more };
    // A stage that resolves to another engine is refused as the engine defaults are applied.
    try {
      const o = withEngineDefaults(optionsFromFlags(flags), flags);
      return engineRefusal(llama, o, flags);
    } catch (e) {
      return (e as Error).message;
    }
  };
  it('names the stage, what the engine runs, its source and the engine that runs the stage', () => {
    const cases: [string, number, RegExp][] = [
      [
        'hf-trainer',
        3,
        /--zero: got 3; expected 0: .*--framework hf-deepspeed.*--framework hf-fsdp/,
      ],
      ['hf-fsdp', 1, /--zero: got 1; expected 2 or 3: .*ZeRO-1 hf-deepspeed/],
      ['hf-deepspeed', 0, /--zero: got 0; expected 1, 2 or 3: .*--framework hf-trainer/],
    ];
    for (const [framework, zero, message] of cases) {
      const why = refusalOf(framework, zero)!;
      expect(why, framework).toMatch(message);
      expect(why, framework).toMatch(
        /https:\/\/github\.com\/huggingface\/\w+\/blob\/[0-9a-f]{40}\//,
      );
    }
    expect(refusalOf('hf-trainer', 0, { tp: 2 })).toMatch(
      /--tp: got 2; expected 1: .*--framework hf-fsdp/,
    );
    // The stages each engine runs are not refused.
    expect(refusalOf('hf-fsdp', 3)).toBeNull();
    expect(refusalOf('hf-deepspeed', 3)).toBeNull();
  });
});

describe('llama.cpp weights', () => {
  const onLlamaCpp = (weights: string, gpu = 'rtx-5090') => {
    const flags = { method: 'inference', framework: 'llama.cpp', weights, batch: 1, seq: 4096 };
    const o = withEngineDefaults(optionsFromFlags(flags), flags);
    return {
      refusal: engineRefusal(llama, o, flags),
      e: () => buildEstimate(llama, o, findGpu(gpu)),
    };
  };
  it('NVFP4 GGUF (GGML_TYPE_NVFP4) is estimated: 4.5-bit linears, the output layer kept 16-bit', () => {
    const nv = onLlamaCpp('nvfp4');
    expect(nv.refusal).toBeNull();
    const e = nv.e();
    const q4 = onLlamaCpp('q4_k_m').e();
    const bf16 = onLlamaCpp('bf16').e();
    const held = (x: typeof e) => x.perGpu.breakdown.weights + x.perGpu.breakdown.quantConstants;
    expect(held(e)).toBeGreaterThan(held(q4));
    expect(held(e)).toBeLessThan(0.4 * held(bf16));
    expect(Number.isFinite(e.time!.decodeTokensPerSecond!)).toBe(true);
    expect(e.time!.decodeTokensPerSecond!).toBeGreaterThan(bf16.time!.decodeTokensPerSecond!);
    // Estimated, not written.
    expect(ENGINE_PROFILES['llama.cpp'].baseWeights).not.toContain('nvfp4');
  });
  it('a safetensors format is refused naming the field, what llama.cpp loads and its GGUF counterpart', () => {
    for (const [w, to] of [
      ['int4', 'q4_k_m'],
      ['fp8', 'q8_0'],
      ['int8', 'q8_0'],
    ]) {
      const why = onLlamaCpp(w!).refusal!;
      expect(why, w).toMatch(
        new RegExp(`^llama\\.cpp: --weights: got '${w}'; expected one of .*nvfp4`),
      );
      expect(why, w).toMatch(/https:\/\/github\.com\/ggml-org\/llama\.cpp\/blob\/[0-9a-f]{40}\//);
      expect(why, w).toMatch(new RegExp(`--weights ${to}\\b`));
    }
  });
});

describe('--images on a model whose images enter by cross-attention', () => {
  it('says why, not that the model has no vision tower', () => {
    const run = (model: string) => () =>
      runEstimate(resolveModel(model), { method: 'lora', images: 1 }, true);
    expect(run('llama-3.2-11b-vision')).toThrow(/cross-attention layers, not as tokens/);
    expect(run('llama-3.1-8b')).toThrow(/has no vision tower/);
  });
});

describe('torchtitan ZeRO stages', () => {
  it('a stage other than 3 is refused naming FSDP2 at any degree, its source and --zero 3', () => {
    for (const zero of [0, 2]) {
      const flags = { framework: 'torchtitan', method: 'full', gpus: 8, zero };
      const o = withEngineDefaults(optionsFromFlags(flags), flags);
      const why = engineRefusal(llama, o, flags)!;
      expect(why).toMatch(new RegExp(`^torchtitan: --zero: got ${zero}; expected 3: `));
      expect(why).toMatch(/https:\/\/github\.com\/pytorch\/torchtitan\/blob\/v0\.3\.0\//);
    }
    // Another refused set keeps its own line.
    const q = { framework: 'torchtitan', method: 'qlora', gpus: 8 };
    const oq = withEngineDefaults(optionsFromFlags(q), q);
    expect(engineRefusal(llama, oq, q)).toMatch(/torchtitan runs full\/lora only/);
  });
});

describe('MXFP4 weights in training', () => {
  it('is refused citing the MXFP4 quantizer, naming what gpt-oss trains in instead', () => {
    expect(() =>
      optionsFromFlags({ framework: 'unsloth', method: 'lora', weights: 'mxfp4' }),
    ).toThrow(/quantizer_mxfp4\.py.*--weights bf16, or nf4 with --method qlora/);
  });
});

describe('a TP degree that splits the attention heads but not the KV heads', () => {
  // phi-4: 40 attention heads, 10 KV heads. --tp 4 divides the heads, so the refusal must cite where the engine
  // fails on the KV heads (vLLM's QKVParallelLinear, SGLang's attention asserts), not the heads' check alone.
  const phi4 = resolveModel('phi-4');
  const refusalOf = (framework: string, tp: number) => {
    const flags = { framework, method: 'inference', gpus: tp, tp };
    try {
      runEstimate(phi4, flags, true);
      return null;
    } catch (e) {
      return (e as Error).message;
    }
  };
  it('cites the KV-head split on vLLM and SGLang', () => {
    expect(refusalOf('vllm', 4)).toMatch(
      /expected one of 1, 2, 5, 10, 20, 40 .*QKVParallelLinear asserts .*divides the KV heads.*vllm\/model_executor\/layers\/linear\.py/,
    );
    expect(refusalOf('sglang', 8)).toMatch(
      /total_num_kv_heads % tp_size == 0 .*tp_size % total_num_kv_heads == 0 .*models\/llama\.py:183-193/,
    );
  });
  it('runs the degrees that split or replicate the KV heads', () => {
    for (const framework of ['vllm', 'sglang'])
      for (const tp of [2, 20]) {
        let why: string | null = 'not run';
        stdoutOf(() => (why = refusalOf(framework, tp)));
        expect(why, `${framework} --tp ${tp}`).toBeNull();
      }
  });
});

describe('vLLM int4 on Volta (SM 7.0)', () => {
  // vLLM's supported-hardware table: GPTQ runs on Volta, AWQ and Marlin do not.
  it('runs a GPTQ checkpoint (--quant-format gptq) and refuses AWQ, naming the GPTQ kernels', () => {
    expect(kernelRefusal('vllm', 'int4', '7.0', 'gptq')).toBeNull();
    const awq = kernelRefusal('vllm', 'int4', '7.0', 'awq');
    expect(awq).toMatch(/GPTQ kernels on 7\.0 \(--quant-format gptq\).*supported_hardware\.md/);
    expect(kernelRefusal('vllm', 'int4', '7.0')).toMatch(/--quant-format gptq/);
    expect(kernelRefusal('vllm', 'int4', '7.5', 'awq')).toBeNull();
    expect(kernelRefusal('vllm', 'int4', '6.1', 'gptq')).toMatch(/compute capability 6\.1/);
  });
  it('estimates it with finite figures on a V100', () => {
    const flags = {
      framework: 'vllm',
      method: 'inference',
      weights: 'int4',
      'quant-format': 'gptq',
      gpu: 'v100-32gb',
    };
    const out = stdoutOf(() => runEstimate(llama, flags, true));
    const r = JSON.parse(out) as { time: { decodeTokensPerSecond: number } };
    expect(Number.isFinite(r.time.decodeTokensPerSecond)).toBe(true);
  });
});

describe('a refusal cites the source of the check that refused it', () => {
  it('an offloaded layout refused for its weights or its optimizer cites that set, not the layout', () => {
    const refusal = (flags: Record<string, unknown>) => {
      const all = { gpu: 'h100-sxm', zero: 3, gpus: 4, offload: 'optimizer+params', ...flags };
      return engineRefusal(llama, withEngineDefaults(optionsFromFlags(all), all), all);
    };
    expect(refusal({ framework: 'torchtune', method: 'lora', weights: 'int8' })).toMatch(
      /torchtune no int8 weights .*torchtune\/training\/precision\.py/,
    );
    expect(refusal({ framework: 'hf-fsdp', method: 'full', optimizer: 'adam-mini' })).toMatch(
      /hf-fsdp no adam-mini optimizer .*transformers\/training_args\.py/,
    );
  });

  it("--optimizer-in-backward on the Trainer engines names the Trainer's own in-backward optimizers", () => {
    for (const [framework, zero] of [
      ['hf-trainer', 0],
      ['hf-fsdp', 3],
      ['hf-deepspeed', 3],
    ] as const) {
      const all = { framework, method: 'full', zero, gpus: 1, 'optimizer-in-backward': true };
      const r = engineRefusal(llama, withEngineDefaults(optionsFromFlags(all), all), all);
      expect(r, framework).toMatch(
        /no optimizer-in-backward here \(https:\/\/pypi\.org\/project\/transformers\/5\.14\.1\/ \(wheel\) transformers\/trainer_optimizer\.py: .*LOMO\/AdaLomo.*GaLore\/APOLLO.*which vramplan does not model\)/,
      );
    }
  });

  it("Unsloth's Adam-mini refusal cites the TrainingArguments.optim names of the transformers it pins", () => {
    const all = { framework: 'unsloth', method: 'lora', optimizer: 'adam-mini' };
    const r = engineRefusal(llama, withEngineDefaults(optionsFromFlags(all), all), all);
    expect(r).toMatch(
      /unsloth no adam-mini optimizer \(https:\/\/pypi\.org\/project\/transformers\/5\.5\.0\/ \(wheel\) transformers\/training_args\.py:111-157/,
    );
  });
});
