/**
 * The watcher's protocol (files in its folder): one request line, one answer line, nothing
 * else. The hook asks whether the tree changed since the watch it stamped
 * (`ask <stamp> <scope>`); the watcher answers `unchanged <id> <scope>`,
 * `changed <id> <scope>` (the watch now running, which the hook may stamp
 * when the scope is its own) or `unknown`. Nothing in a request is run,
 * opened or used as a path.
 */

/** A request or answer longer than this is refused (the longest valid one is under 200 bytes). */
export const MAX_LINE = 256;

const ID = /^[0-9a-f]{1,32}-[0-9]{1,15}$/;
const SCOPE = /^[0-9a-f]{64}$/;

export interface WatchRequest {
  /** The watch id the hook's cached result was stamped with; null: none. */
  stamp: string | null;
  /** The hash of the folders the hook's witness covers (`watchScope`). */
  scope: string;
}

export type WatchAnswer =
  | { state: "unchanged" | "changed"; id: string; scope: string }
  | { state: "unknown" };

export function formatRequest(request: WatchRequest): string {
  return `ask ${request.stamp ?? "-"} ${request.scope}\n`;
}

/** Null for anything but one well-formed request line. */
export function parseRequest(line: string): WatchRequest | null {
  if (line.length > MAX_LINE) return null;
  const parts = line.replace(/\n$/, "").split(" ");
  if (parts.length !== 3 || parts[0] !== "ask") return null;
  const [, stamp = "", scope = ""] = parts;
  if (!SCOPE.test(scope) || (stamp !== "-" && !ID.test(stamp))) return null;
  return { stamp: stamp === "-" ? null : stamp, scope };
}

export function formatAnswer(answer: WatchAnswer): string {
  return answer.state === "unknown"
    ? "unknown\n"
    : `${answer.state} ${answer.id} ${answer.scope}\n`;
}

/** Null for anything but one well-formed answer line: the caller then takes the slow path. */
export function parseAnswer(line: string): WatchAnswer | null {
  if (line.length > MAX_LINE || !line.endsWith("\n")) return null;
  const body = line.slice(0, -1);
  if (body === "unknown") return { state: "unknown" };
  const parts = body.split(" ");
  if (parts.length !== 3) return null;
  const [state, id = "", scope = ""] = parts;
  if ((state !== "unchanged" && state !== "changed") || !ID.test(id) || !SCOPE.test(scope)) {
    return null;
  }
  return { state, id, scope };
}
