import { defineConfig } from 'vitest/config';

// Two projects: pure logic in plain Node (test/**/*.unit.test.ts, fast), and the API inside workerd.
export default defineConfig({
  test: {
    projects: ['./vitest.unit.config.ts', './vitest.workers.config.ts'],
  },
});
