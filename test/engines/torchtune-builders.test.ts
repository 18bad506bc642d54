// A config.json (not a catalog id) maps to the torchtune builder of its model_type and shape.
import { describe, expect, it } from 'vitest';
import { tuneModelId } from '../../src/core/engines/torchtune/builders.js';
import { caseArch } from '../../src/io/load-calibration.js';

const idOf = (file: string) => tuneModelId(caseArch({ config_file: file, model_hf_id: null }));

describe('torchtune builders by model_type and shape', () => {
  it('maps published configs to the builder their catalog id names', () => {
    expect(idOf('meta-llama__Llama-2-7b-hf.json')).toBe('llama-2-7b');
    expect(idOf('meta-llama__Llama-2-70b-hf.json')).toBe('llama-2-70b');
    expect(idOf('codellama__CodeLlama-7b-hf.json')).toBe('codellama-7b');
    expect(idOf('meta-llama__Meta-Llama-3-8B.json')).toBe('llama-3-8b');
    expect(idOf('meta-llama__Llama-3.1-8B-Instruct.json')).toBe('llama-3.1-8b');
    expect(idOf('meta-llama__Llama-3.2-1B.json')).toBe('llama-3.2-1b');
    expect(idOf('meta-llama__Llama-3.3-70B-Instruct.json')).toBe('llama-3.1-70b');
    expect(idOf('mistralai__Mistral-7B-v0.1.json')).toBe('mistral-7b-v0.1');
    expect(idOf('google__gemma-2b.json')).toBe('gemma-2b');
    expect(idOf('google__gemma-2-9b.json')).toBe('gemma-2-9b');
  });

  it('maps no builder where torchtune 0.6.1 ships none for the shape', () => {
    expect(idOf('codellama__CodeLlama-34b-hf.json')).toBeNull();
    expect(idOf('Qwen__Qwen3-0.6B.json')).toBeNull();
    expect(idOf('TinyLlama__TinyLlama-1.1B-intermediate-step-1431k-3T.json')).toBeNull();
    // Mistral v0.3 grew its vocabulary to 32,768: not mistral_7b's 32,000.
    expect(idOf('mistralai__Mistral-7B-v0.3.json')).toBeNull();
  });
});
