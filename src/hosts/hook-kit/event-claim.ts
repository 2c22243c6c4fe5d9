import {
  closeSync,
  lstatSync,
  lutimesSync,
  mkdirSync,
  openSync,
  readdirSync,
  readlinkSync,
  symlinkSync,
  unlinkSync,
} from "node:fs";
import { join } from "node:path";
import { sha256Hex } from "../../core/hash/sha256.js";

/**
 * A host that runs every hooks file it finds (Copilot CLI runs its user folder's and the
 * repository's) runs our hook twice for one event when ours is in both, each run with the same
 * payload. The first run to claim the event handles it; another run of that same event (same
 * session, event name and the payload's timestamp) does nothing: deciding a stop twice would end
 * its episode (`stagnation`), and a prompt echo seen twice would count once as the user's.
 * A claim is an empty file made exclusively in a folder per session; the next event of the same
 * name removes it. Other hosts' payloads hold no time: there `claimCopy` tells a twin (another
 * installed command) from a repeat (the same command's next event, word for word the same).
 * The file calls are synchronous: each is one small call on a local disk, and the promise
 * versions' round trips through libuv's thread pool cost an event more than the calls themselves.
 */

/** One folder per session under the store's folder: `<host>-events/<hash of the session>`. */
function sessionFolder(dir: string, host: string, sessionId: string): string {
  return join(dir, `${host}-events`, sha256Hex(sessionId).slice(0, 32));
}

/**
 * A symlink at `path` in `folder`, the folder made only when missing: every event of a session
 * after its first finds it, and a `mkdir` that finds it costs a call and a `stat`.
 */
