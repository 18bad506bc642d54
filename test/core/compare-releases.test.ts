import { describe, expect, it } from 'vitest';
import {
  releaseAtLeast,
  releaseNamedBefore,
  releaseWithin,
} from '../../src/core/compare-releases.js';

describe('releaseWithin: a release span [from, before)', () => {
  const span = { from: '0.7.1', before: '0.8.0' };

  it('holds its first release and those up to, not including, its bound', () => {
    expect(releaseWithin('0.7.1', span)).toBe(true);
    expect(releaseWithin('0.7.3', span)).toBe(true);
    expect(releaseWithin('0.7.0', span)).toBe(false);
    expect(releaseWithin('0.8.0', span)).toBe(false);
    expect(releaseWithin('0.11.0', span)).toBe(false);
  });

  it('decides as releaseAtLeast and releaseNamedBefore together, unreadable and partial versions included', () => {
    for (const v of ['0.7', '0.7.2rc1', '0.7.3+cu124', 'main', '', '0.8', '1.0.0'])
      expect(releaseWithin(v, span), v).toBe(
        releaseAtLeast(v, span.from) && releaseNamedBefore(v, span.before),
      );
  });
});
