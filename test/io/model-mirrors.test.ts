// Mirrors and re-uploads of catalog models resolve offline, with a note naming the entry; `catalog
// models <text>` searches by name.
import { describe, expect, it } from 'vitest';
import { listModels, resolveModel, searchModels } from '../../src/io/load-model.js';

describe('catalog mirrors', () => {
  it.each([
    ['NousResearch/Meta-Llama-3-8B', 'llama-3-8b'],
    ['nousresearch/meta-llama-3-8b-instruct', 'llama-3-8b'],
    ['unsloth/Meta-Llama-3.1-8B-Instruct', 'llama-3.1-8b'],
    ['NousResearch/Meta-Llama-3.1-8B', 'llama-3.1-8b'],
    ['casperhansen/llama-3-70b-fp16', 'llama-3-70b'],
    ['Qwen/Qwen3-4B-Instruct-2507', 'qwen3-4b'],
    ['unsloth/Qwen3-8B', 'qwen3-8b'],
  ])('%s resolves to %s with a note naming it', (spec, id) => {
    const arch = resolveModel(spec);
    expect(arch.id).toBe(id);
    const mirror = !spec.toLowerCase().startsWith('qwen/');
    if (mirror) expect(arch.assumptions?.[0]).toContain(`catalog entry ${id}`);
  });

  it("the entry's own names carry no note", () => {
    expect(resolveModel('llama-3-8b').assumptions ?? []).toEqual([]);
    expect(resolveModel('meta-llama/Meta-Llama-3-8B-Instruct').assumptions ?? []).toEqual([]);
  });

  it('a mirror has the architecture of its entry', () => {
    const a = resolveModel('NousResearch/Meta-Llama-3-8B');
    const b = resolveModel('llama-3-8b');
    expect({ ...a, assumptions: undefined, repo: undefined }).toEqual({
      ...b,
      assumptions: undefined,
    });
    // ... and is launched as the repository named (Arch.repo), not the entry's.
    expect(a.repo).toBe('NousResearch/Meta-Llama-3-8B');
  });

  it('every alias under another owner is an owner/name id', () => {
    for (const m of listModels())
      for (const alias of m.aliases.filter((a) => a.includes('/')))
        expect(alias, `${m.id}: ${alias}`).toMatch(/^[\w.-]+\/[\w.-]+$/);
  });
});

describe('searchModels', () => {
  it('finds by substring, punctuation-blind', () => {
    expect(searchModels('llama3.1').hits.map((m) => m.id)).toEqual([
      'llama-3.1-405b',
      'llama-3.1-70b',
      'llama-3.1-8b',
    ]);
    expect(searchModels('Qwen3 4B').hits.map((m) => m.id)).toEqual(['qwen3-4b']);
    expect(searchModels('Meta-Llama-3-8B').hits.map((m) => m.id)).toContain('llama-3-8b');
  });

  it('says did you mean when nothing contains the text', () => {
    const r = searchModels('mistrl');
    expect(r.hits).toEqual([]);
    expect(r.near).toMatch(/did you mean 'mistral-7b-v0.1'/);
    expect(searchModels('zzzz').near).toBe('');
  });
});
