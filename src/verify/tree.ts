import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { type Dirent, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, relative } from "node:path";

/** Files re-checked without git on a stop; a larger tree always asks git. */
export const MAX_WITNESS_FILES = 20_000;
/** Entries visited by the walk outside a git repository. */
export const MAX_WALK_ENTRIES = 10_000;
/** Folders the walk outside git never enters: dependencies and tool caches change without edits. */
const WALK_SKIP = new Set([
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
}

export interface TreeSnapshot {
  /** git HEAD + `git status` + the changed files' sizes and times; or the bounded walk's hash. */
  fingerprint: string;
  kind: "git" | "walk";
  /** Null outside git or above MAX_WITNESS_FILES: every stop computes the fingerprint. */
  witness: Witness | null;
}

function git(cwd: string, args: string[]): string {
  return execFileSync("git", ["--no-optional-locks", ...args], {
    cwd,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
    maxBuffer: 256 * 1024 * 1024,
  });
}

function statKey(path: string): string {
  const s = statSync(path, { throwIfNoEntry: false });
  return s === undefined ? "-" : `${s.size}:${s.mtimeMs}:${s.ctimeMs}:${s.ino}`;
}

/** The stats a witness covers, hashed in a fixed order (one hash update: many small ones cost more). */
function hashStats(root: string, paths: readonly string[]): string {
  const parts: string[] = [];
  const dirs = new Set<string>();
  for (const path of paths) {
    parts.push(path, statKey(join(root, path)));
    dirs.add(dirname(path));
  }
  for (const dir of [...dirs].sort()) parts.push(dir, statKey(join(root, dir)));
  return createHash("sha256").update(parts.join("\0")).digest("hex");
}

/** True when every stat the witness covers is as it was (no git started). */
export function witnessHolds(witness: Witness): boolean {
  return hashStats(witness.root, witness.paths) === witness.statHash;
}

function gitSnapshot(cwd: string): TreeSnapshot | null {
  let status: string;
  let gitDir: string;
  let top: string;
  try {
    const where = git(cwd, ["rev-parse", "--show-toplevel", "--absolute-git-dir"]).split("\n");
    top = where[0] ?? "";
    gitDir = where[1] ?? "";
    if (top === "" || gitDir === "") return null;
    status = git(top, ["status", "--porcelain=v2", "-z", "--branch", "--untracked-files=all"]);
  } catch {
    return null;
  }
  const hash = createHash("sha256").update("git\0").update(status);
  // Paths in porcelain v2 -z: ordinary "1 ..." and "u ..." end with the path,
  // renames "2 ..." are followed by the original path, "?" is untracked.
  const records = status.split("\0");
  for (let i = 0; i < records.length; i++) {
    const record = records[i] ?? "";
    if (record === "" || record.startsWith("#")) continue;
    const fields = record.split(" ");
    const kind = fields[0];
    const pathFields = kind === "1" ? 8 : kind === "2" ? 9 : kind === "u" ? 10 : 1;
    const path = fields.slice(pathFields).join(" ");
    if (kind === "2") i += 1;
    hash
      .update(path)
      .update("\0")
      .update(statKey(join(top, path)));
  }
  const fingerprint = hash.digest("hex");
  let witness: Witness | null = null;
  const listed = git(top, ["ls-files", "-z", "--cached", "--others", "--exclude-standard"])
    .split("\0")
    .filter((p) => p !== "");
  if (listed.length <= MAX_WITNESS_FILES) {
    // git's own state: HEAD, the ref it names, packed refs and the index.
    const head = join(gitDir, "HEAD");
    const ref = /^ref: (.+)$/m.exec(readFileSync(head, "utf8"))?.[1];
    const own = [head, join(gitDir, "index"), join(gitDir, "packed-refs")];
    if (ref !== undefined) own.push(join(gitDir, ref));
    const paths = [...new Set(listed)].concat(
      own.map((p) => (isAbsolute(p) ? relative(top, p) : p)),
    );
    witness = { root: top, paths, statHash: hashStats(top, paths) };
  }
  return { fingerprint, kind: "git", witness };
}

/** Outside git: a bounded walk, skipping dependency and cache folders. */
function walkSnapshot(cwd: string): TreeSnapshot {
  const hash = createHash("sha256").update("walk\0");
  let seen = 0;
  const stack = [""];
  while (stack.length > 0 && seen < MAX_WALK_ENTRIES) {
    const rel = stack.pop() as string;
    let entries: Dirent[];
    try {
      entries = readdirSync(join(cwd, rel), { withFileTypes: true });
    } catch {
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (seen >= MAX_WALK_ENTRIES) {
        hash.update("\0truncated");
        break;
      }
      seen += 1;
      const path = rel === "" ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!WALK_SKIP.has(entry.name)) stack.push(path);
        hash.update(`${path}/\n`);
      } else {
        hash
          .update(path)
          .update("\0")
          .update(statKey(join(cwd, path)))
          .update("\n");
      }
    }
  }
  return { fingerprint: hash.digest("hex"), kind: "walk", witness: null };
}

/** The working tree's fingerprint (and a witness for the fast check), in git or out. */
export function treeSnapshot(cwd: string): TreeSnapshot {
  return gitSnapshot(cwd) ?? walkSnapshot(cwd);
}
