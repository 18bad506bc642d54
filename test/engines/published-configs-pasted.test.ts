// Published configurations users paste (test/fixtures/published/cases-pasted.json): vLLM recipes the first table
// did not take, `vllm serve` and `sglang.launch_server` lines from issues and pull requests, llama-server lines
// from scripts and llama.cpp threads, and axolotl and LLaMA-Factory example files, each with the verdict it gets:
// estimated (finite figures), refused (one line naming the field, the value, what is allowed and the engine's
// source), or not in the catalog (a reader error naming --model). None repeats a case of cases.json.
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

const cases = publishedCases('cases-pasted.json');
const first = publishedCases();
const outcomes = new Map<string, PublishedOutcome>(cases.map((c) => [c.id, runPublished(c)]));

describe('pasted published configurations', () => {
  it('holds at least 40 cases, each sourced, none a source and file of the first table', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
    expect(new Set(cases.map((c) => c.id)).size).toBe(cases.length);
    const seen = new Set(first.map((c) => `${c.source} ${c.from ?? c.id}`));
    for (const c of cases) {
      expect(c.source, c.id).toMatch(PUBLISHED_AT);
      expect(c.from, c.id).toBeDefined();
      expect(existsSync(join(PUBLISHED, c.from!)), c.from).toBe(true);
      expect(seen.has(`${c.source} ${c.from}`), c.id).toBe(false);
      expect(['estimated', 'refused', 'not-in-catalog']).toContain(c.expect);
    }
  });

  it('each gets the verdict the table gives it', () => {
    expect(wrongVerdicts(cases, (id) => outcomes.get(id)!)).toEqual([]);
  });

  it('the refusals are the two the engines make themselves', () => {
    const refused = cases.filter((c) => c.expect === 'refused').map((c) => c.id);
    expect(refused).toEqual([
      'vllm glm-4.7-flash bf16 tp8 mi300x',
      'sglang qwen3-4b fp8 60k context blackwell',
    ]);
    // GLM-4.7-Flash's 20 heads against --tensor-parallel-size 8; Qwen3-4B's 40,960 positions against 60,000.
    expect(outcomes.get(refused[0]!)!.refusal).toMatch(/got 8; expected one of 1, 2, 4, 5, 10, 20/);
    expect(outcomes.get(refused[1]!)!.refusal).toMatch(/got 60000; expected at most 40960/);
  });

  it('an Unsloth UD-Q4_K_XL GGUF is estimated at about its 4-bit size, not as 16-bit weights', () => {
    const o = outcomes.get('llama.cpp qwen3-coder-30b-a3b UD-Q4_K_XL 131k (shell script)')!;
    expect(o.refusal).toBeNull();
    expect(o.fits).toBe(true);
    expect(o.deviceGiB!).toBeLessThan(32);
  });

  it("axolotl's quantize_moe_experts keeps Qwen3-Next's 512 experts a layer in 4 bits, not bf16", () => {
    // Unquantized, the routed experts alone are about 146 GiB; nf4 with one layer's stack dequantized at a time.
    const o = outcomes.get('axolotl qwen3-next-80b qlora')!;
    expect(o.refusal).toBeNull();
    expect(o.deviceGiB!).toBeLessThan(100);
  });
});
