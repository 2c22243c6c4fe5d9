import { homedir } from "node:os";
import { join, resolve } from "node:path";

/**
 * Where pi's settings name this package's extension: shared by `install pi`
 * and the doctor.
 */

/** The extension's file inside the package. */
export const EXTENSION_FILE = ["dist", "hosts", "pi", "index.js"] as const;

/** pi's user folder: `$PI_CODING_AGENT_DIR`, else `~/.pi/agent`. */
export function piAgentDir(env: Record<string, string | undefined>): string {
  const fromEnv = env.PI_CODING_AGENT_DIR?.trim();
  if (fromEnv) return resolve(fromEnv);
  return join(env.HOME?.trim() ? (env.HOME as string) : homedir(), ".pi", "agent");
}

/** True for an `extensions` entry that loads this package's pi extension, wherever from. */
export function isOurPiEntry(entry: unknown, ours: readonly string[] = []): boolean {
  if (typeof entry !== "string") return false;
  if (ours.includes(entry)) return true;
  const path = entry.replace(/^[+-]/, "").split("\\").join("/");
  return /(^|\/)todo-continuation\/dist\/hosts\/pi\/index\.[jt]s$/.test(path);
}
