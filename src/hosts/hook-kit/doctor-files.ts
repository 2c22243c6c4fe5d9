import { execFile } from "node:child_process";
import { access, constants, readFile } from "node:fs/promises";
import type { DoctorFinding } from "../../core/doctor.js";

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

/** The finding for a host whose integration is not installed here: `what` names it. */
export function notInstalledFinding(host: string, check: string, what: string): DoctorFinding {
  const message = `no todo-continuation ${what} installed (todo-continuation install ${host} adds it)`;
  return { host, check, ok: true, message, notInstalled: true };
}

export { homeOf, notWritable } from "../../store/file/probes.js";
