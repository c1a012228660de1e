import { defineConfig } from 'vitest/config';

// Two projects: pure src/billing logic in plain Node (fast), and the API inside workerd.
export default defineConfig({
  test: {
    projects: ['./vitest.unit.config.ts', './vitest.workers.config.ts'],
  },
});
