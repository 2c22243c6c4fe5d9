import {
  closeSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readlinkSync,
  rmSync,
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
 * name removes it. Codex CLI runs both copies too, with payloads that hold no time: there each
 * command names the settings it is in (`--target`) and `claimCopy` tells twins from repeats.
 * The file calls are synchronous (see nudge-note.ts).
 */

/** One folder per session under the store's folder: `<host>-events/<hash of the session>`. */
function sessionFolder(dir: string, host: string, sessionId: string): string {
  return join(dir, `${host}-events`, sha256Hex(sessionId).slice(0, 32));
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
    rmSync(path, { force: true });
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
    mkdirSync(folder, { recursive: true });
    closeSync(openSync(join(folder, name), "wx"));
  } catch (error) {
    // Only a claim already there says another run has the event; anything else decides as before.
    return (error as NodeJS.ErrnoException).code !== "EEXIST";
  }
  dropOthers(folder, event, name);
  return true;
}

/** How long a copy's claim waits for its twin before the next event of its name may remove it. */
const CLAIM_KEPT_MS = 60_000;

/** Which of the host's settings a hook command was installed in (`hook <host> --target`). */
export type InstallTarget = "user" | "project";

/**
 * For a host that runs ours from its user and its project settings at once, with one payload
 * and no time in it (Codex CLI starts both copies together): whether this copy, installed in
 * `target`, handles the event whose stdin was `input`. The first copy makes a claim named by
 * the event and a hash of its input, a symlink whose text is its target (made whole or not at
 * all, so a twin never reads half of one). A copy that finds the other target's claim is that
 * copy's twin: it takes the claim away (the pair is done) and does nothing. A copy that finds
 * its own target's claim is looking at a new event with the same input as its last one (a
 * second identical stop of a turn, with ours installed once): it handles it. Any other trouble
 * handles the event, as before there were claims.
 */
export function claimCopy(
  dir: string,
  host: string,
  sessionId: string,
  event: string,
  input: string,
  target: InstallTarget,
): boolean {
  const folder = sessionFolder(dir, host, sessionId);
  const name = `${event}-${sha256Hex(input).slice(0, 32)}`;
  const path = join(folder, name);
  try {
    mkdirSync(folder, { recursive: true });
    symlinkSync(target, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") return true;
    let holder: string;
    try {
      holder = readlinkSync(path);
    } catch {
      return true;
    }
    if (holder === target) return true;
    try {
      unlinkSync(path);
    } catch {
      // Its pair is done either way.
    }
    return false;
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
