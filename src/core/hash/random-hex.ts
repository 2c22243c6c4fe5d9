/**
 * `bytes` random bytes as hex, for names that must not collide (a temporary
 * file's, a lock owner's tag, a nonce in a turn id), never for secrets. From
 * the engine's generator, seeded from the system's randomness at each process
 * start: `node:crypto` would cost a hook process milliseconds to load.
 */
export function randomHex(bytes: number): string {
  let hex = "";
  for (let i = 0; i < bytes; i++) {
    hex += Math.floor(Math.random() * 256)
      .toString(16)
      .padStart(2, "0");
  }
  return hex;
}
