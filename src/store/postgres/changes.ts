import pg from "pg";
import { CHANGE_CHANNEL } from "./schema.js";

/**
 * Follows the writes of every process on one schema through LISTEN/NOTIFY
 * (the scopes table's trigger sends one notification per written row), and
 * reports the changed keys in batches at most every `settleMs`.
 */
export async function listenForChanges(
  connectionString: string,
  schema: string,
  onChange: (keys: string[]) => void,
  settleMs = 50,
): Promise<{ close(): Promise<void> }> {
  const client = new pg.Client({ connectionString });
  // A dropped connection must not crash the process; the page keeps its last view.
  client.on("error", () => {});
  await client.connect();
  let pending: Set<string> | null = null;
  let timer: NodeJS.Timeout | null = null;
  const flush = () => {
    timer = null;
    const batch = pending;
    pending = null;
    if (batch !== null) onChange([...batch]);
  };
  client.on("notification", (message) => {
    if (message.channel !== CHANGE_CHANNEL || message.payload === undefined) return;
    const space = message.payload.indexOf(" ");
    if (space < 0 || message.payload.slice(0, space) !== schema) return;
    pending ??= new Set();
    pending.add(message.payload.slice(space + 1));
    timer ??= setTimeout(flush, settleMs);
  });
  await client.query(`LISTEN ${CHANGE_CHANNEL}`);
  return {
    async close() {
      if (timer !== null) clearTimeout(timer);
      await client.end().catch(() => {});
    },
  };
}
