import { hostUserDir } from "../hook-kit/user-dir.js";

/**
 * Where pi's settings name this package's extension: shared by `install pi`
 * and the doctor.
 */

/** The extension's file inside the package. */
export const EXTENSION_FILE = ["dist", "hosts", "pi", "index.js"] as const;

/** pi's user folder: `$PI_CODING_AGENT_DIR`, else `~/.pi/agent`. */
export const piAgentDir = (env: Record<string, string | undefined>): string =>
  hostUserDir(env, "PI_CODING_AGENT_DIR", [".pi", "agent"]);

/** True for an `extensions` entry that loads this package's pi extension, wherever from. */
export function isOurPiEntry(entry: unknown, ours: readonly string[] = []): boolean {
  if (typeof entry !== "string") return false;
  if (ours.includes(entry)) return true;
  const path = entry.replace(/^[+-]/, "").split("\\").join("/");
  return /(^|\/)todo-continuation\/dist\/hosts\/pi\/index\.[jt]s$/.test(path);
}
