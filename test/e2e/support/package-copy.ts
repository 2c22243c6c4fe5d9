import { cpSync, existsSync, mkdirSync, symlinkSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { BUILT_CLI } from "./built-cli.js";

/**
 * A second copy of the package under test in `root` (as a global install beside a project's
 * own): its build and package.json copied, its dependencies those of the copy under test (a
 * link to the folder they resolve from). Returns the copy's CLI (`<copy>/dist/cli/main.js`),
 * whose `install` writes commands that run the copy's own hook.
 */
export function packageCopy(root: string): string {
  const dist = dirname(dirname(BUILT_CLI));
  const packageRoot = dirname(dist);
  const copy = join(root, "global-copy", "todo-continuation");
  mkdirSync(copy, { recursive: true });
  cpSync(dist, join(copy, "dist"), { recursive: true });
  cpSync(join(packageRoot, "package.json"), join(copy, "package.json"));
  // The folder one of its dependencies resolves from: node_modules of the repository, or the
  // one a packed install shares with its dependencies.
  const zod = createRequire(join(dist, "index.js")).resolve("zod/package.json");
  const modules = zod.slice(0, zod.lastIndexOf("/node_modules/") + "/node_modules".length);
  if (!existsSync(join(copy, "node_modules"))) symlinkSync(modules, join(copy, "node_modules"));
  return join(copy, "dist", "cli", "main.js");
}
