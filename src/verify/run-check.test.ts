import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { runCheck, TAIL_MAX_BYTES, TailBuffer } from "./run-check.js";

const dir = mkdtempSync(join(tmpdir(), "tc-run-check-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("runCheck (real processes)", () => {
  it("exit 0 passes; its output tail is kept", async () => {
    const r = await runCheck({
      command: "echo hello; echo world >&2",
      cwd: dir,
      timeoutMs: 10_000,
    });
    expect(r).toMatchObject({ status: "passed", exitCode: 0, signal: null });
    expect(r.outputTail).toBe("hello\nworld");
    expect(r.durationMs).toBeGreaterThanOrEqual(0);
  });

  it("a non-zero exit fails with its code and last lines, run in the given folder", async () => {
    const r = await runCheck({
      command: 'for i in $(seq 1 100); do echo "line $i"; done; pwd; exit 3',
      cwd: dir,
      timeoutMs: 10_000,
    });
    expect(r).toMatchObject({ status: "failed", exitCode: 3 });
    const lines = r.outputTail.split("\n");
    expect(lines).toHaveLength(40);
    expect(lines.at(-1)).toBe(dir);
    expect(lines.at(-2)).toBe("line 100");
  });

  it("a command that does not exist fails (the shell says 127)", async () => {
    const r = await runCheck({ command: "no-such-command-xyz", cwd: dir, timeoutMs: 10_000 });
    expect(r.status).toBe("failed");
    expect(r.exitCode).toBe(127);
    expect(r.outputTail).toMatch(/not found/);
  });

  it("a folder that does not exist is an error, not a failure", async () => {
    const r = await runCheck({ command: "true", cwd: join(dir, "missing"), timeoutMs: 10_000 });
    expect(r.status).toBe("error");
  });

  it("on timeout the whole process group is killed, grandchildren included", async () => {
    const pidFile = join(dir, "grandchild.pid");
    const started = Date.now();
    const r = await runCheck({
      command: `sleep 30 & echo $! > ${pidFile}; echo started; wait`,
      cwd: dir,
      timeoutMs: 1_000,
    });
    expect(r.status).toBe("timed-out");
    expect(r.exitCode).toBeNull();
    expect(r.outputTail).toBe("started");
    expect(Date.now() - started).toBeLessThan(10_000);
    const pid = Number(readFileSync(pidFile, "utf8"));
    // Dead or a zombie awaiting its reaper: either way no longer running.
    const running = () => {
      try {
        return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
      } catch {
        return false;
      }
    };
    for (let i = 0; i < 20 && running(); i++) await new Promise((r) => setTimeout(r, 100));
    expect(running()).toBe(false);
  });

  it("megabytes of output keep only a bounded tail", async () => {
    const r = await runCheck({
      command: "head -c 5000000 /dev/zero | tr '\\0' 'x'; echo; echo END; exit 1",
      cwd: dir,
      timeoutMs: 20_000,
    });
    expect(r.status).toBe("failed");
    expect(Buffer.byteLength(r.outputTail)).toBeLessThanOrEqual(TAIL_MAX_BYTES);
    expect(r.outputTail.endsWith("END")).toBe(true);
    expect(existsSync(dir)).toBe(true);
  });
});

describe("TailBuffer", () => {
  it("the tail is the last bytes and the last lines, whatever the chunking", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: fc.constantFrom("a", "b", "\n") }), { maxLength: 40 }),
        (parts) => {
          const tail = new TailBuffer(64);
          for (const p of parts) tail.push(Buffer.from(p));
          const all = parts.join("");
          const expected = all.slice(-64).trimEnd().split("\n").slice(-5).join("\n");
          expect(tail.text(5)).toBe(expected);
        },
      ),
      { numRuns: 1_000 },
    );
  });
});

describe("TailBuffer with multi-byte text", () => {
  it("a cut inside a character does not start the tail with a broken one", () => {
    const tail = new TailBuffer(7);
    tail.push(Buffer.from("ééééé"));
    expect(tail.text()).toBe("ééé");
  });
});
