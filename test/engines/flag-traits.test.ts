// The flags' engine checks read the registered engines' traits (schema/engine.ts enginesWith), so their
// messages name the engines that have the trait: llama.cpp for --gpu-layers, the engines that load GGUF files for GGUF weights, the Hugging Face
// Trainer engines for --liger, Unsloth for --tiled-mlp; `launch --sharding` picks among the engines whose
// profile sets shardingFlag.
import { describe, expect, it } from 'vitest';
import '../../src/core/engines/registry.js';
import { shardingFrameworks, shardingKinds } from '../../src/core/engines/sharding-flag.js';
import { enginesWith, frameworksWith } from '../../src/schema/engine.js';
import { flagsFromOptions, optionsFromFlags } from '../../src/schema/flags.js';

describe('engine traits the flags check', () => {
  it('are read from the registered profiles', () => {
    expect(enginesWith('layerOffload')).toEqual(['llama.cpp']);
    // vLLM and SGLang load GGUF files too (their runs.ts); vramplan writes GGUF plans for llama.cpp only.
    expect(enginesWith('ggufWeights')).toEqual(['vllm', 'sglang', 'llama.cpp']);
    // transformers' generate serves a GGUF file dequantized as it loads (hf-generate/runs.ts ggufDequantized).
    expect(enginesWith('ggufDequantized')).toEqual(['hf-generate']);
    expect(enginesWith('liger')).toEqual(['hf-trainer', 'hf-fsdp', 'hf-deepspeed']);
    expect(frameworksWith('liger')).toEqual(['hf', 'deepspeed']);
    expect(enginesWith('tiledMlp')).toEqual(['unsloth']);
    expect(shardingKinds()).toEqual(['deepspeed', 'fsdp']);
    expect(shardingFrameworks()).toEqual(['hf', 'deepspeed']);
  });

  it('name those engines in the messages', () => {
    const serve = { method: 'inference', framework: 'vllm' };
    expect(() => optionsFromFlags({ ...serve, 'gpu-layers': 10 })).toThrow(
      /only with --framework llama\.cpp \(its -ngl\)/,
    );
    expect(() => optionsFromFlags({ method: 'lora', framework: 'hf', weights: 'q4_k_m' })).toThrow(
      /a GGUF type only with --framework vllm or sglang or llama\.cpp /,
    );
    expect(() => optionsFromFlags({ method: 'lora', framework: 'torchtune', liger: true })).toThrow(
      /Liger kernels run on the hf engines hf-trainer, hf-fsdp, hf-deepspeed: --framework hf or deepspeed\)/,
    );
    expect(optionsFromFlags({ method: 'lora', framework: 'deepspeed', liger: true }).liger).toBe(
      true,
    );
    expect(() =>
      optionsFromFlags({ method: 'lora', framework: 'torchtune', 'tiled-mlp': true }),
    ).toThrow(
      /^--tiled-mlp: .*unsloth_tiled_mlp is Unsloth's FastLanguageModel\.from_pretrained option, unsloth\/models\/loader\.py: --framework unsloth\)$/,
    );
  });

  it('an engine id as framework writes the engine-dependent defaults back; a family name does not', () => {
    // `--framework <engine>` applies the engine's defaults (engines/defaults.ts); `hf` and `deepspeed` are no
    // engine's id and keep the contract's, so the command need not repeat them.
    const back = (framework: string) =>
      flagsFromOptions(optionsFromFlags({ method: 'lora', framework }));
    expect(back('hf')).not.toHaveProperty('checkpointing');
    expect(back('deepspeed')).not.toHaveProperty('attention');
    expect(back('torchtune')).toMatchObject({ checkpointing: 'none', attention: 'sdpa' });
  });
});
