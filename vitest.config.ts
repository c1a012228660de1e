import { defineConfig } from 'vitest/config';

// Three projects: pure logic in plain Node (test/**/*.unit.test.ts, fast), the API inside workerd,
// and the hosted pages in Chromium against a local Worker (test/pages/*.browser.spec.ts).
export default defineConfig({
  test: {
    projects: ['./vitest.unit.config.ts', './vitest.workers.config.ts', './vitest.browser.config.ts'],
  },
});
