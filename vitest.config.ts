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
    // mem0ai/oss imports every provider SDK at the top; inlining it lets the mem0ai wrapper
    // test stub the providers it does not use (tests/sdk/mem0ai.test.ts).
    server: { deps: { inline: ['mem0ai'] } },
  },
});
