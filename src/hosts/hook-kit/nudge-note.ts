import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { sha256Hex } from "../../core/hash/sha256.js";

/**
 * Some hosts (Copilot CLI) hand a block's reason back to the hook as the next
 * user prompt. The hook notes the nudge's hash, in the store's folder, before
 * it answers; the prompt that matches the note is then known as ours, not the
 * user's (which would reset the budget on every nudge). One note per session.
 * The file calls are synchronous: each is one small call on a local disk, and
 * the promise versions' round trips through libuv's thread pool cost a blocked
 * stop more than the calls themselves (a millisecond and more on a busy machine).
 */

const hash = (text: string) => sha256Hex(text);

const notePath = (dir: string, host: string, sessionId: string) =>
  join(dir, `${host}-nudges`, `${hash(sessionId)}.sha256`);

/** Notes `text` as the nudge just sent to `sessionId`. */
export async function noteNudge(dir: string, host: string, sessionId: string, text: string) {
  const path = notePath(dir, host, sessionId);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, hash(text));
}

/** Whether `prompt` is the nudge last noted for `sessionId`; the note is used up either way. */
export async function isNotedNudge(dir: string, host: string, sessionId: string, prompt: string) {
  const path = notePath(dir, host, sessionId);
  let noted: string;
  try {
    noted = readFileSync(path, "utf8");
  } catch {
    return false;
  }
  rmSync(path, { force: true });
  return noted === hash(prompt);
}
