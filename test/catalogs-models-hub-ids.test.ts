// Hugging Face repo ids that published benchmarks name resolve offline, without the Hub: catalog entries read from
// their config.json, aliases with the same architecture as an entry, and published quantized copies read as their
// base entry with the quantization_config the copy's config.json declares.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildEstimate } from '../src/core/estimate.js';
import { archFromHfConfig, paramCounts } from '../src/core/model/index.js';
import { nativeWeights } from '../src/core/model/native-weights.js';
import { listModels, resolveModel } from '../src/io/load-model.js';
import { defaultOptions } from '../src/schema/estimate.js';
import { renderCatalogEntry } from '../src/ui/plan-catalog.js';
import type { ModelEntry } from '../src/schema/model.js';

const entry = (id: string): ModelEntry =>
  JSON.parse(
    readFileSync(new URL(`../catalogs/models/${id}.json`, import.meta.url), 'utf8'),
  ) as ModelEntry;

describe('entries read from their config.json', () => {
  it.each([
    ['moonshotai/Kimi-K2-Instruct', 'kimi-k2-instruct'],
    ['Qwen/Qwen3-Coder-480B-A35B-Instruct', 'qwen3-coder-480b-a35b-instruct'],
    ['Qwen/Qwen3-VL-8B-Instruct', 'qwen3-vl-8b-instruct'],
    ['Qwen/Qwen3-VL-4B-Instruct', 'qwen3-vl-4b-instruct'],
    ['Qwen/Qwen3-VL-30B-A3B-Instruct', 'qwen3-vl-30b-a3b-instruct'],
    ['Qwen/Qwen3-VL-235B-A22B-Instruct', 'qwen3-vl-235b-a22b-instruct'],
    ['Qwen/Qwen3-30B-A3B-Instruct-2507', 'qwen3-30b-a3b-instruct-2507'],
    ['Qwen/Qwen3-30B-A3B-Thinking-2507', 'qwen3-30b-a3b-instruct-2507'],
    ['zai-org/GLM-4.6', 'glm-4.6'],
    ['microsoft/Phi-4-mini-instruct', 'phi-4-mini-instruct'],
    ['Qwen/Qwen2.5-VL-7B-Instruct', 'qwen2.5-vl-7b-instruct'],
    ['mistralai/Mistral-Large-Instruct-2411', 'mistral-large-instruct-2411'],
    ['mistralai/Mistral-Large-Instruct-2407', 'mistral-large-instruct-2411'],
    ['Qwen/Qwen3-VL-2B-Instruct', 'qwen3-vl-2b-instruct'],
    ['Qwen/Qwen3-VL-32B-Instruct', 'qwen3-vl-32b-instruct'],
    ['Qwen/Qwen3-VL-32B-Thinking', 'qwen3-vl-32b-instruct'],
    ['Qwen/Qwen1.5-MoE-A2.7B', 'qwen1.5-moe-a2.7b'],
    ['Qwen/Qwen2-57B-A14B-Instruct', 'qwen2-57b-a14b-instruct'],
    ['microsoft/Phi-4-reasoning', 'phi-4-reasoning'],
    ['microsoft/Phi-4-reasoning-plus', 'phi-4-reasoning'],
    ['Qwen/Qwen2.5-7B-Instruct-1M', 'qwen2.5-7b-instruct-1m'],
    ['Qwen/Qwen2.5-14B-Instruct-1M', 'qwen2.5-14b-instruct-1m'],
    ['Qwen/Qwen2.5-Math-7B', 'qwen2.5-math-7b'],
    ['Qwen/Qwen2.5-Math-7B-Instruct', 'qwen2.5-math-7b'],
    ['mistralai/Mistral-7B-Instruct-v0.2', 'mistral-7b-v0.2'],
    ['openlm-research/open_llama_3b', 'open-llama-3b'],
    ['Qwen/Qwen2-0.5B', 'qwen2-0.5b'],
    ['Qwen/Qwen2-0.5B-Instruct', 'qwen2-0.5b'],
    ['Qwen/Qwen2.5-VL-3B-Instruct', 'qwen2.5-vl-3b-instruct'],
  ])('%s is catalog entry %s, with its config’s parameter count', (spec, id) => {
    const arch = resolveModel(spec);
    expect(arch.id).toBe(id);
    const direct = archFromHfConfig(entry(id).config, { id, hfId: spec });
    expect(paramCounts(arch)).toEqual(paramCounts(direct));
  });

  it('the model cards’ sizes: Kimi K2 1T (32B active), Qwen3-Coder 480B (35B active), Phi-4-mini 3.8B', () => {
    const kimi = paramCounts(resolveModel('moonshotai/Kimi-K2-Instruct'));
    const coder = paramCounts(resolveModel('Qwen/Qwen3-Coder-480B-A35B-Instruct'));
    const mini = paramCounts(resolveModel('microsoft/Phi-4-mini-instruct'));
    expect(kimi.total / 1e12).toBeCloseTo(1.03, 1);
    expect(kimi.active / 1e9).toBeCloseTo(32.9, 0);
    expect(coder.total / 1e9).toBeCloseTo(480.2, 0);
    expect(coder.active / 1e9).toBeCloseTo(35.1, 0);
    expect(mini.total / 1e9).toBeCloseTo(3.84, 2);
  });

  it('Qwen2-0.5B has Qwen2.5-0.5B’s shapes (494.0M); Qwen2.5-VL-3B is a 3.09B language model and the 7B’s vision tower', () => {
    expect(paramCounts(resolveModel('Qwen/Qwen2-0.5B')).total).toBe(
      paramCounts(resolveModel('Qwen/Qwen2.5-0.5B')).total,
    );
    expect(resolveModel('Qwen/Qwen2-0.5B').maxPositions).toBe(131072);
    const vl3 = paramCounts(resolveModel('Qwen/Qwen2.5-VL-3B-Instruct'));
    const vl7 = paramCounts(resolveModel('Qwen/Qwen2.5-VL-7B-Instruct'));
    expect(vl3.total / 1e9).toBeCloseTo(3.75, 2);
    // Same vision tower (32 blocks of 1,280) save the merger's last projection (into 2,048 rather than 3,584).
    expect(vl7.total - vl3.total).toBeGreaterThan(4e9);
  });

  it('GLM-4.6 is GLM-4.5 with a 202,752-token context; the 2507 Qwen3-30B-A3B is the base with 262,144', () => {
    const glm46 = resolveModel('zai-org/GLM-4.6');
    const glm45 = resolveModel('zai-org/GLM-4.5');
    expect(paramCounts(glm46)).toEqual(paramCounts(glm45));
    expect(glm46.maxPositions).toBe(202752);
    expect(glm45.maxPositions).toBe(131072);
    const q2507 = resolveModel('Qwen/Qwen3-30B-A3B-Instruct-2507');
    expect(paramCounts(q2507)).toEqual(paramCounts(resolveModel('Qwen/Qwen3-30B-A3B')));
    expect(q2507.maxPositions).toBe(262144);
  });

  it('entries that differ from their base only in positions keep its parameter count', () => {
    const same = [
      ['Qwen/Qwen2.5-7B-Instruct-1M', 'Qwen/Qwen2.5-7B', 1010000],
      ['Qwen/Qwen2.5-14B-Instruct-1M', 'Qwen/Qwen2.5-14B', 1010000],
      ['Qwen/Qwen2.5-Math-7B', 'Qwen/Qwen2.5-7B', 4096],
      ['microsoft/Phi-4-reasoning', 'microsoft/phi-4', 32768],
    ] as const;
    for (const [spec, base, positions] of same) {
      expect(paramCounts(resolveModel(spec))).toEqual(paramCounts(resolveModel(base)));
      expect(resolveModel(spec).maxPositions).toBe(positions);
    }
  });
});

