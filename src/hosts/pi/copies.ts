import type { PiExtensionApi } from "./pi-api.js";

/**
 * Two copies of this package listed in pi's settings (the project's `node_modules` one in
 * `.pi/settings.json`, a global one in the user's) are two extensions to pi: both would register
 * `todo_write`, and pi (0.73.1 and 1.3.0, measured) then refuses to start at all ("Tool
 * "todo_write" conflicts with ..."). So only the first copy of a load acts; a later one registers
 * nothing. The copies of one load find each other on the event bus pi gives the extensions of a
 * load (`pi.events`, whose `emit` calls every handler before it returns): a copy asks on
 * {@link CHANNEL}, and an acting copy answers while its load is live: until its session shuts
 * down, and never once pi has replaced its load (pi 1.x: its API then throws on use).
 */

/** The bus channel copies of ours ask on; the same in every version that asks. */
export const CHANNEL = "todo-continuation:pi-copy";

/** What a copy sends: an acting copy sets `acting`. */
interface CopyProbe {
  acting: boolean;
}

const isProbe = (data: unknown): data is CopyProbe =>
  typeof data === "object" && data !== null && "acting" in data;

/** Whether `pi`'s load is still the current one: a replaced one throws on any use. */
function live(pi: PiExtensionApi): boolean {
  try {
    pi.getFlag?.(`${CHANNEL}:live`);
    return true;
  } catch {
    return false;
  }
}

/** The acting copy of a load; `leave` when its session shuts down (before pi reloads). */
export interface ActingCopy {
  leave(): void;
}

/**
 * This copy as the one that acts for its load, or null when another copy of ours in the same load
 * does. The acting copy answers later copies' questions until it leaves: pi 0.73 keeps the bus
 * and the old load's handlers across `/reload` (it emits `session_shutdown` first), so a copy
 * that did not leave would keep the reloaded one from acting. A pi without a bus: every copy acts.
 */
export function actingCopy(pi: PiExtensionApi): ActingCopy | null {
  const bus = pi.events;
  if (bus === undefined) return { leave() {} };
  const probe: CopyProbe = { acting: false };
  bus.emit(CHANNEL, probe);
  if (probe.acting) return null;
  let answering = true;
  bus.on(CHANNEL, (data) => {
    if (answering && isProbe(data) && live(pi)) data.acting = true;
  });
  return {
    leave() {
      answering = false;
    },
  };
}
