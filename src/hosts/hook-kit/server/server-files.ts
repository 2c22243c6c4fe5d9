import { mkdirSync, readFileSync, statfsSync } from "node:fs";
import { folderProblem } from "../../../verify/private-folder.js";

/**
 * Where the resident hook server and its hooks meet: a folder only this user
 * can use, in memory (tmpfs or ramfs), since a question carries the event's
 * environment and that must never reach a disk. One server per node binary,
 * Node version and installed package (the folder of its hook bundles), so an
 * upgrade or a second checkout never answers for another. Paths are joined
 * as text (Linux only): a hook process's first `path.join` costs it 0.3 ms.
 */

/**
 * `TODO_CONTINUATION_HOOK_SERVER=0` runs every event in its own process; `require` never does
 * (an event the server does not answer fails open: for checks that the server answers).
 */
export const HOOK_SERVER_ENV = "TODO_CONTINUATION_HOOK_SERVER";
/** The folder for the server's files; default `$XDG_RUNTIME_DIR/todo-continuation`, else `/dev/shm`. */
export const RUNTIME_DIR_ENV = "TODO_CONTINUATION_RUNTIME_DIR";
/** How long a server nobody asked waits before it exits (milliseconds; read by the hook that starts it). */
export const SERVER_IDLE_ENV = "TODO_CONTINUATION_HOOK_SERVER_IDLE_MS";
/** Its default: a quarter of an hour. */
export const DEFAULT_IDLE_MS = 900_000;

/** The file names' version: a package that speaks another protocol never reads these files. */
const PROTOCOL = "hs1";

/** statfs magic numbers of the in-memory file systems. */
const TMPFS_MAGIC = 0x01021994;
const RAMFS_MAGIC = 0x858458f6;

/** The server's folder for `env`, or null when the server is not to be used at all. */
export function serverFolder(env: Record<string, string | undefined>): string | null {
  if (env[HOOK_SERVER_ENV] === "0" || process.platform !== "linux") return null;
  const own = env[RUNTIME_DIR_ENV];
  if (own?.startsWith("/")) return withoutSlash(own);
  const runtime = env.XDG_RUNTIME_DIR;
  if (runtime?.startsWith("/")) return `${withoutSlash(runtime)}/todo-continuation`;
  return `/dev/shm/todo-continuation-${process.getuid?.() ?? "user"}`;
}

function withoutSlash(path: string): string {
  return path.length > 1 && path.endsWith("/") ? withoutSlash(path.slice(0, -1)) : path;
}

/**
 * Why `folder` may not hold the server's files, or null when it may: it must be private and in
 * memory. A hook checks only the first (`privateFolderProblem`): a live server checked both.
 */
export function serverFolderProblem(folder: string, self = process.getuid?.()): string | null {
  return privateFolderProblem(folder, self) ?? inMemoryProblem(folder);
}

/** Why `folder` is not a real folder of this user's, closed to others, or null. */
export const privateFolderProblem = folderProblem;

/** Why `folder` is not on a file system in memory (tmpfs, ramfs), or null. */
export function inMemoryProblem(folder: string): string | null {
  let type: number;
  try {
    type = statfsSync(folder).type;
  } catch (error) {
    return `${folder}: ${String(error)}`;
  }
  if (type !== TMPFS_MAGIC && type !== RAMFS_MAGIC) return `${folder} is not in memory (tmpfs)`;
  return null;
}

/** Creates the folder (0700) when missing; the problem that forbids using it, or null. */
export function prepareServerFolder(folder: string): string | null {
  try {
    mkdirSync(folder, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") return `${folder}: ${String(error)}`;
  }
  return serverFolderProblem(folder);
}

/** FNV-1a over `text`, twice with different seeds: a 16-hex-digit name, not a secret. */
function nameHash(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193);
  }
  return (a >>> 0).toString(16).padStart(8, "0") + (b >>> 0).toString(16).padStart(8, "0");
}

export interface ServerFiles {
  folder: string;
  /** The folder of the hook bundles the server runs (the package's `dist/hook`). */
  hookDir: string;
  /** The start of every file name of this server's. */
  prefix: string;
  /** Created exclusively by the server: its process id. One server per key. */
  pid: string;
  /** Created exclusively by the hook that starts a server: two hooks racing start one. */
  start: string;
  /** The variables Node reads at start that the server is started with (part of its key). */
  nodeEnv: Record<string, string>;
}

/**
 * The variables Node reads at its own start (`NODE_OPTIONS`, `NODE_EXTRA_CA_CERTS`, ...): a server
 * runs with the hook's, so what a hook process would have been is what the server is.
 */
export function startVariables(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name in env) {
    // The first letter first: this runs in every hook process, over every variable.
    const first = name.charCodeAt(0);
    if (first !== 78 && first !== 85) continue;
    const value = env[name];
    if (value !== undefined && (name.startsWith("NODE_") || name.startsWith("UV_")))
      out[name] = value;
  }
  return out;
}

/** The files of the server that runs the bundles in `hookDir` with this node and these start variables. */
export function serverFiles(
  folder: string,
  hookDir: string,
  env: Record<string, string | undefined>,
): ServerFiles {
  const nodeEnv = startVariables(env);
  const start = Object.entries(nodeEnv)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, value]) => `${name}=${value}`)
    .join("\0");
  const key = nameHash(`${process.execPath}\0${process.version}\0${hookDir}\0${start}`);
  const prefix = `${PROTOCOL}-${key}`;
  const base = `${folder}/${prefix}`;
  return { folder, hookDir, prefix, pid: `${base}.pid`, start: `${base}.start`, nodeEnv };
}

/**
 * One event's files. The hook writes the draft and renames it to the
 * question; the server claims a question by renaming it (a rename only one
 * side can win: the hook withdraws by removing the question), then writes
 * its draft answer and renames it to the answer.
 */
export function exchangeFiles(files: ServerFiles, nonce: string) {
  const base = `${files.folder}/${files.prefix}`;
  return {
    draft: `${base}.t.${nonce}`,
    question: `${base}.q.${nonce}`,
    claimed: `${base}.c.${nonce}`,
    draftAnswer: `${base}.u.${nonce}`,
    answer: `${base}.a.${nonce}`,
  };
}

/** The nonce of a question file of `files`, or null for any other name. */
export function questionNonce(files: ServerFiles, name: string): string | null {
  const head = `${files.prefix}.q.`;
  if (!name.startsWith(head)) return null;
  const nonce = name.slice(head.length);
  return /^[0-9a-z-]{1,40}$/.test(nonce) ? nonce : null;
}

/** The script of the server process; its name is how a live server is told from a reused pid. */
export const SERVER_SCRIPT = "hook-server-main.js";

/** The pid the pid file names, or null when there is none (`read` reads a file's text). */
export function serverPid(
  files: ServerFiles,
  read: (path: string) => string = (path) => readFileSync(path, "utf8"),
): number | null {
  try {
    const pid = Number(read(files.pid).split("\n")[0]);
    return pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/** The pid in the pid file when it is a live server of ours (not a process that reused its id). */
export function liveServer(files: ServerFiles): number | null {
  const pid = serverPid(files);
  if (pid === null) return null;
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(SERVER_SCRIPT) ? pid : null;
  } catch {
    return null;
  }
}
