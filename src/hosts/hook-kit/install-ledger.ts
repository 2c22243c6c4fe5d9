import { lstat, readFile, rmdir, unlink } from "node:fs/promises";
import { dirname, resolve, sep } from "node:path";
import { formatJson, type JsonFile, linkTarget, writeTextFile } from "./settings-file.js";

/**
 * What an install changed, so that uninstall can put every file back to its
 * exact bytes and remove what install created. Re-serialising the JSON can
 * never promise that (a file's own spacing, key order and escapes are gone
 * once parsed), so the ledger keeps, per file written, the bytes it had
 * before our first write (or that it did not exist, and which folders were
 * made for it), the bytes of our latest write, and which installs (owners)
 * have entries in it: `~/.gemini/trusted_hooks.json` is shared by every
 * project.
 *
 * Uninstall restores those first bytes when the last owner leaves and the
 * file is as we left it, or when removing our entries gives back the same
 * content it had before. Anything else (the user edited the file since) gets
 * our entries removed and the rest kept. A file that already held entries of
 * ours when first recorded (an install from before the ledger) is never
 * "restored" to them: only our entries are removed.
 */

interface LedgerEntry {
  /** The file's bytes before our first write; null when it did not exist. */
  before: string | null;
  /** False when the file already held our entries at our first recorded write. */
  beforeIsClean: boolean;
  /** The bytes of our latest write. */
  after: string;
  /** Folders our first write created for the file, deepest first. */
  createdDirs: string[];
  owners: string[];
}

interface Ledger {
  version: 1;
  /** Folders the ledger's own first write created. */
  createdDirs: string[];
  /** By the real path of the file (symlinks followed). */
  files: Record<string, LedgerEntry>;
}

export interface PlannedInstallWrite {
  /** Who the entries belong to (an install target, a project): one file may hold several. */
  owner: string;
  file: JsonFile;
  value: unknown;
  /** The file already held entries of ours before this write. */
  hadOurs: boolean;
}

export interface PlannedUninstall {
  owner: string;
  file: JsonFile;
  /** The file's value with this owner's entries removed. */
  value: unknown;
  /** Whether removing them changed anything. */
  changed: boolean;
}

export type UninstallAction = "restored" | "removed" | "written" | "unchanged";

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function checkLedger(raw: unknown, path: string): Ledger {
  const fail = (why: string): never => {
    throw new Error(`${path}: not an install ledger (${why}); remove it to uninstall by hand`);
  };
  if (!isObject(raw) || raw.version !== 1 || !isObject(raw.files)) fail("unknown layout");
  const ledger = raw as unknown as Ledger;
  for (const [file, entry] of Object.entries(ledger.files)) {
    const e = entry as unknown as Record<string, unknown>;
    if (
      !isObject(e) ||
      !(e.before === null || typeof e.before === "string") ||
      typeof e.after !== "string" ||
      typeof e.beforeIsClean !== "boolean" ||
      !Array.isArray(e.createdDirs) ||
      !Array.isArray(e.owners)
    ) {
      fail(`bad entry for ${file}`);
    }
  }
  if (!Array.isArray(ledger.createdDirs)) fail("bad createdDirs");
  return ledger;
}

async function readText(path: string): Promise<string | null> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

async function loadLedger(path: string): Promise<Ledger | null> {
  const text = await readText(path);
  if (text === null) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return checkLedger(null, path);
  }
  return checkLedger(raw, path);
}

