import { execFileSync } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { emptyState } from "../../core/engine/state.js";
import { resolveScope } from "../../core/scope/scope.js";
import type { DecisionLogEntry } from "../../core/types.js";
import { createFileStore } from "./file-store.js";

/**
 * A real, tiny file system (a 64 KiB tmpfs) filled up, then given space back
 * one page at a time: every write of a commit (the state's temporary, the
 * log's rotation, its append) meets "no space" somewhere in the sweep. Each
 * refused commit must leave no temporary and keep state and log together.
 * Mounting needs root; elsewhere this suite is skipped.
 */

const SCOPE = resolveScope({ kind: "cron", jobId: "full" })!;
const PAGE = 4096;
let mount: string | null = null;

function tryMount(): string | null {
  if (process.platform !== "linux" || process.getuid?.() !== 0) return null;
  const dir = mkdtempSync(join(tmpdir(), "tc-full-disk-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", dir], { stdio: "ignore" });
    return dir;
  } catch {
    rmSync(dir, { recursive: true, force: true });
    return null;
  }
}

beforeAll(() => {
  mount = tryMount();
});

afterAll(() => {
  if (mount === null) return;
  execFileSync("umount", [mount]);
  rmSync(mount, { recursive: true, force: true });
});

function entry(n: number): DecisionLogEntry {
  return {
    at: n,
    action: "inject",
    reason: null,
    episodeId: "e",
    autoTurns: n,
    tokens: 0,
    stagnation: 0,
    actionable: 1,
    blocked: 0,
    nudgeChars: 10,
    nudgeTokens: 3,
    trigger: "full-disk",
    note: "x".repeat(600),
  };
}

/** Every file under `dir` whose name marks a temporary. */
function temporaries(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[])
    .map((name) => relative(dir, join(dir, name)))
    .filter((name) => name.endsWith(".tmp"));
}

describe("a store on a full disk", () => {
  it("leaves no temporary behind and keeps state and log together at every refusal", async (ctx) => {
    if (mount === null) ctx.skip();
    const root = join(mount!, "store");
    mkdirSync(root);
    const store = createFileStore({ root, logLimit: 4 });
    const write = (n: number) =>
      store.transact(SCOPE, () => ({
        state: { ...emptyState(), lastUserTurnAt: n },
        log: [entry(n)],
        result: n,
      }));
    let n = 0;
    await write(++n);
    // Fill what is left, then give it back a page at a time.
    const filler = join(mount!, "filler");
    writeFileSync(filler, "");
    for (let size = 0; ; size += PAGE) {
      try {
        truncateSync(filler, size);
        writeFileSync(filler, Buffer.alloc(PAGE), { flag: "a" });
      } catch {
        break;
      }
    }
    const refusals = new Set<string>();
    let committed = 0;
    for (let size = statSync(filler).size; size >= 0; size -= PAGE / 4) {
      truncateSync(filler, Math.max(0, size));
      for (let attempt = 0; attempt < 3; attempt++) {
        try {
          await write(n + 1);
          n++;
          committed++;
        } catch (error) {
          refusals.add((error as NodeJS.ErrnoException).code ?? String(error));
        }
        expect(temporaries(mount!)).toEqual([]);
        const { state } = await store.read(SCOPE);
        const log = await store.readLog(SCOPE);
        expect(state.lastUserTurnAt).toBe(n);
        expect(log.at(-1)?.at).toBe(n);
        expect(log.map((e) => e.at)).toEqual(
          Array.from({ length: log.length }, (_, i) => n - log.length + 1 + i),
        );
      }
    }
    await store.close();
    expect(refusals).toContain("ENOSPC");
    // Enough commits went through that the log was rotated while space was short.
    expect(committed).toBeGreaterThan(8);
  });
});
