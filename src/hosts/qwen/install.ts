import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { hookCommand } from "../claude-code/command.js";
import {
  type ClaudeCodeInstallOptions,
  type ClaudeCodeInstallResult,
  checkPreset,
  packageRootOf,
} from "../claude-code/install.js";
import { readJsonFile } from "../hook-kit/settings-file.js";
import {
  commitHookSettings,
  type HookSettingsFile,
  reportChanges,
  revertHookSettings,
} from "../hook-kit/settings-install.js";
import { stopTimeoutForInstall } from "../hook-kit/timeout.js";
import { QWEN_EVENTS, QWEN_STORE_FOLDER, QWEN_TODO_WRITE } from "./protocol.js";
import { mergeQwenHooks, QWEN_HOOK_ARGS, removeQwenHooks } from "./settings.js";

/** The project's `.qwen/settings.json`, or the user's (`$QWEN_HOME`, else `~/.qwen`). */
export type QwenTarget = "project" | "user";

/** The Claude Code install's options, without its version (Qwen's hooks have no version gate). */
export type QwenInstallOptions = Omit<ClaudeCodeInstallOptions, "target" | "claudeVersion"> & {
  target?: QwenTarget;
};
export type QwenInstallResult = ClaudeCodeInstallResult;

/** Qwen's user folder: `$QWEN_HOME` (a leading `~` is the home folder), else `~/.qwen`. */
export function qwenHome(env: Record<string, string | undefined>): string {
  const home = env.HOME?.trim() ? env.HOME : homedir();
  const set = env.QWEN_HOME?.trim();
  if (!set) return join(home, ".qwen");
  return set.startsWith("~") ? join(home, set.slice(1)) : resolve(set);
}

export function qwenSettingsPath(
  target: QwenTarget,
  project: string,
  env: Record<string, string | undefined>,
): string {
  return target === "user"
    ? join(qwenHome(env), "settings.json")
    : join(project, ".qwen", "settings.json");
}

function setup(options: QwenInstallOptions) {
  const env = options.env ?? process.env;
  const project = resolve(options.projectDir ?? process.cwd());
  const target = options.target ?? "project";
  const out = options.out ?? ((line: string) => void process.stdout.write(`${line}\n`));
  const path = qwenSettingsPath(target, project, env);
  const settings: HookSettingsFile = {
    path,
    // Each settings file's bytes from before install, for a byte-exact uninstall.
    ledger: join(qwenHome(env), "todo-continuation-installs.json"),
    owner: `settings:${resolve(path)}`,
    ignore: target === "project" ? { project, store: join(project, QWEN_STORE_FOLDER) } : null,
  };
  return { env, project, target, out, path, settings };
}

/** Whether a settings value turns Qwen's `todo_write` tool on (it is off by default). */
export function enablesTodoWrite(value: unknown): boolean {
  const tools = (value as { tools?: { todoWrite?: { enabled?: unknown } } } | null)?.tools;
  return tools?.todoWrite?.enabled === true;
}

/**
 * Merges our hooks into Qwen Code's settings, keeping every other hook and
 * setting and the file's layout; a project install also ignores the store
 * folder in git. Idempotent. Says when `todo_write` is off, since without
 * it the agent keeps no list to continue.
 */
export async function installQwen(options: QwenInstallOptions = {}): Promise<QwenInstallResult> {
  checkPreset(options.preset);
  const { env, project, target, out, path, settings } = setup(options);
  const stop = stopTimeoutForInstall("qwen", project, env);
  const { command, portable } = hookCommand(
    {
      projectDir: project,
      packageRoot: options.packageRoot ?? packageRootOf(),
      nodePath: options.nodePath ?? process.execPath,
      portable: target === "project",
      ...(options.entry !== undefined ? { entry: resolve(options.entry) } : {}),
      ...(options.preset !== undefined ? { preset: options.preset } : {}),
    },
    QWEN_HOOK_ARGS,
  );
  const file = await readJsonFile(path);
  const merged = mergeQwenHooks(file.value, command, path, stop.value);
  const hadOurs = removeQwenHooks(file.value, path).changes.length > 0;
  const changes = await commitHookSettings(settings, file, merged, hadOurs);
  const none = `Qwen Code hooks already installed in ${path}; nothing changed.`;
  reportChanges(out, path, changes, none);
  out(`Hook events: ${QWEN_EVENTS.map((e) => e.event).join(", ")}`);
  out(`Hook command: ${command}`);
  out(stop.line);
  const user = await readJsonFile(qwenSettingsPath("user", project, env)).catch(() => null);
  if (!enablesTodoWrite(merged.settings) && !enablesTodoWrite(user?.value)) {
    out(
      `Note: Qwen Code's ${QWEN_TODO_WRITE} tool is off by default; without it the agent keeps no ` +
        `list to continue. Turn it on with "tools": {"todoWrite": {"enabled": true}} in ${path}.`,
    );
  }
  return { settingsPath: path, changes, command, portable };
}

/** Removes only our hooks (exact bytes back when the file is as install left it). */
export async function uninstallQwen(options: QwenInstallOptions = {}): Promise<QwenInstallResult> {
  const { out, path, settings } = setup(options);
  const file = await readJsonFile(path);
  const changes = await revertHookSettings(settings, file, removeQwenHooks(file.value, path));
  reportChanges(out, path, changes, `No todo-continuation hooks in ${path}; nothing changed.`);
  return { settingsPath: path, changes, command: null, portable: false };
}
