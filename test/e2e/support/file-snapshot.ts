import { readdirSync, readFileSync } from "node:fs";
import { join, sep } from "node:path";

/**
 * Every file under `dir` with its bytes (base64), by relative path: what an install or uninstall
 * must leave byte for byte. A repository's own `.git` is git's, not an install's, and is left out.
 */
export function fileSnapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    const name = path.slice(dir.length + 1);
    if (name.startsWith(`.git${sep}`)) continue;
    files[name] = readFileSync(path, "base64");
  }
  return files;
}
