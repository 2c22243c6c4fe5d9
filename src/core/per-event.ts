/**
 * Module state that belongs to one hook event.
 *
 * A hook process runs one event and exits, so its modules' state dies with it. The resident hook
 * server (`hosts/hook-kit/server`) runs every event of a host on one set of the bundle's modules:
 * a set made anew for each event ran its code cold (its classes are new to V8's inline caches),
 * 0.2 to 1 ms of every event, the slower the machine the more. So a module whose state must not
 * reach the next event (a memo of something the event's environment or time decides, a process
 * exit hook, what the event looked at) registers how to forget it here, and the server's entry
 * (`runHookWith`) calls {@link beginEvent} before each event. State that may be shared (a pure function's memo, a
 * scratch buffer, a counter) is left as it is; `module-state.test.ts` finds every module-level
 * binding the built bundles ever write and holds each to one of the two.
 */

const resets: (() => void)[] = [];

/** Registers `reset`, run before every event of the resident server (at module load). */
export function perEvent(reset: () => void): void {
  resets.push(reset);
}

/** Forgets every module's per-event state: the next event starts as a new process would. */
export function beginEvent(): void {
  for (const reset of resets) reset();
}
