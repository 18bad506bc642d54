// The engine × method × weights × attention × GPU family grid, as `estimate --framework <engine>` runs it:
// each configuration is estimated or refused, and every refusal names the engine's own source (a file at a
// tag or commit, or an issue) for what the engine raises on or lacks a kernel for.
import { describe, expect, it } from 'vitest';
import { estimateChecks } from '../../src/commands/estimate-run.js';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { ENGINE_PROFILES } from '../../src/core/engines/engines.js';
import { engineRuns, lossNote, notWritten } from '../../src/core/engines/engines-runs.js';
import { ATTENTION, METHODS, WEIGHT_DTYPES } from '../../src/schema/estimate.js';
import { ENGINES, type Engine } from '../../src/schema/engine.js';
import { optionsFromFlags, type RawFlags } from '../../src/schema/flags.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';

// One GPU per family: Volta, Turing, Ampere, Ada, Hopper, Blackwell; ROCm CDNA2 and CDNA3; Apple (no CUDA).
const FAMILIES = [
  'v100-32gb',
  't4',
  'a100-80gb-sxm',
  'rtx-4090',
  'h100-sxm',
  'b200',
  'mi250x',
  'mi300x',
  'apple-m4-max-128gb',
];
const SOURCE =
  /https:\/\/github\.com\/[^/\s]+\/[^/\s]+\/((blob|tree)\/(v?\d[\w.-]*|[0-9a-f]{7,40})\/|(issues|pull)\/\d+)/;

const arch = resolveModel('llama-3.1-8b');
const gpus = FAMILIES.map((id) => findGpu(id));

type Outcome = { key: string; refusal: string | null };

function walk(engine: Engine): Outcome[] {
  const out: Outcome[] = [];
  for (const method of METHODS)
    for (const weights of WEIGHT_DTYPES)
      for (const attention of ATTENTION)
        for (const gpu of gpus) {
          const flags: RawFlags = { framework: engine, method, weights, attention, gpu: gpu.id };
          let parsed;
          try {
            parsed = optionsFromFlags(flags);
          } catch {
            continue; // the flags themselves are invalid (e.g. qlora with bf16 weights): not the engine's refusal
          }
          const key = `${engine} ${method} ${weights} ${attention} ${gpu.id}`;
          try {
            const options = withEngineDefaults(parsed, flags);
            estimateChecks(arch, options, flags, gpu);
            out.push({ key, refusal: null });
          } catch (e) {
            out.push({ key, refusal: (e as Error).message });
          }
        }
  return out;
}

