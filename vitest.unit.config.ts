import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'unit',
    // Pure logic, next to the API tests of its domain: test/<domain>/<module>.unit.test.ts.
    include: ['test/**/*.unit.test.ts'],
    environment: 'node',
    // The official validators start a JVM per rule set (test/oracles).
    testTimeout: 60_000,
  },
});
