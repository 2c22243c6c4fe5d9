import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { readTranscriptTail } from "../claude-code/transcript.js";
import { readSessionMessages } from "../gemini/usage.js";
import { readRegularFile } from "./bounded-read.js";

const dir = mkdtempSync(join(tmpdir(), "bounded-read-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const fifo = join(dir, "fifo");
execFileSync("mkfifo", [fifo]);
const devices = ["/dev/zero", "/dev/urandom", "/dev/null"];

describe("readRegularFile", () => {
  it("turns away devices, FIFOs and folders without reading from them", async () => {
    for (const path of [...devices, fifo, dir]) {
      for (const mode of ["whole", "tail"] as const) {
        expect(await readRegularFile(path, { maxBytes: 1024, mode }), path).toEqual({
          status: "not-regular",
        });
      }
    }
    // A symlink to a device is the device.
    const link = join(dir, "zero-link");
    symlinkSync("/dev/zero", link);
    expect((await readRegularFile(link, { maxBytes: 10, mode: "whole" })).status).toBe(
      "not-regular",
    );
  });

  it("says missing for a path that is not there", async () => {
    expect(await readRegularFile(join(dir, "none"), { maxBytes: 10, mode: "whole" })).toEqual({
      status: "missing",
    });
    expect(
      await readRegularFile(join(dir, "none", "deeper"), { maxBytes: 10, mode: "tail" }),
    ).toEqual({ status: "missing" });
  });

  it("never returns more than the cap, whole or tail, for any size", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 4096 }),
        fc.integer({ min: 0, max: 4096 }),
        async (size, cap) => {
          const path = join(dir, "sized");
          const text = Buffer.alloc(size, "a");
          for (let i = 0; i < size; i++) text[i] = 97 + (i % 26);
          writeFileSync(path, text);
          const whole = await readRegularFile(path, { maxBytes: cap, mode: "whole" });
          if (size > cap) expect(whole).toEqual({ status: "too-large", size });
          else expect(whole).toMatchObject({ status: "read", truncated: false, bytes: text });
          const tail = await readRegularFile(path, { maxBytes: cap, mode: "tail" });
          expect(tail).toMatchObject({
            status: "read",
            truncated: size > cap,
            bytes: text.subarray(Math.max(0, size - cap)),
          });
        },
      ),
      { numRuns: 40 },
    );
  });

  it("rejects a cap that is not a whole number", async () => {
    await expect(readRegularFile(fifo, { maxBytes: -1, mode: "whole" })).rejects.toThrow(
      /maxBytes/,
    );
  });
});

describe("the hooks' readers of host-given paths", () => {
  it("Gemini's session file: a device or FIFO is no session file", async () => {
    for (const path of [...devices, fifo, dir]) expect(await readSessionMessages(path)).toBeNull();
  });

  it("Claude Code's and Codex's transcript tail: a device or FIFO is no lines", async () => {
    for (const path of [...devices, fifo, dir])
      expect(await readTranscriptTail(path, 64)).toEqual([]);
  });
});
