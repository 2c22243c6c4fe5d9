import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    exclude: ["**/node_modules/**", "dist/**", "test/e2e/**"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
