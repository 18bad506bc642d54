// Published configurations of December 2026 (test/fixtures/published/cases-2026-12.json): axolotl, LLaMA-Factory
// and torchtune example files the earlier tables did not take (PPO, Phi-4, KTransformers, Megatron keys), vLLM recipe
// lines with -cc and --mm-encoder-tp-mode, SGLang's speculative-decoding and DeepSeek-V3.2 launch lines, and
// llama-server lines from llama.cpp's multimodal guide (-hf GGUF repositories, --mmproj), each with its verdict:
// estimated (finite figures), refused (one line naming the field, the value, what is allowed and the engine's
// source), or not in the catalog (a reader error naming --model). None repeats a case of the earlier tables.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  PUBLISHED,
  PUBLISHED_AT,
  publishedCases,
  runPublished,
  type PublishedOutcome,
  wrongVerdicts,
} from '../helpers/published-configs.js';

const cases = publishedCases('cases-2026-12.json');
const earlier = [...publishedCases(), ...publishedCases('cases-pasted.json')];
const outcomes = new Map<string, PublishedOutcome>(cases.map((c) => [c.id, runPublished(c)]));
const outcome = (id: string): PublishedOutcome => outcomes.get(id)!;

describe('published configurations of December 2026', () => {
  it('holds at least 40 cases, each sourced, none a source and file of the earlier tables', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
    expect(new Set(cases.map((c) => c.id)).size).toBe(cases.length);
    const seen = new Set(earlier.map((c) => `${c.source} ${c.from ?? c.id}`));
    const files = new Set(earlier.map((c) => c.from));
    for (const c of cases) {
      expect(c.source, c.id).toMatch(PUBLISHED_AT);
      expect(c.from, c.id).toBeDefined();
      expect(existsSync(join(PUBLISHED, c.from!)), c.from).toBe(true);
      expect(seen.has(`${c.source} ${c.from}`), c.id).toBe(false);
      expect(files.has(c.from), c.id).toBe(false);
      expect(['estimated', 'refused', 'not-in-catalog']).toContain(c.expect);
    }
  });

  it('each gets the verdict the table gives it', () => {
    expect(wrongVerdicts(cases, outcome)).toEqual([]);
  });

  it("the refusals are torchtune 0.6.1's qwen3 configs and a context past Qwen3-8B's config with no override", () => {
    const refused = cases.filter((c) => c.expect === 'refused');
    expect(refused.map((c) => c.from)).toEqual([
      'torchtune/recipes/configs/qwen3/14B_to_8B_KD_lora_single_device.yaml',
      'torchtune/recipes/configs/qwen3/8B_qat_full.yaml',
      'torchtune/recipes/configs/qwen3/32B_lora.yaml',
      'qwen-docs/qwen3-8b-vllm-readme-131k.sh',
      'qwen-docs/qwen3-8b-sglang-readme-131k.sh',
    ]);
    // torchtune: the model_type, the families the release builds and its models tree at the tag.
    for (const c of refused.slice(0, 3))
      expect(outcome(c.id).refusal).toMatch(
        /model_type 'qwen3'.*builds model_type llama, mistral, gemma, gemma2, phi3, qwen2, mllama.*tree\/v0\.6\.1\/torchtune\/models/,
      );
    // The engines raise past the derived length unless the line overrides rope_scaling or sets their switch.
    expect(outcome(refused[3]!.id).refusal).toMatch(
      /got 131072; expected at most 40960.*VLLM_ALLOW_LONG_MAX_MODEL_LEN=1/,
    );
    expect(outcome(refused[4]!.id).refusal).toMatch(
      /got 131072; expected at most 40960.*SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1/,
    );
  });
});
