import type { DoctorFinding } from "../../core/doctor.js";
import { commandRuns } from "./doctor-command.js";
import { probe } from "./doctor-files.js";
import { ONE_COMMAND_PER_EVENT } from "./process.js";

/**
 * The doctor's `twice` check for a host that runs every settings file's hooks (Claude Code,
 * Gemini CLI, Qwen Code): ours in two files with two different commands (a global copy of the
 * package for the user, the project's own copy) runs twice for every event. Copies of this
 * version find each other and one handles each event; a copy from before that decides every
 * event itself, so each stop is decided twice and the second ends the episode the first nudged.
 * A copy tells which it is by its `--help` ({@link ONE_COMMAND_PER_EVENT}).
 */

export interface InstalledCommand {
  /** The settings file holding it. */
  path: string;
  /** What `install <host> --<target>` rewrites. */
  target: string;
  command: string;
}

/** The `twice` finding, or null when the host runs one command of ours (identical ones run once). */
export async function twiceFinding(
  host: string,
  installs: readonly InstalledCommand[],
  ctx: { env: Record<string, string | undefined>; cwd: string },
): Promise<DoctorFinding | null> {
  const named = installs.filter((install) => install.command !== "");
  const distinct = named.filter(
    (install, i) => named.findIndex((other) => other.command === install.command) === i,
  );
  if (distinct.length < 2) return null;
  const where = distinct.map((install) => install.path).join(" and ");
  const old: { install: InstalledCommand; script: string }[] = [];
  for (const install of distinct) {
    const runs = commandRuns(install.command, host, ctx.cwd);
    // A command that cannot run is the `loadable` finding's.
    if (runs === null) continue;
    const help = await probe(runs.node, [runs.script, "hook", host, "--help"], ctx.env, ctx.cwd);
    if (help.ok && !help.output.includes(ONE_COMMAND_PER_EVENT)) {
      old.push({ install, script: runs.script });
    }
  }
  if (old.length === 0) {
    const message = `ours is in ${where} with different commands: both run for every event, and one handles each`;
    return { host, check: "twice", ok: true, message };
  }
  const which = old.map(({ install, script }) => `${install.path} (${script})`).join(" and ");
  return {
    host,
    check: "twice",
    ok: false,
    message:
      `ours is in ${where} with different commands, and the one in ${which} is of a version ` +
      "that handles every event itself: each stop is decided twice (the second ends the episode the first nudged)",
    fix: `upgrade the package that command runs, or keep one: todo-continuation uninstall ${host} --${old[0]?.install.target}`,
  };
}
