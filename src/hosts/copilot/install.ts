import { readFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { HOOK_SCRIPT, hookScript } from "../hook-kit/command.js";
import {
  checkPreset,
  type HookInstallOptions,
  hookCommandInput,
} from "../hook-kit/host-install.js";
import { removeOwnFile, writeOwnFile } from "../hook-kit/own-file.js";
import { BASE_HOOK_TIMEOUT_MS, stopTimeoutForInstall } from "../hook-kit/timeout.js";
import { COPILOT_EVENTS } from "./payload.js";
import { copilotHome } from "./session-state.js";

/**
 * `install copilot` writes one hooks file of its own into Copilot's hooks folder:
 * `<git root>/.github/hooks/` or `$COPILOT_HOME/hooks/` (default ~/.copilot/hooks/).
 * It owns that file whole (hook-kit/own-file.ts), so no other byte changes.
 */

export type CopilotTarget = "project" | "user";

export type CopilotInstallOptions = HookInstallOptions<CopilotTarget>;

export type CopilotInstallResult = { hooksPath: string; changes: string[] };

export const COPILOT_HOOKS_FILE = "todo-continuation.json";

/** Copilot ends a hook after its `timeoutSec`; a prompt's hook reads a small SQLite file. */
const PROMPT_TIMEOUT_SEC = BASE_HOOK_TIMEOUT_MS / 1000;

export function copilotHooksDir(
  target: CopilotTarget,
  project: string,
  env: Record<string, string | undefined>,
): string {
  return join(target === "project" ? join(project, ".github") : copilotHome(env), "hooks");
}

/**
 * The hooks file: our command for each event we answer, with `--event` naming it. `stopSec`:
 * `agentStop`'s timeout, which covers the project's check (see `stopTimeoutForInstall`).
 */
export function copilotHooksContent(command: string, stopSec = PROMPT_TIMEOUT_SEC): string {
  const hooks = Object.fromEntries(
    COPILOT_EVENTS.map((event) => {
      const timeoutSec = event === "agentStop" ? stopSec : PROMPT_TIMEOUT_SEC;
      return [event, [{ type: "command", bash: `${command} --event ${event}`, timeoutSec }]];
    }),
  );
  return `${JSON.stringify({ version: 1, hooks }, null, 2)}\n`;
}

/** Whether a hooks file is one we wrote: every command is our hook's. */
export function isOurHooksFile(text: string): boolean {
  try {
    const parsed = JSON.parse(text) as { hooks?: Record<string, { bash?: unknown }[]> };
    const entries = Object.values(parsed.hooks ?? {}).flat();
    const ours = / hook copilot( --preset [\w-]+)? --event \w+$/;
    return (
      entries.length > 0 && entries.every((e) => typeof e.bash === "string" && ours.test(e.bash))
    );
  } catch {
    return false;
  }
}

/**
 * Copilot runs the hooks files of both folders: ours in both runs twice for every event (the
 * second run of an event does nothing, see hook-kit/event-claim.ts), which is work for nothing.
 */
export const twiceInstalled = (paths: readonly string[]): string =>
  `todo-continuation's hooks are installed twice (${paths.join(" and ")}): Copilot runs both for every event (the second run does nothing). Keep one.`;

function setup(options: CopilotInstallOptions) {
  const project = resolve(options.projectDir ?? process.cwd());
  const dir = copilotHooksDir(options.target ?? "project", project, options.env ?? process.env);
  const out = options.out ?? ((line: string) => void process.stdout.write(`${line}\n`));
  return { project, path: join(dir, COPILOT_HOOKS_FILE), out };
}

export async function installCopilot(
  options: CopilotInstallOptions = {},
): Promise<CopilotInstallResult> {
  checkPreset(options.preset);
  const { project, path, out } = setup(options);
  const { node, script } = hookScript(hookCommandInput(options, project, false), HOOK_SCRIPT, "");
  const preset = options.preset === undefined ? "" : ` --preset ${options.preset}`;
  // A project check runs inside agentStop: its timeout covers it (refused when Copilot cannot wait).
  const stop = stopTimeoutForInstall("copilot", project, options.env ?? process.env);
  const content = copilotHooksContent(`${node} ${script} hook copilot${preset}`, stop.value);
  const changes = await writeOwnFile(path, content, isOurHooksFile, out, "Copilot hooks");
  out(stop.line);
  const target = options.target ?? "project";
  const env = options.env ?? process.env;
  const other = join(
    copilotHooksDir(target === "user" ? "project" : "user", project, env),
    COPILOT_HOOKS_FILE,
  );
  const theirs = await readFile(other, "utf8").catch(() => null);
  if (other !== path && theirs !== null && isOurHooksFile(theirs))
    out(`Note: ${twiceInstalled([path, other])}`);
  if (changes.length > 0 && target === "project") {
    out(
      "Copilot loads a repository's hooks once the folder is trusted (or COPILOT_ALLOW_ALL=true); in prompt mode (copilot -p), 1.0.40 to 1.0.48 load them only with GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS=true.",
    );
  }
  return { hooksPath: path, changes };
}

export async function uninstallCopilot(
  options: CopilotInstallOptions = {},
): Promise<CopilotInstallResult> {
  const { path, out } = setup(options);
  return { hooksPath: path, changes: await removeOwnFile(path, isOurHooksFile, out) };
}
