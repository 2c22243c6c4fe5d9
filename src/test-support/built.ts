import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * The built package that worker processes load (they run plain Node, not the
 * test's TypeScript). `npm test` builds it first; TODO_CONTINUATION_TEST_DIST
 * points at another build.
 */
export const BUILT_DIST =
  process.env.TODO_CONTINUATION_TEST_DIST ?? fileURLToPath(new URL("../../dist", import.meta.url));

export function assertBuilt(...paths: string[]): void {
  for (const path of paths) {
    if (!existsSync(`${BUILT_DIST}/${path}`)) {
      throw new Error(`${BUILT_DIST}/${path} is missing: run npm run build before this test`);
    }
  }
}
