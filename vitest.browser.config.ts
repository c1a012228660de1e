import { defineProject } from 'vitest/config';

// The hosted pages in a real browser (test/pages/*.browser.spec.ts), and what runs against a whole local
// Worker (test/demo: the demo seeding): Node drives Debian's Chromium
// through playwright-core against one local `wrangler dev` that global-setup.ts starts for all of them.
export default defineProject({
  test: {
    name: 'browser',
    include: ['test/**/*.browser.spec.ts'],
    environment: 'node',
    globalSetup: ['./test/pages/global-setup.ts'],
    // The server is shared, the files run one after another; Chromium starts once per file.
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 240_000,
  },
});
