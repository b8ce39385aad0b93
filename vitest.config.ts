import { defineConfig } from 'vitest/config';

// Unit and integration tests run in Node; browser end-to-end tests drive Debian's
// Chromium through playwright-core from Node (tests/e2e), against a built app.
export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
