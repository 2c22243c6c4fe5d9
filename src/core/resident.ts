/**
 * Set on `globalThis` by the resident hook server (`hosts/hook-kit/server`): code that spares a new process a module's
 * load (hashing in JavaScript rather than loading `node:crypto`) takes the module there, where
 * it is loaded once for every event.
 */
export const RESIDENT = Symbol.for("todo-continuation.resident-hook-server");

export function inResidentServer(): boolean {
  return (globalThis as Record<symbol, unknown>)[RESIDENT] === true;
}
