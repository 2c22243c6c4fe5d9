import { closeSync, mkdirSync, openSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { sha256Hex } from "../../core/hash/sha256.js";

/**
 * A host that runs every hooks file it finds (Copilot CLI runs its user folder's and the
 * repository's) runs our hook twice for one event when ours is in both, each run with the same
 * payload. The first run to claim the event handles it; another run of that same event (same
 * session, event name and the payload's timestamp) does nothing: deciding a stop twice would end
 * its episode (`stagnation`), and a prompt echo seen twice would count once as the user's.
 * A claim is an empty file made exclusively in a folder per session; the next event of the same
 * name removes it. The file calls are synchronous (see nudge-note.ts).
 */

/** Whether this run is the first of its event; true when no claim can be made at all. */
export function claimEvent(
  dir: string,
  host: string,
  sessionId: string,
  event: string,
  timestamp: number,
): boolean {
  const folder = join(dir, `${host}-events`, sha256Hex(sessionId).slice(0, 32));
  const name = `${event}-${timestamp}`;
  try {
    mkdirSync(folder, { recursive: true });
    closeSync(openSync(join(folder, name), "wx"));
  } catch (error) {
    // Only a claim already there says another run has the event; anything else decides as before.
    return (error as NodeJS.ErrnoException).code !== "EEXIST";
  }
  for (const other of readdirSync(folder)) {
    if (other !== name && other.startsWith(`${event}-`))
      rmSync(join(folder, other), { force: true });
  }
  return true;
}
