import { access, constants, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, resolve } from "node:path";

/** Probes the store's doctor check and the hosts' share; neither throws. */

/** The home folder the context names. */
export function homeOf(env: Record<string, string | undefined>, home: string): string {
  return home.trim() !== "" ? home : env.HOME?.trim() ? (env.HOME as string) : homedir();
}

/**
 * Whether a folder can be written, without creating anything: the folder if
 * it exists, else the nearest existing folder above it (where it would be
 * created). Returns null when writable, else the reason.
 */
export async function notWritable(dir: string): Promise<string | null> {
  let current = resolve(dir);
  for (;;) {
    try {
      const info = await stat(current);
      if (!info.isDirectory()) return `${current} is not a folder`;
      await access(current, constants.W_OK | constants.X_OK);
      return null;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") {
        const parent = dirname(current);
        if (parent === current) return `no folder above ${dir} exists`;
        current = parent;
        continue;
      }
      return `${current} is not writable (${code ?? (error as Error).message})`;
    }
  }
}
