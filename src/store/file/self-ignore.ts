import { mkdir, rm, writeFile } from "node:fs/promises";
import { isAbsolute, join, relative, resolve } from "node:path";
import { assertOwnFolder, assertSafeAncestors } from "./ownership.js";

/**
 * Makes a new store folder inside a project ignore itself: a `.gitignore`
 * of its own holding `*`, so `git status` stays clean in every repository a
 * user-level install runs in, without ever editing the repository's own
 * .gitignore (only a project install does that, at install time). Returns
 * false (and writes nothing) for a folder outside the project or one that
 * already has the file.
 */
export async function ignoreStoreFolder(project: string, root: string): Promise<boolean> {
  const rel = relative(resolve(project), resolve(root));
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) return false;
  assertSafeAncestors(root);
  await mkdir(root, { recursive: true });
  assertOwnFolder(root);
  const path = join(root, ".gitignore");
  try {
    await writeFile(
      path,
      "# todo-continuation's store: lists and state of this machine's sessions\n*\n",
      { flag: "wx" },
    );
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    // A write cut short (no space) must not leave half a file that blocks the next try.
    await rm(path, { force: true }).catch(() => undefined);
    throw error;
  }
}
