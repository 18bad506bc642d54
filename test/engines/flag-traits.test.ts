// The flags' engine checks read the registered engines' traits (schema/engine.ts enginesWith), so their
// messages name the engines that have the trait: llama.cpp for --gpu-layers and GGUF weights, the Hugging Face
// Trainer engines for --liger.
import { describe, expect, it } from 'vitest';
import { enginesWith, frameworksWith } from '../../src/schema/engine.js';
import { optionsFromFlags } from '../../src/schema/flags.js';

describe('engine traits the flags check', () => {
  it('are read from the registered profiles', () => {
    expect(enginesWith('layerOffload')).toEqual(['llama.cpp']);
    expect(enginesWith('ggufWeights')).toEqual(['llama.cpp']);
    expect(enginesWith('liger')).toEqual(['hf-trainer', 'hf-fsdp', 'hf-deepspeed']);
    expect(frameworksWith('liger')).toEqual(['hf', 'deepspeed']);
  });

  it('name those engines in the messages', () => {
    const serve = { method: 'inference', framework: 'vllm' };
    expect(() => optionsFromFlags({ ...serve, 'gpu-layers': 10 })).toThrow(
      /only with --framework llama\.cpp \(its -ngl\)/,
    );
    expect(() => optionsFromFlags({ ...serve, weights: 'q4_k_m' })).toThrow(
      /a GGUF type only with --framework llama\.cpp /,
    );
    expect(() => optionsFromFlags({ method: 'lora', framework: 'torchtune', liger: true })).toThrow(
      /Liger kernels run on the hf engines hf-trainer, hf-fsdp, hf-deepspeed: --framework hf or deepspeed\)/,
    );
    expect(optionsFromFlags({ method: 'lora', framework: 'deepspeed', liger: true }).liger).toBe(
      true,
    );
  });
});
