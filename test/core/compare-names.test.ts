// compareNames orders names as localeCompare does (en-US, the locale the CLI's tests and CI run in), without
// building ICU's collator for the usual names of ASCII letters and digits.
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { compareNames } from '../../src/core/compare-names.js';

const sign = (n: number): number => Math.sign(n);
const collator = new Intl.Collator('en-US');

it("has localeCompare's sign for names of ASCII letters and digits, case and length mixed", () => {
  const name = fc.stringMatching(/^[A-Za-z0-9]{0,8}$/);
  fc.assert(
    fc.property(name, name, (a, b) => {
      expect(sign(compareNames(a, b))).toBe(sign(collator.compare(a, b)));
    }),
    { numRuns: 3000 },
  );
});

it("orders the memory breakdown's components as localeCompare does", () => {
  const components = [
    'weights',
    'quantConstants',
    'adapters',
    'masterWeights',
    'gradients',
    'optimizer',
    'activations',
    'logits',
    'kvCache',
    'buffers',
    'overhead',
    'kvcache',
    'KVCache',
    'lora2',
    'loraB',
    'lora_b',
    'lora-b',
  ];
  expect([...components].sort(compareNames)).toEqual([...components].sort(collator.compare));
});
