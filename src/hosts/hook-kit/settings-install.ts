import { existsSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { ensureGitignored, removeGitignored } from "../../store/file/index.js";
import type { SettingsChange } from "./hook-settings.js";
import { installWithLedger, uninstallWithLedger } from "./install-ledger.js";
import type { JsonFile } from "./settings-file.js";

/**
 * Writing a host's settings file with our hooks merged in, through the install
 * ledger (so uninstall can give its bytes back), together with the line that
 * keeps a project's store folder out of git: all or nothing.
 */

export interface HookSettingsFile {
  path: string;
  /** The host's install ledger, and this file's key in it. */
  ledger: string;
  owner: string;
  /** A project install's project and store folder (its `.gitignore` gets the store); else null. */
  ignore: { project: string; store: string } | null;
}

const ignoreLine = (ig: { project: string; store: string }) =>
  `/${relative(ig.project, ig.store).split(sep).join("/")}/`;

/** Writes `merged` (when it changed anything) and ignores the store; the changes made. */
export async function commitHookSettings(
  target: HookSettingsFile,
  file: JsonFile,
  merged: SettingsChange,
  hadOurs: boolean,
): Promise<string[]> {
  const changes = [...merged.changes];
  const ig = target.ignore;
  const ignored =
    ig !== null &&
    existsSync(join(ig.project, ".git")) &&
    (await ensureGitignored(ig.project, ig.store));
  try {
    if (changes.length > 0) {
      const write = { owner: target.owner, file, value: merged.settings, hadOurs };
      await installWithLedger(target.ledger, [write]);
    }
  } catch (error) {
    // The .gitignore line goes again when the settings cannot be written.
    if (ig !== null && ignored) await removeGitignored(ig.project, ig.store).catch(() => false);
    throw error;
  }
  if (ig !== null && ignored)
    changes.push(`added ${ignoreLine(ig)} to ${join(ig.project, ".gitignore")}`);
  return changes;
}

/** Writes `removed` (the exact bytes from before install when nothing else changed); the changes. */
export async function revertHookSettings(
  target: HookSettingsFile,
  file: JsonFile,
  removed: SettingsChange,
): Promise<string[]> {
  const changes = [...removed.changes];
  const [action] = await uninstallWithLedger(target.ledger, [
    { owner: target.owner, file, value: removed.settings, changed: changes.length > 0 },
  ]);
  if (action === "removed") changes.push(`removed ${target.path}, which install had created`);
  if (action === "restored") changes.push(`restored ${target.path} to its bytes before install`);
  const ig = target.ignore;
  if (ig !== null && (await removeGitignored(ig.project, ig.store))) {
    changes.push(`removed ${ignoreLine(ig)} from ${join(ig.project, ".gitignore")}`);
  }
  return changes;
}

/** Prints the changes under the file's name, or `none` when there are none. */
export function reportChanges(
  out: (line: string) => void,
  path: string,
  changes: readonly string[],
  none: string,
): void {
  const lines =
    changes.length === 0 ? [none] : [`Updated ${path}:`, ...changes.map((c) => `  ${c}`)];
  for (const line of lines) out(line);
}
