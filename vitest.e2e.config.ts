import { defineConfig } from "vitest/config";

// End-to-end suites drive the real host programs; each installs its pinned host
// into a cache folder on first use, so they run one file at a time.
export default defineConfig({
  test: {
    include: ["test/e2e/**/*.e2e.test.ts"],
    testTimeout: 600_000,
    hookTimeout: 900_000,
    fileParallelism: false,
    // The hosts' hooks hand their events to a resident hook server, in this run's own folder.
    globalSetup: ["test/e2e/support/hook-server-setup.ts"],
  },
});
