import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    exclude: ["**/node_modules/**", "dist/**", "test/e2e/**"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Every hook process a test starts runs its event itself: a resident hook server shared by
    // tests would outlive them. The server's own tests turn it on, in a folder of their own.
    env: { TODO_CONTINUATION_HOOK_SERVER: "0" },
  },
});
