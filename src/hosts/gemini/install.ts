import { join, resolve } from "node:path";
import { checkPreset, hookCommandInput } from "../hook-kit/host-install.js";
import {
  installWithLedger,
  type PlannedInstallWrite,
  type PlannedUninstall,
  type UninstallAction,
  uninstallWithLedger,
} from "../hook-kit/install-ledger.js";
import { readJsonFile } from "../hook-kit/settings-file.js";
import { stopTimeoutForInstall } from "../hook-kit/timeout.js";
import { geminiHookCommand } from "./command.js";
import {
  type GeminiTarget,
  geminiSettingsPath,
  geminiUserDir,
  trustedFoldersPath,
  trustedHooksPath,
} from "./paths.js";
import {
  mergeGeminiHooks,
  ourGeminiHandlers,
  removeGeminiHooks,
  todoToolOf,
  toolFactsOf,
} from "./settings.js";
import { folderTrustOf, trustOurHooks, untrustOurHooks } from "./trust.js";

export interface GeminiInstallOptions {
  /** Default "project": `<project>/.gemini/settings.json`. */
  target?: GeminiTarget;
  projectDir?: string;
  /** Environment (HOME, GEMINI_CLI_HOME, GEMINI_CLI_TRUSTED_FOLDERS_PATH). Default: process.env. */
  env?: Record<string, string | undefined>;
  preset?: string;
  /** Run this script instead of the package's hook entry (absolute path). */
  entry?: string;
  nodePath?: string;
  packageRoot?: string;
  out?: (line: string) => void;
}

export interface GeminiInstallResult {
  settingsPath: string;
  changes: string[];
  command: string | null;
  portable: boolean;
}

/**
 * Where install notes each file's bytes before it first wrote there, so that
 * uninstall can restore them exactly (see ../hook-kit/install-ledger.ts).
 */
export function geminiInstallLedgerPath(env: Record<string, string | undefined>): string {
  return join(geminiUserDir(env), "todo-continuation-installs.json");
}

const settingsOwner = (path: string) => `settings:${resolve(path)}`;
const trustOwner = (project: string) => `trusted-hooks:${project}`;

function defaults(options: GeminiInstallOptions) {
  const env = options.env ?? process.env;
  const project = resolve(options.projectDir ?? process.cwd());
  const target = options.target ?? "project";
  const out = options.out ?? ((line: string) => void process.stdout.write(`${line}\n`));
  return { env, project, target, out, path: geminiSettingsPath(target, project, env) };
}

function report(out: (line: string) => void, path: string, changes: string[], none: string) {
  if (changes.length === 0) {
    out(none);
    return;
  }
  out(`Updated ${path}:`);
  for (const change of changes) out(`  ${change}`);
}

/** The settings Gemini CLI would merge for this project (project over user), for the notes. */
async function effectiveSettings(project: string, env: Record<string, string | undefined>) {
  const user = (await readJsonFile(geminiSettingsPath("user", project, env)).catch(() => null))
    ?.value;
  const local = (await readJsonFile(geminiSettingsPath("project", project, env)).catch(() => null))
    ?.value;
  const pick = (s: unknown) => toolFactsOf(s);
  const u = pick(user);
  const p = pick(local);
  const projectObject = (typeof local === "object" && local !== null ? local : {}) as Record<
    string,
    unknown
  >;
  const has = (key: string) => Object.hasOwn(projectObject, key);
  return {
    model: p.model ?? u.model,
    taskTracker: has("experimental") ? p.taskTracker || u.taskTracker : u.taskTracker,
    writeTodosDisabled: has("useWriteTodos") ? p.writeTodosDisabled : u.writeTodosDisabled,
    hooksDisabled: p.hooksDisabled || u.hooksDisabled,
    ourHookDisabled: p.ourHookDisabled || u.ourHookDisabled,
  };
}

/** What the user must know for the hooks to act: folder trust, hooks switched off, a todo tool. */
export async function geminiNotes(
  target: GeminiTarget,
  project: string,
  env: Record<string, string | undefined>,
): Promise<string[]> {
  const notes: string[] = [];
  if (target === "project") {
    const rules = (await readJsonFile(trustedFoldersPath(env)).catch(() => null))?.value;
    if (folderTrustOf(rules, project) !== "trusted") {
      notes.push(
        `Gemini CLI loads project hooks only in a trusted folder, and ${project} is not trusted yet: ` +
          'start `gemini` there and choose "Trust folder" (or run /permissions in it). Until then ' +
          "these hooks do not run, and headless runs (gemini -p) in the folder stop with an error.",
      );
    }
  }
  const facts = await effectiveSettings(project, env);
  if (facts.hooksDisabled) {
    notes.push(
      "hooksConfig.enabled is false in Gemini CLI's settings: no hook runs until it is true.",
    );
  }
  if (facts.ourHookDisabled) {
    notes.push('hooksConfig.disabled lists "todo-continuation": remove it for the hooks to run.');
  }
  const tool = todoToolOf(facts);
  notes.push(`Todo tool: ${tool.why}.`);
  return notes;
}

