import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { type Dirent, statSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { dirname, isAbsolute, join, relative } from "node:path";
import { setImmediate as nextTurn } from "node:timers/promises";

/** Files re-checked without git on a stop; a larger tree always asks git. */
export const MAX_WITNESS_FILES = 20_000;
/** Entries visited by the walk outside a git repository. */
export const MAX_WALK_ENTRIES = 10_000;
/**
 * Stats done in one go before the event loop gets a turn. A stat costs about
 * 4 µs here (2-core VM); 256 of them hold the loop for about a millisecond.
 * Synchronous stats in slices, not `fs.promises.stat`: through libuv's thread
 * pool each stat cost about four times the CPU (measured: 2,000 stats took
 * 9 ms of CPU synchronously, 35 ms or more through the pool).
 */
export const STAT_SLICE = 256;
/** Folders the walk outside git never enters: dependencies and tool caches change without edits. */
const WALK_SKIP = new Set([
  // Our own store folders (`.claude/todo-continuation`, ...): every decision writes there.
  "todo-continuation",
  "node_modules",
  ".git",
  ".hg",
  ".svn",
  "target",
  "dist",
  "__pycache__",
  ".venv",
]);

/**
 * Everything needed to tell, without starting git, that the tree is as it
 * was: the files git sees (tracked and untracked, not ignored), their folders,
 * and git's own HEAD, ref and index files. Any difference in a stat sends the
 * caller to the full fingerprint.
 */
export interface Witness {
  root: string;
  paths: string[];
  statHash: string;
  /** How many of `paths` (at the end) are git's own files, not the tree's. */
  own?: number;
}

export interface TreeSnapshot {
  /** git HEAD + `git status` + the changed files' sizes and times; or the bounded walk's hash. */
  fingerprint: string;
  kind: "git" | "walk";
  /** Null outside git or above MAX_WITNESS_FILES: every stop computes the fingerprint. */
  witness: Witness | null;
}

function git(cwd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      "git",
      ["--no-optional-locks", ...args],
      { cwd, encoding: "utf8", maxBuffer: 256 * 1024 * 1024 },
      (error, stdout) => (error ? reject(error) : resolve(stdout)),
    );
  });
}

function statKey(path: string): string {
  const s = statSync(path, { throwIfNoEntry: false });
  return s === undefined ? "-" : `${s.size}:${s.mtimeMs}:${s.ctimeMs}:${s.ino}`;
}

/** `statKey` of every path (joined to `root`), giving the event loop a turn every STAT_SLICE stats. */
async function statKeys(root: string, paths: readonly string[]): Promise<string[]> {
  const keys: string[] = new Array(paths.length);
  const prefix = root.endsWith("/") ? root : `${root}/`;
  for (let i = 0; i < paths.length; i++) {
    if (i > 0 && i % STAT_SLICE === 0) await nextTurn();
    const path = paths[i] as string;
    keys[i] = statKey(isAbsolute(path) ? path : `${prefix}${path}`);
  }
  return keys;
}

/**
 * The folders of `paths`, sorted, each once ("." for the root). The root is
 * always one: in a tree where git sees no file yet, a new file or folder at
 * the top still changes a stat the witness holds.
 */
export function witnessDirs(paths: readonly string[]): string[] {
  const dirs = new Set<string>(["."]);
  for (const path of paths) dirs.add(dirname(path));
  return [...dirs].sort();
}

/** The stats a witness covers, hashed in a fixed order (one hash update: many small ones cost more). */
async function hashStats(root: string, paths: readonly string[]): Promise<string> {
  const dirs = witnessDirs(paths);
  const keys = await statKeys(root, paths.concat(dirs));
  const parts: string[] = new Array(keys.length * 2);
  const all = paths.length;
  for (let i = 0; i < keys.length; i++) {
    parts[2 * i] = i < all ? (paths[i] as string) : (dirs[i - all] as string);
    parts[2 * i + 1] = keys[i] as string;
  }
  return createHash("sha256").update(parts.join("\0")).digest("hex");
}

/** True when every stat the witness covers is as it was (no git started). */
export async function witnessHolds(witness: Witness): Promise<boolean> {
  return (await hashStats(witness.root, witness.paths)) === witness.statHash;
}

