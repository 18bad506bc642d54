import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    setupFiles: ['test/setup.ts'],
    env: { FORCE_COLOR: '0' },
    // Generous limits, not speed checks: on a loaded 2-core machine a test that spawns the CLI several times
    // can take a minute; no test asserts how fast anything runs.
    testTimeout: 180_000,
    hookTimeout: 300_000,
    pool: 'forks',
  },
});