function symlinkOrMkdir(text: string, folder: string, path: string): void {
  try {
    symlinkSync(text, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    mkdirSync(folder, { recursive: true });
    symlinkSync(text, path);
  }
}

/**
 * Removes the claims of `event` other than `keep` (the events before it), or only those older
 * than `minAgeMs`, when given; best effort.
 */
function dropOthers(folder: string, event: string, keep: string, minAgeMs?: number): void {
  const before = minAgeMs === undefined ? null : Date.now() - minAgeMs;
  for (const other of readdirSync(folder)) {
    if (other === keep || !other.startsWith(`${event}-`)) continue;
    const path = join(folder, other);
    if (before !== null && (lstatSync(path, { throwIfNoEntry: false })?.mtimeMs ?? 0) > before)
      continue;
    // Not `rmSync`: its checks cost more than the unlink.
    try {
      unlinkSync(path);
    } catch {
      // Gone already (its twin's sweep), or left for the next one.
    }
  }
}

/** Whether this run is the first of its event; true when no claim can be made at all. */
export function claimEvent(
  dir: string,
  host: string,
  sessionId: string,
  event: string,
  timestamp: number,
): boolean {
  const folder = sessionFolder(dir, host, sessionId);
  const name = `${event}-${timestamp}`;
  try {
    const path = join(folder, name);
    let fd: number;
    try {
      fd = openSync(path, "wx");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      mkdirSync(folder, { recursive: true });
      fd = openSync(path, "wx");
    }
    closeSync(fd);
  } catch (error) {
    // Only a claim already there says another run has the event; anything else decides as before.
    return (error as NodeJS.ErrnoException).code !== "EEXIST";
  }
  dropOthers(folder, event, name);
  return true;
}

/** How long a copy's claim waits for its twin before the next event of its name may remove it. */
const CLAIM_KEPT_MS = 60_000;

/**
 * How long a twin may run after the first of its pair: the host starts both at once, and a
 * copy's claim comes before anything slow (a project's check). A claim of another command older
 * than this is no twin's but a command's that is not installed beside this one any more (ours
 * installed again with other options, with the same input as an event of before).
 */
const TWIN_WINDOW_MS = 30_000;

/** What the claim at `path` is to the run of `copy`: its own, a twin's, or another's of long ago. */
function otherClaim(path: string, copy: string): "own" | "twin" | "stale" {
  let holder: string;
  let made: number;
  try {
    holder = readlinkSync(path);
    if (holder === copy) return "own";
    made = lstatSync(path).mtimeMs;
  } catch {
    return "own"; // Gone meanwhile, or unreadable: handled, as before there were claims.
  }
  return Date.now() - made > TWIN_WINDOW_MS ? "stale" : "twin";
}

/** Puts `copy`'s claim in place of a stale one; best effort (the event is handled either way). */
function replaceClaim(path: string, copy: string): void {
  try {
    unlinkSync(path);
    symlinkSync(copy, path);
  } catch {
    // Another run's claim took its place: its twin, if any, sees that one.
  }
}

/** Which of the host's settings a hook command was installed in (`hook <host> --target`). */
export type InstallTarget = "user" | "project";

/**
 * The build folder of the running copy of this package (`.../dist/`), as its code names itself:
 * a hook bundle (`dist/hook/<host>.cjs`, run by the hook process or the resident server) and the
 * separate modules (`dist/hosts/...`) name the same one, so a command keeps one identity whichever
 * way it runs.
 */
export function packageCopy(): string {
  const url = import.meta.url;
  const at = url.lastIndexOf("/dist/");
  return at === -1 ? url : url.slice(0, at + "/dist/".length);
}

/**
 * Which installed command this run is: the package copy it runs from and its arguments (which
 * hold `--target` where an install writes one). A host that runs two commands for one event runs
 * two identities; a host never runs one command twice (Claude Code, Gemini CLI and Qwen Code drop
 * a repeated command; Codex CLI, which does not, gets a `--target` in each).
 */
export function copyIdentity(args: readonly string[], copy: string = packageCopy()): string {
  return sha256Hex([copy, ...args].join("\0")).slice(0, 32);
}

/** Where {@link claimCopy} puts the claim of an event: its session's folder and the claim's name. */
function copyClaimPath(dir: string, host: string, sessionId: string, event: string, input: string) {
  const folder = sessionFolder(dir, host, sessionId);
  const name = `${event}-${sha256Hex(input).slice(0, 32)}`;
  return { folder, name, path: join(folder, name) };
}

/**
 * An event handled for longer than this (a project's check run at a stop) renews its claim as it
 * ends. A host that runs a group's hooks one after another (Gemini CLI and Qwen Code, when any of
 * an event's groups is `sequential`) starts the twin only then: it must find a claim younger than
 * {@link TWIN_WINDOW_MS}, not one as old as the check.
 */
export const CLAIM_RENEWED_AFTER_MS = 10_000;

/** Renews the claim {@link claimCopy} made for an event now ending; best effort. */
export function renewCopyClaim(
  dir: string,
  host: string,
  sessionId: string,
  event: string,
  input: string,
): void {
  const { path } = copyClaimPath(dir, host, sessionId, event, input);
  const now = new Date();
  try {
    lutimesSync(path, now, now);
  } catch {
    // Taken away by a twin that ran beside this run: nothing to renew.
  }
}

/**
 * For a host that may run ours twice for one event, with one payload and no time in it: ours
 * in the user's and the project's settings (Codex CLI starts both at once), or two copies of
 * the package (a global one and the project's) whose commands the host does not see as one.
 * Whether this run, of the command `copy` names ({@link copyIdentity}), handles the event whose
 * stdin was `input`. The first run makes a claim named by the event and a hash of its input, a
 * symlink whose text is its command's identity (made whole or not at all, so a twin never reads
 * half of one). A run that finds another command's claim, made within {@link TWIN_WINDOW_MS}, is
 * that command's twin: it takes the claim away (the pair is done) and does nothing; an older one
 * it replaces with its own, and handles the event. A run that finds its own command's claim is
 * looking at a new event with the same input as its last one (a second identical stop of a turn,
 * with ours installed once): it handles it. Any other trouble handles the event, as before there
 * were claims.
 */
export function claimCopy(
  dir: string,
  host: string,
  sessionId: string,
  event: string,
  input: string,
  copy: string,
): boolean {
  const { folder, name, path } = copyClaimPath(dir, host, sessionId, event, input);
  try {
    symlinkOrMkdir(copy, folder, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") return true;
    const found = otherClaim(path, copy);
    if (found === "twin") {
      try {
        unlinkSync(path);
      } catch {
        // Its pair is done either way.
      }
      return false;
    }
    if (found === "stale") replaceClaim(path, copy);
    return true;
  }
  // Only claims a minute old: events of one name may run side by side (two tool calls at once),
  // and a younger claim may still wait for its twin.
  try {
    dropOthers(folder, event, name, CLAIM_KEPT_MS);
  } catch {
    // Left for the next event's sweep.
  }
  return true;
}