/** The folders that do not exist yet above `path`, deepest first. */
async function missingDirs(path: string): Promise<string[]> {
  const out: string[] = [];
  let dir = dirname(resolve(path));
  while ((await lstat(dir).catch(() => null)) === null) {
    out.push(dir);
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return out;
}

/** Removes each folder that is empty, deepest first; a folder with anything in it stays. */
async function removeEmptyDirs(dirs: Iterable<string>): Promise<void> {
  const depth = (d: string) => d.split(sep).length;
  for (const dir of [...new Set(dirs)].sort((a, b) => depth(b) - depth(a))) {
    await rmdir(dir).catch(() => undefined);
  }
}

/** JSON values compared by content, key order aside. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    isObject(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, v[k]]),
        )
      : v,
  );
}

function parsedOrEmpty(text: string | null): unknown {
  if (text === null || text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The ledger's own layout. */
const LEDGER_LAYOUT = { indent: "  ", eol: "\n", finalNewline: true } as const;

/**
 * Called before each file an install writes (after the ledger). Only the tests
 * set it, to fail an install between two steps; it stays empty otherwise.
 */
export const installProbe: { beforeWrite: ((path: string) => void) | null } = {
  beforeWrite: null,
};

/**
 * Writes each planned value in its file's layout (through symlinks,
 * atomically) and records it in the ledger at `ledgerPath`, all or nothing.
 * Every missing folder is noted before anything is written, so a folder one
 * write creates is not taken for the user's by the next. The ledger is
 * written first, so a process killed between two files leaves a ledger that
 * knows each new file's bytes from before (an uninstall then gives them
 * back); a file it already knew (shared with another install) gets our
 * owner and bytes only once every file is written, so a kill never leaves
 * it naming entries the file does not hold;
 * a write that fails puts back every file already written, the folders made
 * for them and the ledger as it was, then reports the failure.
 */
export async function installWithLedger(
  ledgerPath: string,
  writes: readonly PlannedInstallWrite[],
): Promise<void> {
  if (writes.length === 0) return;
  const ledgerMissing = await missingDirs(ledgerPath);
  const plans = [];
  for (const write of writes) {
    const target = await linkTarget(write.file.path);
    plans.push({
      write,
      target,
      missing: await missingDirs(target),
      before: await readText(target),
      text: formatJson(write.value, write.file.layout),
    });
  }
  const ledgerTarget = await linkTarget(ledgerPath);
  const ledgerBefore = await readText(ledgerTarget);
  const ledger: Ledger = (await loadLedger(ledgerPath)) ?? {
    version: 1,
    createdDirs: ledgerMissing,
    files: {},
  };
  // First the ledger learns the files it has no entry for: their bytes from before.
  const known = new Set(Object.keys(ledger.files));
  for (const { write, target, missing, before, text } of plans) {
    if (known.has(target) || ledger.files[target] !== undefined) continue;
    ledger.files[target] = {
      before,
      beforeIsClean: !write.hadOurs,
      after: text,
      createdDirs: missing,
      owners: [write.owner],
    };
  }
  const written: typeof plans = [];
  try {
    await writeTextFile(ledgerPath, formatJson(ledger, LEDGER_LAYOUT));
    for (const plan of plans) {
      installProbe.beforeWrite?.(plan.target);
      written.push(plan);
      await writeTextFile(plan.write.file.path, plan.text);
    }
    // Then, every file written, the files it already knew get their new bytes and owner.
    if (plans.some((p) => known.has(p.target))) {
      for (const { write, target, text } of plans) {
        const entry = ledger.files[target];
        if (!known.has(target) || entry === undefined) continue;
        entry.after = text;
        if (!entry.owners.includes(write.owner)) entry.owners.push(write.owner);
      }
      await writeTextFile(ledgerPath, formatJson(ledger, LEDGER_LAYOUT));
    }
  } catch (error) {
    await rollBack(written, ledgerPath, ledgerBefore, ledgerMissing);
    throw error;
  }
}

/**
 * Puts back what a failed install wrote, newest first: each file's bytes from
 * before (or no file), the folders made for them, the ledger's bytes from
 * before (or no ledger, and no folders made for it). Best effort: the
 * install's own error is the one reported.
 */
async function rollBack(
  written: readonly { target: string; before: string | null; missing: string[] }[],
  ledgerPath: string,
  ledgerBefore: string | null,
  ledgerMissing: readonly string[],
): Promise<void> {
  const steps: (() => Promise<unknown>)[] = [];
  const dirs: string[] = [];
  for (const { target, before, missing } of [...written].reverse()) {
    steps.push(() =>
      before === null ? unlink(target).catch(ignoreMissing) : writeTextFile(target, before),
    );
    dirs.push(...missing);
  }
  if (ledgerBefore === null) {
    steps.push(() => unlink(ledgerPath).catch(ignoreMissing));
    dirs.push(...ledgerMissing);
  } else {
    steps.push(() => writeTextFile(ledgerPath, ledgerBefore));
  }
  for (const step of steps) {
    try {
      await step();
    } catch {
      // The install's error is the one to report; the ledger still knows the bytes from before.
    }
  }
  await removeEmptyDirs(dirs);
}

function ignoreMissing(error: unknown): void {
  if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
}

/**
 * Takes each owner's entries out of its file: back to the bytes before our
 * first write when that is what the file amounts to without them, else the
 * rest of the file kept in its layout. Removes files and folders install
 * created once nothing of theirs is left, and the ledger once it is empty.
 */
export async function uninstallWithLedger(
  ledgerPath: string,
  removals: readonly PlannedUninstall[],
): Promise<UninstallAction[]> {
  const ledger = await loadLedger(ledgerPath);
  const actions: UninstallAction[] = [];
  const freedDirs: string[] = [];
  for (const removal of removals) {
    const target = await linkTarget(removal.file.path);
    const entry = ledger?.files[target];
    const written = formatJson(removal.value, removal.file.layout);
    if (ledger === null || entry === undefined) {
      if (removal.changed) await writeTextFile(removal.file.path, written);
      actions.push(removal.changed ? "written" : "unchanged");
      continue;
    }
    const owners = entry.owners.filter((o) => o !== removal.owner);
    if (owners.length > 0) {
      // Others still have entries here: only ours go.
      if (removal.changed) await writeTextFile(removal.file.path, written);
      entry.owners = owners;
      entry.after = removal.changed ? written : entry.after;
      actions.push(removal.changed ? "written" : "unchanged");
      continue;
    }
    delete ledger.files[target];
    const current = await readText(target);
    const untouched = current === entry.after;
    const sameContent =
      canonical(removal.value) === canonical(parsedOrEmpty(entry.before)) &&
      parsedOrEmpty(entry.before) !== undefined;
    if (entry.beforeIsClean && (untouched || sameContent)) {
      if (entry.before === null) {
        if (current !== null) await unlink(target);
        freedDirs.push(...entry.createdDirs);
        actions.push(current !== null ? "removed" : "unchanged");
      } else {
        await writeTextFile(removal.file.path, entry.before);
        actions.push("restored");
      }
      continue;
    }
    if (removal.changed) await writeTextFile(removal.file.path, written);
    actions.push(removal.changed ? "written" : "unchanged");
  }
  if (ledger !== null) {
    if (Object.keys(ledger.files).length === 0) {
      await unlink(ledgerPath).catch(() => undefined);
      freedDirs.push(...ledger.createdDirs);
    } else {
      await writeTextFile(ledgerPath, formatJson(ledger, LEDGER_LAYOUT));
    }
  }
  await removeEmptyDirs(freedDirs);
  return actions;
}
