import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The built CLI: tests run it as a user would, so `npm run build` must come first. */
export const CLI = fileURLToPath(new URL("../../../dist/cli/main.js", import.meta.url));

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** The environment every run starts from: no colour, no editor, no store chosen by the caller's shell. */
export function cleanEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" };
  for (const name of [
    "EDITOR",
    "VISUAL",
    "TODO_CONTINUATION_DIR",
    "TODO_CONTINUATION_DATABASE_URL",
    "FORCE_COLOR",
  ]) {
    delete env[name];
  }
  for (const [name, value] of Object.entries(extra)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

export function runCli(
  args: string[],
  options: { env?: Record<string, string | undefined>; input?: string; cwd?: string } = {},
): Promise<CliRun> {
  if (!existsSync(CLI))
    throw new Error(`${CLI} is missing: run \`npm run build\` before these tests`);
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [CLI, ...args],
      { env: cleanEnv(options.env), cwd: options.cwd, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== "number") {
          reject(error);
          return;
        }
        resolve({ code: typeof error?.code === "number" ? error.code : 0, stdout, stderr });
      },
    );
    child.stdin?.end(options.input ?? "");
  });
}
