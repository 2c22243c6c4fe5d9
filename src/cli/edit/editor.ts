import { spawnSync } from "node:child_process";
import { CliError } from "../errors.js";

/** The editor to open: $EDITOR, else $VISUAL (either may carry arguments, as in "code --wait"). */
export function editorCommand(env: Record<string, string | undefined>): string {
  for (const name of ["EDITOR", "VISUAL"]) {
    const value = env[name]?.trim();
    if (value) return value;
  }
  throw new CliError("no editor: set EDITOR (or VISUAL) to the command that edits a file", [
    "For example: EDITOR=nano todo-continuation edit tui",
  ]);
}

/** Quotes one argument for the platform's shell. */
export function shellArgument(value: string, platform: NodeJS.Platform = process.platform): string {
  if (platform === "win32") return `"${value.replace(/"/g, '""')}"`;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * Runs the editor on a file and waits for it, attached to this terminal. The
 * command goes through the shell so that editors configured with arguments
 * work; the file name is quoted.
 */
export function runEditor(
  command: string,
  file: string,
  env: Record<string, string | undefined>,
): void {
  const result = spawnSync(`${command} ${shellArgument(file)}`, {
    shell: true,
    stdio: "inherit",
    env: env as NodeJS.ProcessEnv,
  });
  if (result.error) {
    throw new CliError(`could not start the editor "${command}": ${result.error.message}`);
  }
  if (result.status !== 0) {
    const how = result.signal
      ? `was killed by ${result.signal}`
      : `exited with code ${result.status}`;
    throw new CliError(`the editor "${command}" ${how}; nothing was changed`);
  }
}
