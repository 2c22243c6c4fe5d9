import { setTimeout as sleep } from "node:timers/promises";

/** Polls `probe` every 100 ms until it returns a value (up to a minute). */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
): Promise<T> {
  for (let i = 0; i < 600; i++) {
    const value = await probe();
    if (value !== undefined) return value;
    await sleep(100);
  }
  throw new Error(`gave up waiting for ${what}`);
}