describe('aliases with the same architecture as an entry', () => {
  it.each([
    ['nvidia/Llama-3.1-Nemotron-70B-Instruct-HF', 'meta-llama/Llama-3.1-70B'],
    ['deepseek-ai/DeepSeek-R1-Distill-Llama-70B', 'meta-llama/Llama-3.3-70B-Instruct'],
    ['Qwen/QwQ-32B', 'Qwen/Qwen2.5-32B'],
    ['deepseek-ai/DeepSeek-R1-Distill-Qwen-7B', 'Qwen/Qwen2.5-7B'],
    ['deepseek-ai/DeepSeek-V3.1', 'deepseek-ai/DeepSeek-V3'],
    ['Qwen/Qwen2.5-Coder-7B-Instruct', 'Qwen/Qwen2.5-7B'],
    ['Qwen/Qwen2.5-Coder-14B-Instruct', 'Qwen/Qwen2.5-14B'],
    ['microsoft/Phi-4-mini-reasoning', 'microsoft/Phi-4-mini-instruct'],
    ['unsloth/Qwen3-14B', 'Qwen/Qwen3-14B'],
    ['unsloth/Qwen3-1.7B', 'Qwen/Qwen3-1.7B'],
    ['unsloth/Qwen3-30B-A3B', 'Qwen/Qwen3-30B-A3B'],
    ['unsloth/gemma-3-4b-it', 'google/gemma-3-4b-it'],
    ['unsloth/Phi-4', 'microsoft/phi-4'],
    ['unsloth/Phi-4-mini-instruct', 'microsoft/Phi-4-mini-instruct'],
    ['unsloth/DeepSeek-R1-Distill-Qwen-7B', 'deepseek-ai/DeepSeek-R1-Distill-Qwen-7B'],
  ])('%s has the parameter count of %s, and launch loads the alias', (alias, base) => {
    const a = resolveModel(alias);
    const b = resolveModel(base);
    expect(a.id).toBe(b.id);
    expect(paramCounts(a)).toEqual(paramCounts(b));
    expect(a.repo?.toLowerCase()).toBe(alias.toLowerCase());
  });
});

