import { createRequire } from "node:module";
import { join } from "node:path";
import { randomHex } from "../../core/hash/random-hex.js";

/**
 * Files a hook keeps between its processes in the user's own cache folder
 * (`$XDG_CACHE_HOME` or `~/.cache`, under `todo-continuation/`): V8's code
 * cache, what a scan of a host's log found. A hook trusts them only as far as
 * it trusts the user's home: a file or folder another user could write is
 * never read, and a file is always written whole (a temporary file renamed
 * over it).
 */

// `node:fs` through require: an ES module import of it builds its whole namespace, which loads
// the stream modules a hook never uses.
const fs = createRequire(import.meta.url)("node:fs") as typeof import("node:fs");

/** `todo-continuation/<name>` in the user's cache folder, or null when there is none to use. */
export function privateCacheDir(
  env: Record<string, string | undefined>,
  name: string,
): string | null {
  const xdg = env.XDG_CACHE_HOME?.trim();
  if (xdg) return join(xdg, "todo-continuation", name);
  const home = env.HOME?.trim();
  return home ? join(home, ".cache", "todo-continuation", name) : null;
}

/** True when `stat` is owned by this user and nobody else may write to it. */
function ownedAndPrivate(stat: import("node:fs").Stats): boolean {
  const uid = process.getuid?.();
  return (uid === undefined || stat.uid === uid) && (stat.mode & 0o022) === 0;
}

/** The bytes of `folder/name`, when both are this user's and nobody else may write them. */
export function readPrivateFile(folder: string, name: string): Buffer | undefined {
  let fd: number;
  try {
    fd = fs.openSync(join(folder, name), fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile() || !ownedAndPrivate(stat)) return undefined;
    const info = fs.lstatSync(folder);
    if (!info.isDirectory() || !ownedAndPrivate(info)) return undefined;
    return fs.readFileSync(fd);
  } catch {
    return undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Writes `data` to `folder/name` whole, making the folder (0700) when it is missing; nothing is
 * written into a folder another user could write. `stale(other)` names the folder's other files to
 * remove once the write is done. Throws what the file system throws.
 */
export function writePrivateFile(
  folder: string,
  name: string,
  data: Uint8Array | string,
  stale?: (other: string) => boolean,
): void {
  fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
  const info = fs.lstatSync(folder);
  if (!info.isDirectory() || !ownedAndPrivate(info)) return;
  // The pid and a random tag: a long-lived process (the resident hook server) writes many times.
  const temporary = join(folder, `.${name}.${process.pid}-${randomHex(4)}.tmp`);
  try {
    fs.writeFileSync(temporary, data, { mode: 0o600, flag: "wx" });
    fs.renameSync(temporary, join(folder, name));
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  }
  if (stale === undefined) return;
  for (const other of fs.readdirSync(folder)) {
    if (other !== name && !other.startsWith(".") && stale(other)) {
      fs.rmSync(join(folder, other), { force: true });
    }
  }
}
