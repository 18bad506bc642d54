// groupDigits writes what toLocaleString('en-US') writes, without ICU's number formatter.
import fc from 'fast-check';
import { expect, it } from 'vitest';
import { formatDuration, formatInt, formatUsd, groupDigits } from '../../src/ui/format.js';

it("writes a safe integer as toLocaleString('en-US') does", () => {
  fc.assert(
    fc.property(
      fc.oneof(
        fc.integer({ min: -1_000_000_000, max: 1_000_000_000 }),
        fc.maxSafeInteger(),
        fc.constantFrom(0, 999, 1000, -1000, 999_999, 1_000_000, Number.MAX_SAFE_INTEGER),
      ),
      (n) => {
        expect(groupDigits(n)).toBe(n.toLocaleString('en-US'));
      },
    ),
    { numRuns: 3000 },
  );
});

it('leaves fractions, -0, NaN, infinities and unsafe integers to toLocaleString', () => {
  for (const n of [-0, 0.5, 1234.5678, -98765.4321, NaN, Infinity, -Infinity, 2 ** 60, 1e21, -1e22])
    expect(groupDigits(n)).toBe(n.toLocaleString('en-US'));
  fc.assert(
    fc.property(fc.double({ noNaN: true }), (n) => {
      expect(groupDigits(n)).toBe(n.toLocaleString('en-US'));
    }),
  );
});

it('formatInt, formatUsd and formatDuration group as before', () => {
  expect(formatInt(1234567.4)).toBe('1,234,567');
  expect(formatInt(-1500.2)).toBe('-1,500');
  expect(formatUsd(123456.7)).toBe('$123,457');
  expect(formatDuration(24 * 1234.56)).toBe('1,234.6 days');
});
