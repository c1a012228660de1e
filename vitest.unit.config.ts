import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'unit',
    // Pure logic, next to the API tests of its domain: test/<domain>/<module>.unit.test.ts.
    include: ['test/**/*.unit.test.ts'],
    environment: 'node',
    // The official validators start a JVM per rule set (test/oracles), in tests and in the
    // beforeAll hooks that validate a file's documents at once.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