describe('what each engine runs: the grid', () => {
  const all = ENGINES.flatMap((e) => walk(e));

  it('walks every engine with both estimates and refusals', () => {
    for (const e of ENGINES)
      expect(all.some((o) => o.key.startsWith(`${e} `) && !o.refusal)).toBe(true);
    expect(all.filter((o) => o.refusal).length).toBeGreaterThan(100);
  });

  it('every refusal carries a rule with the engine source at a tag or commit', () => {
    const bare = all.filter((o) => o.refusal && !SOURCE.test(o.refusal));
    expect(bare.map((o) => `${o.key}: ${o.refusal}`).slice(0, 10)).toEqual([]);
  });

  const accepted = (key: string) => {
    const o = all.find((x) => x.key === key);
    expect(o, key).toBeDefined();
    return o!.refusal;
  };

  it('estimates what the engines run that vramplan does not launch', () => {
    expect(accepted('torchtune inference bf16 sdpa rtx-4090')).toBeNull();
    expect(accepted('litgpt inference nf4 sdpa a100-80gb-sxm')).toBeNull();
    expect(accepted('litgpt full bf16 flash h100-sxm')).toBeNull();
    expect(accepted('unsloth lora bf16 flash rtx-4090')).toBeNull();
    expect(accepted('unsloth lora bf16 eager rtx-4090')).toBeNull();
    expect(accepted('unsloth qlora nf4 eager t4')).toBeNull();
    expect(accepted('vllm inference fp8 sdpa mi300x')).toBeNull();
    expect(accepted('vllm inference int8 sdpa mi300x')).toBeNull(); // compressed-tensors W8A8 on ROCm
    expect(accepted('llama.cpp inference mxfp4 flash rtx-4090')).toBeNull();
    // torchtitan 0.3.0's LoRAConverter (vramplan writes full fine-tunes only).
    expect(accepted('torchtitan lora bf16 sdpa h100-sxm')).toBeNull();
  });

  it('still refuses what the engine lacks, naming its source', () => {
    expect(accepted('vllm inference fp8 sdpa mi250x')).toMatch(
      /no fp8 kernel for gfx90a.*supported_hardware\.md/,
    );
    expect(accepted('sglang inference int8 sdpa mi300x')).toMatch(/no int8 kernel for gfx942/);
    expect(accepted('vllm full bf16 sdpa h100-sxm')).toMatch(/vllm runs inference only \(https:/);
    expect(accepted('torchtitan qlora nf4 sdpa h100-sxm')).toMatch(
      /torchtitan runs full\/lora only \(https:/,
    );
  });

  it('the planner and launch keep to what vramplan writes', () => {
    const o = withEngineDefaults(
      optionsFromFlags({ framework: 'torchtune', method: 'inference' }),
      {
        framework: 'torchtune',
      },
    );
    expect(engineRuns('torchtune').methods).toContain('inference');
    expect(ENGINE_PROFILES.torchtune.methods).not.toContain('inference');
    expect(notWritten('torchtune', o, 1, 1)).toMatch(/^vramplan writes no torchtune launch files/);
    const lora = withEngineDefaults(optionsFromFlags({ framework: 'torchtune', method: 'lora' }), {
      framework: 'torchtune',
    });
    expect(notWritten('torchtune', lora, 1, 1)).toBeNull();
  });
});

describe('an --attention the engine picks for itself', () => {
  const estimateOf = (framework: string, attention: string) => {
    const flags: RawFlags = { framework, method: 'lora', attention };
    return withEngineDefaults(optionsFromFlags(flags), flags).attention;
  };
  it('runs as what the engine runs, not as the flag says', () => {
    expect(estimateOf('litgpt', 'flash')).toBe('sdpa');
    expect(estimateOf('torchtune', 'eager')).toBe('sdpa');
    expect(estimateOf('unsloth', 'eager')).toBe('sdpa');
    // Unsloth calls flash_attn_func where flash-attn is installed.
    expect(estimateOf('unsloth', 'flash')).toBe('flash');
    expect(estimateOf('hf-trainer', 'eager')).toBe('eager');
  });

  it('--chunked-loss on a LitGPT full fine-tune runs unchunked (finetune_full has no switch), noted', () => {
    const flags: RawFlags = { framework: 'litgpt', method: 'full', 'chunked-loss': true };
    const o = withEngineDefaults(optionsFromFlags(flags), flags);
    expect(o.chunkedLoss).toBe(false);
    expect(lossNote('litgpt', true, o)).toMatch(/finetune\/full\.py/);
    const lora = { ...flags, method: 'lora' };
    expect(withEngineDefaults(optionsFromFlags(lora), lora).chunkedLoss).toBe(true);
  });

  it('a LitGPT LoRA fine-tune always runs its loss chunked (finetune_lora has no switch), noted when asked otherwise', () => {
    const flags: RawFlags = { framework: 'litgpt', method: 'lora' };
    expect(withEngineDefaults(optionsFromFlags(flags), flags).chunkedLoss).toBe(true);
    const off: RawFlags = { ...flags, 'chunked-loss': false };
    const o = withEngineDefaults(optionsFromFlags(off), off);
    expect(o.chunkedLoss).toBe(true);
    expect(lossNote('litgpt', false, o)).toMatch(/runs chunked on litgpt.*finetune\/lora\.py/);
    expect(lossNote('litgpt', true, o)).toBeNull();
  });
});
