import type { DoctorFinding } from "../../core/doctor.js";
import { isFile, probe } from "./doctor-files.js";

/**
 * The doctor's check that a hook command of ours runs here, the same for every hook host: the
 * script it names is there, and it starts (`hook <host> --help` answers). Hooks fail open, so a
 * command that cannot run costs every nudge silently; each host used to find the script its own
 * way, and one stopped finding it when the entry became `main.cjs`.
 */

/** The program and script a command runs: the last two words before ` hook <host>`. */
export interface CommandRuns {
  node: string;
  script: string;
}

/** One shell word of ours: double-quoted (our `shellQuote`), single-quoted, or bare. */
const WORD = /"((?:[^"\\]|\\.)*)"|'([^']*)'|([^\s"';&|]+)/g;

/**
 * What `command` (any form an installer of ours writes, guarded or not, portable or not) runs for
 * `hook <host>`: the two words before the bare words `hook <host>`, with a leading
 * `$<HOST>_PROJECT_DIR` read as `projectDir`; null when it names no such run.
 */
export function commandRuns(command: string, host: string, projectDir: string): CommandRuns | null {
  const words = [...command.matchAll(WORD)].map((m) => {
    if (m[1] !== undefined) {
      // Only a variable the quoting left live is one: `\$` is a literal dollar.
      const live = m[1].replace(/^\$[A-Z][A-Z0-9_]*_PROJECT_DIR(?=\/|$)/, () => projectDir);
      return { text: live.replace(/\\(["\\$`])/g, "$1"), bare: false };
    }
    return { text: m[2] ?? m[3] ?? "", bare: m[3] !== undefined };
  });
  const at = words.findIndex(
    (w, i) =>
      i >= 2 && w.bare && w.text === "hook" && words[i + 1]?.bare && words[i + 1]?.text === host,
  );
  if (at < 0) return null;
  return { node: words[at - 2]?.text as string, script: words[at - 1]?.text as string };
}

/** The `loadable` finding for a command of ours installed in `where`; `fix` reinstalls. */
export async function hookStartsFinding(
  host: string,
  command: string,
  where: string,
  fix: string,
  ctx: { env: Record<string, string | undefined>; cwd: string },
): Promise<DoctorFinding> {
  const bad = (message: string) => ({ host, check: "loadable", ok: false, message, fix });
  const runs = commandRuns(command, host, ctx.cwd);
  if (runs === null) return bad(`cannot tell which script the hook command in ${where} runs`);
  // A bare `node` is found on PATH by the probe below; a path must be a file.
  const gone: string[] = [];
  for (const path of [runs.node, runs.script]) {
    if (path.includes("/") && !(await isFile(path))) gone.push(path);
  }
  if (gone.length > 0) {
    return bad(`the hook command in ${where} runs ${gone.join(" and ")}, which is not there`);
  }
  const run = await probe(runs.node, [runs.script, "hook", host, "--help"], ctx.env, ctx.cwd);
  if (!run.ok || !run.output.includes(`hook ${host}`)) {
    const first = run.output.split("\n").find((l) => l.trim() !== "") ?? "no output";
    return bad(`${runs.node} ${runs.script} does not start: ${first.slice(0, 200)}`);
  }
  return { host, check: "loadable", ok: true, message: `the hook command starts (${runs.script})` };
}
