// Configurations engines' own recipes and published benchmarks run (test/fixtures/published/cases.json: vLLM
// recipes, SGLang docs, llama.cpp benchmark threads, axolotl, LLaMA-Factory and torchtune files, Unsloth
// notebooks), estimated as `vramplan estimate` does, with `--from <the recipe's own file>` where it ships one. Each
// gives finite figures, or a one-line refusal naming the field, the value, what is allowed and the engine's source.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { targetsOf } from '../../src/core/from/common.js';
import { readFromConfig } from '../../src/io/from/read.js';
import {
  CITED_SOURCE as SOURCE,
  PUBLISHED,
  PUBLISHED_AT,
  publishedCases,
  runPublished,
  type PublishedOutcome,
} from '../helpers/published-configs.js';

/**
 * The configurations the estimate still refuses, each for a reason its refusal cites: torchtune's Llama 4 recipes
 * are on its main branch after 0.6.1, the release its rules pin (pytorch/torchtune#2570).
 */
const STILL_REFUSED = new Set(['torchtune llama-4-scout full 8 gpus (main, after 0.6.1)']);

const cases = publishedCases();
const outcomes = new Map<string, PublishedOutcome>(cases.map((c) => [c.id, runPublished(c)]));
const out = (id: string): PublishedOutcome => {
  const o = outcomes.get(id);
  expect(o, id).toBeDefined();
  return o!;
};

describe('published configurations', () => {
  it('collects 40 to 130 configurations, each with its source and its file', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
    expect(cases.length).toBeLessThanOrEqual(130);
    expect(new Set(cases.map((c) => c.id)).size).toBe(cases.length);
    for (const c of cases) {
      expect(c.source, c.id).toMatch(PUBLISHED_AT);
      if (c.from) expect(existsSync(join(PUBLISHED, c.from)), c.from).toBe(true);
    }
  });

  it('each gives a finite estimate, or a one-line refusal that cites the engine source', () => {
    const bad = [...outcomes.values()]
      .filter((o) => o.refusal !== null)
      .filter(
        (o) => !SOURCE.test(o.refusal!) || o.refusal!.includes('\n') || !/: got /.test(o.refusal!),
      )
      .map((o) => `${o.id}: ${o.refusal}`);
    expect(bad).toEqual([]);
    for (const o of outcomes.values())
      if (o.refusal === null) expect(Number.isFinite(o.deviceGiB), o.id).toBe(true);
  });

  it('refuses only the configurations listed with their reason', () => {
    const refused = [...outcomes.values()].filter((o) => o.refusal !== null).map((o) => o.id);
    expect(refused.filter((id) => !STILL_REFUSED.has(id))).toEqual([]);
  });
});

describe('what the published files say, read', () => {
  const flagsOf = (file: string) => readFromConfig(join(PUBLISHED, file)).flags;

  it("NVIDIA's ModelOpt -FP4 checkpoints in vLLM's Blackwell recipes are NVFP4 (catalogs/checkpoints.json)", () => {
    expect(flagsOf('vllm-recipes/llama4-scout-fp4-blackwell.sh').weights).toBe('nvfp4');
    expect(flagsOf('vllm-recipes/llama3.3-70b-fp4-blackwell.sh')).toMatchObject({
      weights: 'nvfp4',
      'kv-cache-dtype': 'fp8',
    });
  });

  it("TRL's generation_batch_size is the generation batch (16 completions of one prompt in one batch)", () => {
    expect(flagsOf('trl/lora-without-regret-grpo.yaml')).toMatchObject({
      objective: 'grpo',
      generations: 16,
      'generation-batch': 16,
    });
  });

  it('llama-server lines from Windows and from builds where -fa was a switch keep the flags after -fa', () => {
    expect(flagsOf('llama-cpp/gpt-oss-120b-3080ti-ncmoe33.bat')).toMatchObject({
      framework: 'llama.cpp',
      weights: 'mxfp4',
      seq: 32000,
      'n-cpu-moe': 33,
    });
    expect(flagsOf('llama-cpp/readme-windows-7b.ps1')).toMatchObject({
      framework: 'llama.cpp',
      seq: 2048,
    });
    // ggml-org/llama.cpp#15396: -cmoe and -ncmoe 4 after a bare -fa.
    expect(flagsOf('llama-cpp/gpt-oss-20b-7900xt-cmoe.sh')['n-cpu-moe']).toBe(100_000);
    expect(flagsOf('llama-cpp/gpt-oss-20b-7900xt-ncmoe4.sh')['n-cpu-moe']).toBe(4);
  });

  it("LLaMA-Factory's use_adam_mini and fp8 are the optimizer and the compute", () => {
    expect(flagsOf('llamafactory/examples/extras/adam_mini/qwen2_full_sft.yaml').optimizer).toBe(
      'adam-mini',
    );
    expect(flagsOf('llamafactory/examples/extras/fp8/llama3_fp8_deepspeed_sft.yaml').compute).toBe(
      'fp8',
    );
  });

  it("torchtune's GRPO recipe: 16 completions a prompt beside a reference model", () => {
    expect(flagsOf('torchtune/recipes/configs/dev/3B_full_grpo.yaml')).toMatchObject({
      objective: 'grpo',
      generations: 16,
      batch: 16,
      reference: 'model',
      rollout: 'hf',
      'max-completion-tokens': 512,
    });
  });

  it('a regular expression as LoRA targets maps to the projections it matches (PEFT re.fullmatch)', () => {
    expect(flagsOf('axolotl/examples/llava/lora-7b.yaml')['lora-targets']).toBe(
      'q,k,v,o,gate,up,down',
    );
    const warnings: string[] = [];
    expect(targetsOf(['model.layers.[0-9]+.self_attn.(q|v)_proj'], 't', warnings)).toEqual([
      'q',
      'v',
    ]);
    expect(warnings).toEqual([]);
  });

  it("SGLang's --speculative-algo NEXTN is MTP decoding", () => {
    expect(flagsOf('sglang-docs/qwen3-next-nextn-tp4.sh').speculative).toBe('mtp');
  });

  it("axolotl's linearized Llama 4 experts are quantized: Scout QLoRA fits one H100", () => {
    const one = out('axolotl llama-4-scout qlora 1 H100');
    expect(one.refusal).toBeNull();
    expect(one.fits).toBe(true);
    expect(one.deviceGiB!).toBeLessThan(100);
  });

  it("llama-bench's Q4_0 reference model is estimated at its file size", () => {
    const q4 = out('llama.cpp llama-bench llama 7B Q4_0 M4 Max');
    const q8 = out('llama.cpp llama-bench llama 7B Q8_0 M4 Max');
    expect(q4.refusal).toBeNull();
    // Q4_0 (4.5-bit blocks, Q6_K head) sits below Q8_0 (8.5-bit blocks) by about half the weights.
    expect(q4.deviceGiB!).toBeLessThan(q8.deviceGiB! - 2.5);
  });

  it('Qwen3-Next and ERNIE-4.5 MTP and a LLaVA context past its config are estimated', () => {
    expect(out('vllm qwen3-next mtp 2 tokens').refusal).toBeNull();
    expect(out('vllm ernie-4.5-21b mtp').refusal).toBeNull();
    expect(out('axolotl llava-1.5-7b lora 8k').refusal).toBeNull();
  });
});
