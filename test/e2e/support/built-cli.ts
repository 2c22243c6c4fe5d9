import { join } from "node:path";
import { REPO_ROOT } from "./host-cache.js";

/** The built CLI (`npm run build` first), or the one of the package under test. */
export const BUILT_CLI = join(
  process.env.TODO_CONTINUATION_DIST ?? join(REPO_ROOT, "dist"),
  "cli",
  "main.js",
);
