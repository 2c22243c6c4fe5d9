import {
  lstatSync,
  lutimesSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import {
  claimCopy,
  copyIdentity,
  type InstallTarget,
  packageCopy,
  renewCopyClaim,
} from "./event-claim.js";

const folders: string[] = [];
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

function storeDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "tc-claim-"));
  folders.push(dir);
  return dir;
}

const other = (target: InstallTarget): InstallTarget => (target === "user" ? "project" : "user");

/** The claims left in the session's folder. */
function claims(dir: string): string[] {
  const root = join(dir, "codex-events");
  const [session] = readdirSync(root);
  return session === undefined ? [] : readdirSync(join(root, session));
}

describe("claimCopy", () => {
  it("lets the first copy of an event handle it, and its twin in the other settings not", () => {
    const dir = storeDir();
    expect(claimCopy(dir, "codex", "s", "Stop", '{"a":1}', "user")).toBe(true);
    expect(lstatSync(join(dir, "codex-events")).isDirectory()).toBe(true);
    expect(claimCopy(dir, "codex", "s", "Stop", '{"a":1}', "project")).toBe(false);
    // The pair is done: nothing is left, and the same words later are a new event.
    expect(claims(dir)).toEqual([]);
    expect(claimCopy(dir, "codex", "s", "Stop", '{"a":1}', "project")).toBe(true);
    expect(claimCopy(dir, "codex", "s", "Stop", '{"a":1}', "user")).toBe(false);
  });

  it("lets a copy installed once handle an event it saw word for word before", () => {
    const dir = storeDir();
    for (let i = 0; i < 3; i++)
      expect(claimCopy(dir, "codex", "s", "Stop", "{}", "user")).toBe(true);
    expect(claims(dir)).toHaveLength(1);
  });

  it("tells events apart by session, name and input", () => {
    const dir = storeDir();
    expect(claimCopy(dir, "codex", "s", "Stop", "{}", "user")).toBe(true);
    expect(claimCopy(dir, "codex", "t", "Stop", "{}", "project")).toBe(true);
    expect(claimCopy(dir, "codex", "s", "PostToolUse", "{}", "project")).toBe(true);
    expect(claimCopy(dir, "codex", "s", "Stop", "{ }", "project")).toBe(true);
  });

  it("removes a name's claims once a minute old, keeping younger ones for their twins", () => {
    const dir = storeDir();
    claimCopy(dir, "codex", "s", "PostToolUse", "call 1", "user");
    claimCopy(dir, "codex", "s", "PostToolUse", "call 2", "user");
    const [first] = claims(dir).sort();
    const old = new Date(Date.now() - 61_000);
    const session = readdirSync(join(dir, "codex-events"))[0] as string;
    // The claim's own time (a symlink's; its text names no file).
    lutimesSync(join(dir, "codex-events", session, first as string), old, old);
    claimCopy(dir, "codex", "s", "PostToolUse", "call 3", "user");
    expect(claims(dir)).toHaveLength(2);
    expect(claims(dir)).not.toContain(first);
  });

  it("takes another command's claim older than a twin's for stale, and handles the event", () => {
    const dir = storeDir();
    expect(claimCopy(dir, "claude-code", "s", "Stop", "{}", "old-command")).toBe(true);
    const session = readdirSync(join(dir, "claude-code-events"))[0] as string;
    const claim = join(
      dir,
      "claude-code-events",
      session,
      readdirSync(join(dir, "claude-code-events", session))[0] as string,
    );
    // A moment later it is a twin's claim; 31 seconds later, a command's no longer beside this one.
    const old = new Date(Date.now() - 31_000);
    lutimesSync(claim, old, old);
    expect(claimCopy(dir, "claude-code", "s", "Stop", "{}", "new-command")).toBe(true);
    expect(readlinkSync(claim)).toBe("new-command");
    // Now its own: a twin of it a moment later does nothing.
    expect(claimCopy(dir, "claude-code", "s", "Stop", "{}", "old-command")).toBe(false);
  });

  it("renews a long event's claim for a twin run after it, and leaves a taken claim taken", () => {
    const dir = storeDir();
    expect(claimCopy(dir, "qwen", "s", "Stop", "{}", "project-copy")).toBe(true);
    const session = readdirSync(join(dir, "qwen-events"))[0] as string;
    const folder = join(dir, "qwen-events", session);
    const claim = join(folder, readdirSync(folder)[0] as string);
    // The event took 40 s (a project's check); it renews its claim as it ends.
    const started = new Date(Date.now() - 40_000);
    lutimesSync(claim, started, started);
    renewCopyClaim(dir, "qwen", "s", "Stop", "{}");
    expect(Date.now() - lstatSync(claim).mtimeMs).toBeLessThan(5_000);
    // The other copy, run after it (a sequential group): a twin, so it does nothing.
    expect(claimCopy(dir, "qwen", "s", "Stop", "{}", "user-copy")).toBe(false);
    // The twin took the claim away: renewing it now makes nothing.
    renewCopyClaim(dir, "qwen", "s", "Stop", "{}");
    expect(readdirSync(folder)).toEqual([]);
  });

  it("handles the event when no claim can be made (a store folder it cannot write)", () => {
    const dir = storeDir();
    const file = join(dir, "file");
    writeFileSync(file, "");
    expect(claimCopy(file, "codex", "s", "Stop", "{}", "user")).toBe(true);
    expect(claimCopy(file, "codex", "s", "Stop", "{}", "project")).toBe(true);
  });

  it("handles every event exactly once, installed once or in both, in any order (property)", () => {
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.array(
          fc.record({
            input: fc.constantFrom("{}", '{"stop":1}', '{"stop":2}'),
            name: fc.constantFrom("Stop", "PostToolUse"),
            first: fc.constantFrom<InstallTarget>("user", "project"),
          }),
          { maxLength: 12 },
        ),
        (twice, events) => {
          const dir = storeDir();
          const once: InstallTarget = "project";
          for (const event of events) {
            const copies = twice ? [event.first, other(event.first)] : [once];
            const handled = copies.filter((target) =>
              claimCopy(dir, "codex", "s", event.name, event.input, target),
            );
            expect(handled).toHaveLength(1);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it("lets one of two package copies' commands handle each event, whichever runs first", () => {
    const dir = storeDir();
    const global = copyIdentity(["hook", "claude-code"], "file:///usr/lib/node_modules/tc/dist/");
    const local = copyIdentity(["hook", "claude-code"], "file:///work/app/node_modules/tc/dist/");
    expect(global).not.toBe(local);
    for (const [first, second] of [
      [global, local],
      [local, global],
      [global, local],
    ] as const) {
      expect(claimCopy(dir, "claude-code", "s", "Stop", '{"stop":1}', first)).toBe(true);
      expect(claimCopy(dir, "claude-code", "s", "Stop", '{"stop":1}', second)).toBe(false);
    }
  });
});

describe("copyIdentity", () => {
  it("names a command by its package copy and its arguments, the same each time", () => {
    const copy = "file:///p/dist/";
    expect(copyIdentity(["hook", "codex"], copy)).toBe(copyIdentity(["hook", "codex"], copy));
    expect(copyIdentity(["hook", "codex"], copy)).toMatch(/^[0-9a-f]{32}$/);
    const others = [
      copyIdentity(["hook", "codex", "--target", "user"], copy),
      copyIdentity(["hook", "codex", "--target", "project"], copy),
      copyIdentity(["hook", "codex"], "file:///q/dist/"),
      // Arguments are not run together: ["a b"] is not ["a", "b"].
      copyIdentity(["hook codex"], copy),
    ];
    expect(new Set([copyIdentity(["hook", "codex"], copy), ...others]).size).toBe(5);
  });

  it("takes this package's build folder from the code that runs, bundled or not", () => {
    // Run from the sources here (no dist/ in the path): the module's own address stands in.
    const copy = packageCopy();
    expect(copy.startsWith("file://")).toBe(true);
    expect(copy.endsWith("/dist/") || copy.endsWith("event-claim.ts")).toBe(true);
  });
});