/** Porcelain v2 -z records: the path of each changed or untracked entry. */
function statusPaths(status: string): string[] {
  // Ordinary "1 ..." and "u ..." end with the path, renames "2 ..." are
  // followed by the original path, "?" is untracked.
  const paths: string[] = [];
  const records = status.split("\0");
  for (let i = 0; i < records.length; i++) {
    const record = records[i] ?? "";
    if (record === "" || record.startsWith("#")) continue;
    const fields = record.split(" ");
    const kind = fields[0];
    const pathFields = kind === "1" ? 8 : kind === "2" ? 9 : kind === "u" ? 10 : 1;
    paths.push(fields.slice(pathFields).join(" "));
    if (kind === "2") i += 1;
  }
  return paths;
}

async function gitSnapshot(cwd: string): Promise<TreeSnapshot | null> {
  let gitDir: string;
  let top: string;
  try {
    const where = (await git(cwd, ["rev-parse", "--show-toplevel", "--absolute-git-dir"])).split(
      "\n",
    );
    top = where[0] ?? "";
    gitDir = where[1] ?? "";
    if (top === "" || gitDir === "") return null;
  } catch {
    return null;
  }
  // The witness's file list first, its stats before and after `git status`:
  // the witness is kept only when nothing moved while git looked, and when
  // every path git reports is in the list (a file created in between is not
  // silently left out of later stat checks).
  const listed = (await git(top, ["ls-files", "-z", "--cached", "--others", "--exclude-standard"]))
    .split("\0")
    .filter((p) => p !== "");
  let paths: string[] | null = null;
  let own = 0;
  let before = "";
  if (listed.length <= MAX_WITNESS_FILES) {
    // git's own state: HEAD, the ref it names, packed refs and the index.
    const head = join(gitDir, "HEAD");
    const ref = /^ref: (.+)$/m.exec(await readFile(head, "utf8").catch(() => ""))?.[1];
    const gitFiles = [head, join(gitDir, "index"), join(gitDir, "packed-refs")];
    if (ref !== undefined) gitFiles.push(join(gitDir, ref));
    const ownPaths = gitFiles.map((p) => relative(top, p));
    own = ownPaths.length;
    paths = [...new Set(listed)].concat(ownPaths);
    before = await hashStats(top, paths);
  }
  let status: string;
  try {
    status = await git(top, [
      "status",
      "--porcelain=v2",
      "-z",
      "--branch",
      "--untracked-files=all",
    ]);
  } catch {
    return null;
  }
  const changed = statusPaths(status);
  const changedKeys = await statKeys(top, changed);
  const hash = createHash("sha256").update("git\0").update(status);
  for (let i = 0; i < changed.length; i++) {
    hash
      .update(changed[i] as string)
      .update("\0")
      .update(changedKeys[i] as string);
  }
  const fingerprint = hash.digest("hex");
  let witness: Witness | null = null;
  if (paths !== null) {
    const inList = new Set(listed);
    const after = await hashStats(top, paths);
    if (after === before && changed.every((p) => inList.has(p))) {
      witness = { root: top, paths, statHash: after, own };
    }
  }
  return { fingerprint, kind: "git", witness };
}

/** Outside git: a bounded walk, skipping dependency and cache folders. */
async function walkSnapshot(cwd: string): Promise<TreeSnapshot> {
  const lines: string[] = [];
  const files: string[] = [];
  let seen = 0;
  let truncated = false;
  const stack = [""];
  while (stack.length > 0 && seen < MAX_WALK_ENTRIES) {
    const rel = stack.pop() as string;
    let entries: Dirent[];
    try {
      entries = await readdir(join(cwd, rel), { withFileTypes: true });
    } catch {
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (seen >= MAX_WALK_ENTRIES) {
        truncated = true;
        break;
      }
      seen += 1;
      const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!WALK_SKIP.has(entry.name)) stack.push(path);
        lines.push(`${path}/\n`);
      } else {
        lines.push(path);
        files.push(path);
      }
    }
  }
  const keys = await statKeys(cwd, files);
  const hash = createHash("sha256").update("walk\0");
  let k = 0;
  for (const line of lines) {
    if (line.endsWith("/\n")) hash.update(line);
    else hash.update(`${line}\0${keys[k++] as string}\n`);
  }
  if (truncated) hash.update("\0truncated");
  return { fingerprint: hash.digest("hex"), kind: "walk", witness: null };
}

/** The working tree's fingerprint (and a witness for the fast check), in git or out. */
export async function treeSnapshot(cwd: string): Promise<TreeSnapshot> {
  return (await gitSnapshot(cwd)) ?? walkSnapshot(cwd);
}
