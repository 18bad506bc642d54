import { describe, expect, it } from 'vitest';
import { wantsTui } from '../../src/commands/explore.js';

const tty = { stdin: true, stdout: true };

describe('wantsTui', () => {
  it('opens the explorer only in a terminal with colour and interaction allowed', () => {
    expect(wantsTui({}, {}, tty)).toBe(true);
    expect(wantsTui({}, { CI: 'false' }, tty)).toBe(true);
    expect(wantsTui({}, {}, { stdin: true, stdout: false })).toBe(false);
    expect(wantsTui({}, {}, { stdin: false, stdout: true })).toBe(false);
    expect(wantsTui({ tui: false }, {}, tty)).toBe(false);
    expect(wantsTui({ json: true }, {}, tty)).toBe(false);
    expect(wantsTui({ export: 'x.csv' }, {}, tty)).toBe(false);
    expect(wantsTui({}, { CI: 'true' }, tty)).toBe(false);
    expect(wantsTui({}, { NO_COLOR: '1' }, tty)).toBe(false);
    expect(wantsTui({}, { TERM: 'dumb' }, tty)).toBe(false);
    expect(wantsTui({}, { FORCE_COLOR: '0' }, tty)).toBe(false);
  });
});
