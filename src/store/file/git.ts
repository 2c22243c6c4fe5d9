import { execFile } from "node:child_process";
import { mkdir, readFile, realpath, stat, unlink } from "node:fs/promises";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { promisify } from "node:util";
import { replaceFile } from "./atomic.js";

const run = promisify(execFile);

/** Files that live only for the length of one write or one lock; never committed. */
export const TRANSIENT_PATTERNS = ["*.lock", "*.steal", "*.tmp", "*.wait"] as const;

/** The comment line `ensureGitignored` writes above its pattern. */
const IGNORE_COMMENT = "# todo-continuation lists (system-managed; committed by snapshots)";

/**
 * The comment also records what the file was when the lines went in, when
 * taking them out alone would not give it back: an empty file stays, and a
 * final newline the lines needed goes again. The plain comment: the file did
 * not exist (it is removed when nothing else is left) or ended in a newline.
 */
const WAS_EMPTY = `${IGNORE_COMMENT} [the file was empty]`;
const NO_FINAL_NEWLINE = `${IGNORE_COMMENT} [the file had no final newline]`;

/** Default message of a snapshot commit. */
export const DEFAULT_SNAPSHOT_MESSAGE = "todo-continuation snapshot";

/** `path` relative to `base` with `/` separators, or null when it is not inside `base`. */
function inside(base: string, path: string): string | null {
  const rel = relative(resolve(base), resolve(path));
  if (rel === "" || rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return null;
  return rel.split(sep).join("/");
}

function ignoreLines(text: string): Set<string> {
  return new Set(
    text
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter((line) => line !== "" && !line.startsWith("#")),
  );
}

/**
 * Adds the todo folder to `<projectDir>/.gitignore` so nobody stages it by
 * hand (snapshots force-add it). Idempotent: nothing changes when an
 * equivalent pattern is already there. Returns true when the file changed;
 * false also when the folder is not inside the project.
 */
export async function ensureGitignored(projectDir: string, todoDir: string): Promise<boolean> {
  const rel = inside(projectDir, todoDir);
  if (rel === null) return false;
  const path = join(projectDir, ".gitignore");
  let text = "";
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const present = ignoreLines(text);
  const variants = [rel, `${rel}/`, `/${rel}`, `/${rel}/`, `${rel}/**`, `/${rel}/**`];
  if (variants.some((v) => present.has(v))) return false;
  const existed = await stat(path).then(
    () => true,
    () => false,
  );
  const separator = text === "" || text.endsWith("\n") ? "" : "\n";
  const comment =
    separator !== "" ? NO_FINAL_NEWLINE : existed && text === "" ? WAS_EMPTY : IGNORE_COMMENT;
  const next = `${text}${separator}${comment}\n/${rel}/\n`;
  // Replace, never truncate: a crash mid-write must not lose the existing rules.
  const mode = ((await stat(path).catch(() => null))?.mode ?? 0o644) & 0o7777;
  replaceFile(path, Buffer.from(next), String(process.pid), mode);
  return true;
}

/**
 * Takes out of `<projectDir>/.gitignore` exactly the two lines
 * `ensureGitignored` adds (its comment and the folder's pattern), leaving
 * every other line, so an untouched file gets its bytes back: a final newline
 * the lines needed goes too, a file they created is deleted, and a file that
 * was empty stays, empty. Returns true when the file changed.
 */
export async function removeGitignored(projectDir: string, todoDir: string): Promise<boolean> {
  const rel = inside(projectDir, todoDir);
  if (rel === null) return false;
  const path = join(projectDir, ".gitignore");
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
  let found: { at: number; comment: string; block: string } | null = null;
  for (const comment of [IGNORE_COMMENT, WAS_EMPTY, NO_FINAL_NEWLINE]) {
    const block = `${comment}\n/${rel}/\n`;
    const after = text.lastIndexOf(`\n${block}`);
    const at = text.startsWith(block) ? 0 : after < 0 ? -1 : after + 1;
    if (at >= 0) {
      found = { at, comment, block };
      break;
    }
  }
  if (found === null) return false;
  const { at, comment, block } = found;
  const last = at + block.length === text.length;
  // The newline the lines needed before them goes too, unless something was written after them.
  const from = comment === NO_FINAL_NEWLINE && last && at > 0 ? at - 1 : at;
  const next = text.slice(0, from) + text.slice(at + block.length);
  if (next === "" && comment !== WAS_EMPTY) {
    await unlink(path);
    return true;
  }
  const mode = ((await stat(path).catch(() => null))?.mode ?? 0o644) & 0o7777;
  replaceFile(path, Buffer.from(next), String(process.pid), mode);
  return true;
}

export interface SnapshotResult {
  /** Top folder of the git work tree the todo folder was committed in. */
  repository: string;
  /** The todo folder relative to the repository, `/`-separated. */
  path: string;
  /** True when the store root was made a repository for this snapshot. */
  initialized: boolean;
  /** Hash of the new commit, or null when nothing changed since the last snapshot. */
  commit: string | null;
}

async function git(cwd: string, args: string[]): Promise<{ ok: boolean; stdout: string }> {
  try {
    const { stdout } = await run("git", args, { cwd, maxBuffer: 16 * 1024 * 1024 });
    return { ok: true, stdout: stdout.trim() };
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { stderr?: string };
    if (e.code === "ENOENT") throw new Error("git is not installed or not on PATH");
    return { ok: false, stdout: (e.stderr ?? e.message).trim() };
  }
}

async function mustGit(cwd: string, args: string[]): Promise<string> {
  const result = await git(cwd, args);
  if (!result.ok) throw new Error(`git ${args.join(" ")} failed in ${cwd}: ${result.stdout}`);
  return result.stdout;
}

/**
 * Commits `<root>/todo` as it is now, on demand: force-added (it is normally
 * git-ignored), locks and temporaries left out, and only that folder in the
 * commit, so whatever else is staged stays staged. Outside any git work tree
 * the store root becomes a repository of its own.
 */
export async function snapshotTodos(root: string, message?: string): Promise<SnapshotResult> {
  const text = message ?? DEFAULT_SNAPSHOT_MESSAGE;
  if (text.trim() === "") throw new TypeError("snapshotTodos: message must not be empty");
  const todoDir = join(resolve(root), "todo");
  await mkdir(todoDir, { recursive: true });
  let initialized = false;
  let top = await git(todoDir, ["rev-parse", "--show-toplevel"]);
  if (!top.ok) {
    await mustGit(root, ["init", "--quiet"]);
    initialized = true;
    top = { ok: true, stdout: await mustGit(root, ["rev-parse", "--show-toplevel"]) };
  }
  const repository = top.stdout;
  const path = inside(await realpath(repository), await realpath(todoDir)) ?? ".";
  const prefix = path === "." ? "" : `${path}/`;
  const excludes = TRANSIENT_PATTERNS.map((p) => `:(exclude,glob)${prefix}**/${p}`);
  await mustGit(repository, ["add", "--force", "--all", "--", path, ...excludes]);
  const unchanged = await git(repository, ["diff", "--cached", "--quiet", "--", path]);
  if (unchanged.ok) return { repository, path, initialized, commit: null };
  const identity = (await git(repository, ["config", "user.email"])).ok
    ? []
    : ["-c", "user.name=todo-continuation", "-c", "user.email=todo-continuation@localhost"];
  await mustGit(repository, [
    ...identity,
    "commit",
    "--quiet",
    "--no-verify",
    "-m",
    text,
    "--only",
    "--",
    path,
  ]);
  const commit = await mustGit(repository, ["rev-parse", "HEAD"]);
  return { repository, path, initialized, commit };
}
