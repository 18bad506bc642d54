/** Runs `fn`, expects it to throw a UserError, and returns it. */
import { expect } from 'vitest';
import { UserError } from '../../src/io/errors.js';

export function userErrorOf(fn: () => unknown): UserError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(UserError);
    return e as UserError;
  }
  throw new Error('expected a UserError');
}
