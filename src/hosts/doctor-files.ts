import { execFile } from "node:child_process";
import { access, constants, readFile, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, resolve } from "node:path";

/** Small file and process probes the host checks share; none of them throws. */

export type JsonRead =
  | { kind: "missing" }
  | { kind: "invalid"; reason: string }
  | { kind: "ok"; value: unknown };

/** A JSON file, or why it could not be read. */
export async function readJson(path: string): Promise<JsonRead> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { kind: "missing" };
    return { kind: "invalid", reason: (error as Error).message };
  }
  if (text.trim() === "") return { kind: "ok", value: {} };
  try {
    return { kind: "ok", value: JSON.parse(text) };
  } catch (error) {
    return { kind: "invalid", reason: (error as Error).message };
  }
}

export async function isFile(path: string): Promise<boolean> {
  try {
    await access(path, constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

/** The home folder the context names. */
export function homeOf(env: Record<string, string | undefined>, home: string): string {
  return home.trim() !== "" ? home : env.HOME?.trim() ? (env.HOME as string) : homedir();
}

export interface ProbeResult {
  ok: boolean;
  output: string;
}

/** Runs a program briefly (20 s at most) and reports whether it exited 0, with its output. */
export function probe(
  file: string,
  args: readonly string[],
  env: Record<string, string | undefined>,
  cwd: string,
): Promise<ProbeResult> {
  return new Promise((resolve) => {
    execFile(
      file,
      [...args],
      { env: env as NodeJS.ProcessEnv, cwd, timeout: 20_000, encoding: "utf8" },
      (error, stdout, stderr) =>
        resolve({ ok: error === null, output: `${stdout}${stderr}`.trim() }),
    );
  });
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
