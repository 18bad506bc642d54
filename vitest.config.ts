import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    setupFiles: ['test/setup.ts'],
    env: { FORCE_COLOR: '0' },
    testTimeout: 20_000,
    pool: 'forks',
  },
});