/**
 * Merges our hooks into Gemini CLI's settings (keeping every other hook and
 * setting, and the file's layout), lists them as trusted hooks for a project
 * install, and prints what changed and what the user still has to do.
 * Idempotent.
 */
export async function installGemini(
  options: GeminiInstallOptions = {},
): Promise<GeminiInstallResult> {
  checkPreset(options.preset);
  const { env, project, target, out, path } = defaults(options);
  const { command, portable } = geminiHookCommand(
    hookCommandInput(options, project, target === "project"),
  );
  // A project check runs inside the AfterAgent hook: its timeout covers it (refused when Gemini CLI cannot wait).
  const stopTimeout = stopTimeoutForInstall("gemini", project, env);
  const file = await readJsonFile(path);
  const merged = mergeGeminiHooks(file.value, command, undefined, path, stopTimeout.value);
  const changes = [...merged.changes];
  const writes: PlannedInstallWrite[] = [];
  if (changes.length > 0) {
    const hadOurs = ourGeminiHandlers(file.value).length > 0;
    writes.push({ owner: settingsOwner(path), file, value: merged.settings, hadOurs });
  }
  if (target === "project") {
    const trustFile = await readJsonFile(trustedHooksPath(env));
    const trusted = trustOurHooks(trustFile.value, project, [command]);
    if (trusted.changed) {
      const hadOurs = untrustOurHooks(trustFile.value, project).changed;
      writes.push({ owner: trustOwner(project), file: trustFile, value: trusted.value, hadOurs });
      changes.push(`listed our hooks as trusted for ${project} in ${trustFile.path}`);
    }
  }
  await installWithLedger(geminiInstallLedgerPath(env), writes);
  report(out, path, changes, `Gemini CLI hooks already installed in ${path}; nothing changed.`);
  out(`Hook command: ${command}`);
  out(stopTimeout.line.replace("Stop hook timeout", "AfterAgent hook timeout"));
  if (!portable && target === "project") {
    out(
      "Note: this command names paths on this machine. Add todo-continuation to the project's " +
        "devDependencies and install again for a command that works from any clone.",
    );
  }
  for (const note of await geminiNotes(target, project, env)) out(note);
  return { settingsPath: path, changes, command, portable };
}

/** Removes only our hooks (and their trust entries) and prints what changed. */
export async function uninstallGemini(
  options: GeminiInstallOptions = {},
): Promise<GeminiInstallResult> {
  const { env, project, target, out, path } = defaults(options);
  const file = await readJsonFile(path);
  const command = ourGeminiHandlers(file.value)[0]?.command ?? null;
  const removed = removeGeminiHooks(file.value, path);
  const changes = [...removed.changes];
  const removals: PlannedUninstall[] = [
    {
      owner: settingsOwner(path),
      file,
      value: removed.settings,
      changed: removed.changes.length > 0,
    },
  ];
  let trustPath: string | null = null;
  let untrustChanged = false;
  if (target === "project") {
    const trustFile = await readJsonFile(trustedHooksPath(env));
    const untrusted = untrustOurHooks(trustFile.value, project);
    trustPath = trustFile.path;
    untrustChanged = untrusted.changed;
    removals.push({
      owner: trustOwner(project),
      file: trustFile,
      value: untrusted.value,
      changed: untrusted.changed,
    });
  }
  const [settingsAction, trustAction] = await uninstallWithLedger(
    geminiInstallLedgerPath(env),
    removals,
  );
  const done = (action: UninstallAction | undefined, what: string) => {
    if (action === "removed") changes.push(`removed ${what}, which install had created`);
    if (action === "restored") changes.push(`restored ${what} to its bytes before install`);
  };
  done(settingsAction, path);
  if (trustPath !== null) {
    if (untrustChanged) {
      changes.push(`removed our trusted-hook entries for ${project} from ${trustPath}`);
    }
    done(trustAction, trustPath);
  }
  report(
    out,
    path,
    changes,
    `No todo-continuation hooks in ${path}${file.exists ? "" : " (no such file)"}; nothing changed.`,
  );
  return { settingsPath: path, changes, command, portable: false };
}
