import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BUNDLED_HOOK_HOSTS } from "../bundled-hosts.js";
import { moduleWrites } from "./test-support/module-writes.js";

/**
 * The resident server runs every event of a host on one set of its bundle's modules, so what a
 * module keeps at its top level outlives the event that wrote it. Every such binding the built
 * bundles write is either forgotten before each event (named in a `perEvent` callback,
 * `core/per-event.ts`) or listed here, with the source file that declares it and why the next
 * event may see it. A new one fails this test until it is one or the other.
 */
const SHARED: readonly { name: string; file: string; why: string }[] = [
  {
    name: "resets",
    file: "core/per-event.ts",
    why: "the per-event resets themselves, registered once as the modules load",
  },
  {
    name: "normalizedBases",
    file: "store/file/paths.ts",
    why: "absolute bases `resolve` leaves unchanged: the same in any event, whatever its folder",
  },
  {
    name: "seenMissing",
    file: "store/file/documents.ts",
    why: "a hint only: a path in it is looked for again before it is taken for missing",
  },
  {
    name: "lastChecksum",
    file: "store/file/documents.ts",
    why: "the last text hashed and its hash: a pure function's memo",
  },
  {
    name: "laneB",
    file: "core/todo/summary.ts",
    why: "a hash's second lane, set before every use",
  },
  {
    name: "nothingOpen",
    file: "core/notify/events.ts",
    why: "the fingerprint of an empty list, the same every time",
  },
  {
    name: "tmpSerial",
    file: "verify/cache-record.ts",
    why: "a counter that makes temporary names unique; a later start is as unique",
  },
  {
    name: "pause",
    file: "hosts/hook-kit/server/server-client.ts",
    why: "the array a synchronous sleep waits on, never written once made",
  },
  {
    name: "pause",
    file: "verify/watcher-client.ts",
    why: "the array a synchronous sleep waits on, never written once made",
  },
  {
    name: "turnCounter",
    file: "runtime/runtime.ts",
    why: "turn ids from a random start, unique in the process whichever event takes the next",
  },
  {
    name: "varintEnd",
    file: "hosts/hook-kit/sqlite-record.ts",
    why: "where the last varint read ended: set by every read, read just after it",
  },
  {
    name: "sum0",
    file: "hosts/hook-kit/sqlite-wal.ts",
    why: "a checksum's running half, set before every use",
  },
  {
    name: "sum1",
    file: "hosts/hook-kit/sqlite-wal.ts",
    why: "a checksum's running half, set before every use",
  },
];

const SRC = join(import.meta.dirname, "../../..");
const HOOK_DIR = join(SRC, "../dist/hook");

describe("module state the resident server's events share", () => {
  const bundles = readdirSync(HOOK_DIR).filter((name) => name.endsWith(".cjs"));

  it("checks the bundle of every host the server serves", () => {
    for (const host of BUNDLED_HOOK_HOSTS) expect(bundles).toContain(`${host}.cjs`);
  });

  it.each([...BUNDLED_HOOK_HOSTS].map((host) => [host]))(
    "%s: every module-level binding written is forgotten per event or shared for a reason",
    (host) => {
      const found = moduleWrites(readFileSync(join(HOOK_DIR, `${host}.cjs`), "utf8"));
      // The test would pass on a bundle it failed to read: the resets must be seen at least.
      expect(found.filter((w) => w.resetPerEvent).length).toBeGreaterThan(0);
      const unreviewed: string[] = [];
      const counts = new Map<string, number>();
      for (const write of found) {
        if (write.resetPerEvent) continue;
        counts.set(write.name, (counts.get(write.name) ?? 0) + 1);
      }
      for (const [name, count] of counts) {
        const listed = SHARED.filter((entry) => entry.name === name).length;
        if (count > listed) unreviewed.push(`${name} (${count} written, ${listed} listed)`);
      }
      expect(unreviewed, "reset it with perEvent, or add it to SHARED with the reason").toEqual([]);
    },
  );

  it("lists only bindings its files declare at their top level", () => {
    for (const entry of SHARED) {
      const text = readFileSync(join(SRC, entry.file), "utf8");
      const declared = new RegExp(`^(export )?(let|const|var) ${entry.name}\\b`, "m");
      expect(declared.test(text), `${entry.name} in ${entry.file}`).toBe(true);
    }
  });
});
