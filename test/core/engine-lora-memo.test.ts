// engineLora (memory/setup.ts) keeps its answers in a memo per architecture keyed by the fields it reads: a question
// that differs in any of them (architecture, framework, method, targets, all-linear, rank, images, per-expert
// linears) must get its own answer, whatever was asked just before.
import { describe, expect, it } from 'vitest';
import '../../src/core/engines/registry.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { adapterParams } from '../../src/core/model/trainable.js';
import { engineLora } from '../../src/core/memory/setup.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import type { Arch } from '../../src/core/model/arch.js';
import type { EstimateOptions } from '../../src/schema/estimate.js';

const opts = (flags: Record<string, unknown>): EstimateOptions =>
  optionsFromFlags({ method: 'lora', 'lora-rank': 16, batch: 1, seq: 512, ...flags });
const ask = (arch: Arch, o: EstimateOptions, expertLinears: boolean) =>
  engineLora(arch, o, FRAMEWORKS[o.framework], expertLinears);

describe('engineLora asked in turn', () => {
  it('gives each question its own answer, asked alone or right after another', () => {
    const dense = resolveModel('llama-3.1-8b');
    const moe = resolveModel('qwen3-30b-a3b');
    const vision = resolveModel('qwen2-vl-7b-instruct');
    const qv = opts({ 'lora-targets': 'q,v' });
    const all = opts({ 'lora-targets': 'all-linear' });
    const unsloth = opts({ 'lora-targets': 'all-linear', framework: 'unsloth' });
    // Variants that share their targets list with the one they follow.
    const questions: [Arch, EstimateOptions, boolean][] = [
      [dense, qv, false],
      [dense, { ...qv, loraRank: 64 }, false],
      [dense, { ...qv, method: 'qlora' }, false],
      [dense, { ...qv, loraAllLinear: true }, false],
      [dense, opts({ 'lora-targets': 'q,k,v,o' }), false],
      [dense, { ...qv, framework: 'unsloth' }, false],
      [moe, all, false],
      [moe, all, true],
      [moe, { ...all, loraRank: 64 }, false],
      [vision, unsloth, false],
      [vision, { ...unsloth, images: 1 }, false],
      [dense, { ...qv, images: 1 }, false],
      [moe, qv, false],
    ];
    // Each answer from the memo (another question asked just before it), then every ordered pair: the same
    // answer, right after any other question and asked twice.
    const alone = questions.map(([a, o, e], i) => {
      const [a2, o2, e2] = questions[(i + 1) % questions.length]!;
      ask(a2, o2, e2);
      return ask(a, o, e);
    });
    expect(new Set(alone).size).toBeGreaterThan(9);
    const params = alone.map((l, i) =>
      adapterParams(l.adapters, l.experts, questions[i]![1].loraRank),
    );
    expect(new Set(params).size).toBeGreaterThan(6);
    for (const [i, [a, o, e]] of questions.entries())
      for (const [j, [b, p, f]] of questions.entries()) {
        ask(a, o, e);
        expect(ask(b, p, f), `${i} then ${j}`).toBe(alone[j]);
        expect(ask(b, p, f), `${j} twice`).toBe(alone[j]);
      }
  });
});
