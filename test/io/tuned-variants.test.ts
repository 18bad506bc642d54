/**
 * Instruction- and chat-tuned uploads of a catalog base resolve offline to the base entry, with a note,
 * and keep their own id (what the launch files load); other owners and look-alike names do not.
 */
import { describe, expect, it } from 'vitest';
import { UserError } from '../../src/io/errors.js';
import { resolveModel } from '../../src/io/load-model.js';

describe('tuned variants of catalog bases', () => {
  const cases: [string, string, string][] = [
    ['Qwen/Qwen2.5-7B-Instruct', 'qwen2.5-7b', 'Qwen/Qwen2.5-7B'],
    [
      'mistralai/Mistral-Nemo-Instruct-2407',
      'mistral-nemo-base-2407',
      'mistralai/Mistral-Nemo-Base-2407',
    ],
  ];
  for (const [spec, id, base] of cases)
    it(`${spec} → ${id}`, () => {
      const arch = resolveModel(spec);
      const baseArch = resolveModel(base);
      expect(arch.id).toBe(id);
      expect(arch.hfId).toBe(spec);
      expect(arch.assumptions?.[0]).toBe(
        `${spec}: not in the catalog; estimated as its base model ${base} (catalog entry ${id}), as an instruction-tuned upload keeps the base's architecture`,
      );
      expect({ ...arch, hfId: null, assumptions: [] }).toEqual({
        ...baseArch,
        hfId: null,
        assumptions: [],
      });
    });

  for (const spec of [
    'someone/Qwen2.5-7B-Instruct',
    'Qwen/Qwen2.5-7B-Instructor',
    'Qwen/Qwen2.5-999B-Instruct',
  ])
    it(`${spec} is not taken for a catalog base`, () => {
      expect(() => resolveModel(spec)).toThrow(UserError);
    });
});