describe('published quantized copies', () => {
  const copies = [
    ['Qwen/Qwen3-30B-A3B-FP8', 'qwen3-30b-a3b'],
    ['Qwen/Qwen3-32B-FP8', 'qwen3-32b'],
  ] as const;

  it.each(copies)('%s reads as its config.json would from a path', (repo, id) => {
    const copy = entry(id).quantized?.find((q) => q.repo === repo);
    expect(copy).toBeDefined();
    const dir = mkdtempSync(join(tmpdir(), 'vramplan-copy-'));
    const file = join(dir, 'config.json');
    const config = { ...entry(id).config, quantization_config: copy!.quantizationConfig };
    writeFileSync(file, JSON.stringify(config));
    const fromPath = resolveModel(file);
    const resolved = resolveModel(repo);
    expect(resolved.id).toBe(id);
    expect(resolved.repo).toBe(repo);
    expect(resolved.quant).toEqual(fromPath.quant);
    expect(resolved.groups).toEqual(fromPath.groups);
    expect(paramCounts(resolved)).toEqual(paramCounts(fromPath));
    // Qwen's own -FP8 copies: fp8 e4m3 in 128 x 128 weight blocks.
    expect(resolved.quant).toMatchObject({ method: 'fp8', bits: 8, groupSize: 128 * 128 });
    expect(nativeWeights(resolved)).toBe('fp8');
    expect(resolveModel(id).quant).toBeNull();
  });

  it.each(copies)('%s in fp8 weighs what its base does with --weights fp8', (repo, id) => {
    const options = { ...defaultOptions('inference'), weights: 'fp8' as const };
    const copy = buildEstimate(resolveModel(repo), options);
    const base = buildEstimate(resolveModel(id), options);
    expect(copy.perGpu).toEqual(base.perGpu);
    expect(copy.params).toEqual(base.params);
  });

  it('every copy’s repository is named once in the catalog', () => {
    const models = listModels();
    const names = models
      .flatMap((m) => [m.id, m.hfId, ...m.aliases, ...(m.quantized ?? []).map((q) => q.repo)])
      .filter((n) => n !== null)
      .map((n) => n.toLowerCase());
    const repos = models.flatMap((m) => (m.quantized ?? []).map((q) => q.repo.toLowerCase()));
    expect(repos.length).toBeGreaterThan(0);
    for (const repo of repos) expect(names.filter((n) => n === repo)).toHaveLength(1);
  });
});

describe('catalog models <id>', () => {
  it('names an entry’s quantized copies by repository', () => {
    const entry = listModels().find((m) => m.id === 'qwen3-32b')!;
    expect(renderCatalogEntry(entry)).toMatch(/^quantized: +Qwen\/Qwen3-32B-FP8$/m);
  });
});

describe('an id the catalog does not know', () => {
  it('is refused as before', () => {
    expect(() => resolveModel('acme/totally-unknown-model-zz')).toThrow(
      "--model: got 'acme/totally-unknown-model-zz'; expected a catalog id (bamba-9b, bert-large-uncased, bloom-7b1, ...; see 'vramplan catalog models'), a Hugging Face repo id, or a path to config.json",
    );
  });
});
