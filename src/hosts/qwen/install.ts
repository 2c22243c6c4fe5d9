import { join } from "node:path";
import { hookCommand } from "../claude-code/command.js";
import {
  type HookInstallOptions,
  type HookInstallResult,
  type HostEnv,
  installSettingsHost,
  type SettingsHost,
  uninstallSettingsHost,
} from "../hook-kit/host-install.js";
import { readJsonFile } from "../hook-kit/settings-file.js";
import { hostUserDir } from "../hook-kit/user-dir.js";
import { QWEN_EVENTS, QWEN_STORE_FOLDER, QWEN_TODO_WRITE } from "./protocol.js";
import { mergeQwenHooks, QWEN_HOOK_ARGS, qwenCommand, removeQwenHooks } from "./settings.js";

/** The project's `.qwen/settings.json`, or the user's (`$QWEN_HOME`, else `~/.qwen`). */
export type QwenTarget = "project" | "user";

/** The kit's install options (Qwen's hooks have no version gate). */
export type QwenInstallOptions = HookInstallOptions<QwenTarget>;

/** Qwen's user folder: `$QWEN_HOME` (a leading `~` is the home folder), else `~/.qwen`. */
export const qwenHome = (env: HostEnv): string => hostUserDir(env, "QWEN_HOME", [".qwen"], true);

/** The settings file a target names. */
export const qwenSettingsPath = (target: QwenTarget, project: string, env: HostEnv): string =>
  join(target === "user" ? qwenHome(env) : join(project, ".qwen"), "settings.json");

const QWEN_HOST: SettingsHost<QwenTarget> = {
  name: "Qwen Code",
  timeoutHost: "qwen",
  file: (target, project, env) => ({
    path: qwenSettingsPath(target, project, env),
    // Each settings file's bytes from before install, for a byte-exact uninstall.
    ledger: join(qwenHome(env), "todo-continuation-installs.json"),
    store: target === "project" ? join(project, QWEN_STORE_FOLDER) : null,
  }),
  command: (input) => hookCommand(input, QWEN_HOOK_ARGS),
  remove: removeQwenHooks,
  installedCommand: qwenCommand,
};

/** Whether a settings value turns Qwen's `todo_write` tool on (it is off by default). */
export function enablesTodoWrite(value: unknown): boolean {
  const tools = (value as { tools?: { todoWrite?: { enabled?: unknown } } } | null)?.tools;
  return tools?.todoWrite?.enabled === true;
}

/** Merges our hooks into Qwen's settings; says when `todo_write` is off (then no list to continue). */
export async function installQwen(options: QwenInstallOptions = {}): Promise<HookInstallResult> {
  const steps = { events: QWEN_EVENTS.map((e) => e.event), merge: mergeQwenHooks };
  const run = await installSettingsHost(QWEN_HOST, options, "project", steps);
  const path = run.result.settingsPath;
  const user = await readJsonFile(qwenSettingsPath("user", run.project, run.env)).catch(() => null);
  if (!enablesTodoWrite(run.merged) && !enablesTodoWrite(user?.value)) {
    run.out(
      `Note: Qwen Code's ${QWEN_TODO_WRITE} tool is off by default; without it the agent keeps no ` +
        `list to continue. Turn it on with "tools": {"todoWrite": {"enabled": true}} in ${path}.`,
    );
  }
  return run.result;
}

/** Removes only our hooks (exact bytes back when the file is as install left it). */
export const uninstallQwen = (options: QwenInstallOptions = {}): Promise<HookInstallResult> =>
  uninstallSettingsHost(QWEN_HOST, options, "project");
