// Published configurations of December 2026, second table (test/fixtures/published/cases-2026-12b.json): axolotl and
// LLaMA-Factory example files the earlier tables did not take, vLLM's expert-parallel docs (flags annotated with
// `\ # comment`, EPLB), SGLang's attention-backend and expert-parallel docs, llama-bench's README lines and the usage
// lines of TRL's examples/scripts, each with its verdict: estimated (finite figures), refused (one line naming the
// field, the value, what is allowed and the engine's source), or not in the catalog (a reader error naming --model).
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
import { commentedContinuations, parseServeScript } from '../../src/core/from/serve-line.js';
import { benchAsServer } from '../../src/core/engines/llama-cpp/bench.js';
import { readFromConfig } from '../../src/io/from/read.js';
import { readVllmCommand } from '../../src/core/engines/vllm/from.js';

const cases = publishedCases('cases-2026-12b.json');
const earlier = [
  ...publishedCases(),
  ...publishedCases('cases-pasted.json'),
  ...publishedCases('cases-2026-12.json'),
];
const outcomes = new Map<string, PublishedOutcome>(cases.map((c) => [c.id, runPublished(c)]));
const outcome = (id: string): PublishedOutcome => outcomes.get(id)!;
const byFile = (from: string): PublishedOutcome => {
  const c = cases.find((x) => x.from === from);
  if (!c) throw new Error(`no case reads ${from}`);
  return outcome(c.id);
};

describe('published configurations of December 2026 (second table)', () => {
  it('holds at least 40 cases, each sourced, none a file of the earlier tables', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
    expect(new Set(cases.map((c) => c.id)).size).toBe(cases.length);
    const files = new Set(earlier.map((c) => c.from));
    for (const c of cases) {
      expect(c.source, c.id).toMatch(PUBLISHED_AT);
      expect(c.from, c.id).toBeDefined();
      expect(existsSync(join(PUBLISHED, c.from!)), c.from).toBe(true);
      expect(files.has(c.from), c.id).toBe(false);
      expect(['estimated', 'refused', 'not-in-catalog']).toContain(c.expect);
    }
  });

  it('each gets the verdict the table gives it', () => {
    expect(wrongVerdicts(cases, outcome)).toEqual([]);
  });

  it("the refusals are vLLM's docs' EPLB lines without --enable-expert-parallel, citing ParallelConfig", () => {
    const refused = cases.filter((c) => c.expect === 'refused');
    expect(refused.map((c) => c.from)).toEqual([
      'vllm-docs/eplb-qwen3-30b-a3b-json.sh',
      'vllm-docs/eplb-qwen3-30b-a3b-dotted.sh',
    ]);
    for (const c of refused)
      expect(outcome(c.id).refusal).toMatch(
        /--enable-eplb: got true; expected --enable-expert-parallel beside it.*vllm\/config\/parallel\.py/,
      );
  });
});

describe("vLLM's EPLB flags as ParallelConfig takes them", () => {
  const read = (...args: string[]) =>
    readVllmCommand({ engine: 'vllm', args: ['Qwen/Qwen3-30B-A3B', ...args], env: {} }, {});
  it('EPLB needs expert parallelism over more than one rank; redundant experts need EPLB', () => {
    expect(() => read('--enable-eplb')).toThrow(/--enable-expert-parallel beside it/);
    expect(() => read('--enable-expert-parallel', '--enable-eplb')).toThrow(
      /EPLB requires tensor, prefill-context, or data parallelism/,
    );
    expect(() => read('-tp', '2', '--eplb-config', '{"num_redundant_experts":2}')).toThrow(
      /num_redundant_experts: got 2; expected 0 without --enable-eplb/,
    );
  });
  it('with EP over two ranks it is estimated, the redundant experts (JSON or dotted) named as not counted', () => {
    for (const cfg of [
      ['--eplb-config', '{"num_redundant_experts":2}'],
      ['--eplb-config.num_redundant_experts', '2'],
    ]) {
      const r = read('-tp', '2', '--enable-expert-parallel', '--enable-eplb', ...cfg);
      expect(r.flags.ep).toBe(2);
      expect(r.warnings.join('\n')).toMatch(/num_redundant_experts 2: .* not counted/);
    }
  });
});

describe('what the table lifted', () => {
  it('a `\\ # comment` after each flag continues the command (DeepSeek-V3 over DP8 EP fits an H200)', () => {
    const text = '--a 1 \\   # one\n  --b 2 \\ # two\n  --c 3\n';
    expect(commentedContinuations(text)).toBe(2);
    const script = parseServeScript(`vllm serve m \\  # model\n  --tensor-parallel-size 2\n`);
    expect(script.commands[0]!.args).toEqual(['m', '--tensor-parallel-size', '2']);
    expect(script.notes[0]).toMatch(/read as continuing the command/);
    // Read as one command: 671B over 8 expert-parallel ranks, not the whole model on one GPU.
    const dp8 = byFile('vllm-docs/ep-deepseek-v3-0324-dp8-pplx.sh');
    expect(dp8.deviceGiB).toBeLessThan(141);
    expect(dp8.fits).toBe(true);
  });

  it('a llama-bench line is the test holding the most: the longest sequence, the most GPU layers', () => {
    const notes: string[] = [];
    const words = benchAsServer(
      [
        '-m',
        'a.gguf',
        '-m',
        'b.gguf',
        '-p',
        '0',
        '-n',
        '128,256,512',
        '-d',
        '0,512',
        '-ngl',
        '10,35',
      ],
      notes,
    );
    expect(words).toEqual(['-m', 'a.gguf', '-c', '1024', '-np', '1', '-ngl', '35']);
    expect(notes[0]).toMatch(/one sequence of 1024 tokens, the first of 2 models/);
    expect(byFile('llama-cpp-docs/bench-ngl-sweep.sh').deviceGiB).toBeLessThan(8);
  });

  it("TRL's CPO and ORPO usage lines on gpt2 train at their configs' max_length 1024 (gpt2 holds 1024)", () => {
    expect(byFile('trl-scripts/cpo-1.sh').refusal).toBeNull();
    expect(byFile('trl-scripts/orpo-2.sh').refusal).toBeNull();
  });

  it("a TRL command takes its trainer config's defaults: max_length 1024, gradient checkpointing on", () => {
    // trl/trainer/base_config.py (_BaseConfig.gradient_checkpointing True) and cpo_config.py (max_length 1024) at v1.9.0.
    const cpo = readFromConfig(join(PUBLISHED, 'trl-scripts/cpo-1.sh'));
    expect(cpo.flags.seq).toBe(1024);
    expect(cpo.flags.checkpointing).toBe('full');
    expect(cpo.warnings).toContain("gradient_checkpointing: not set; TRL's default True used");
  });

  it('a bare TRL example script is read with --model and the flags its code sets', () => {
    expect(byFile('trl-scripts/sft_gemma3-1.sh').refusal).toBeNull();
    expect(byFile('trl-scripts/rloo-1.sh').refusal).toBeNull();
  });

  it("axolotl's gptq: true loads the 4-bit GPTQ checkpoint, not a 16-bit one", () => {
    // Llama-2-7B at 4 bits (about 3.6 GiB of weights), not 12.6 GiB at bf16.
    expect(byFile('axolotl/examples/llama-2/gptq-lora.yml').deviceGiB).toBeLessThan(12);
  });
});
