import { closeSync, constants, mkdtempSync, openSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { fdBlocks } from "./fd-blocks.js";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("fdBlocks", () => {
  it("tells descriptors that block from those that do not, for reading and writing alike", () => {
    const dir = mkdtempSync(join(tmpdir(), "tc-fd-blocks-"));
    made.push(dir);
    const file = join(dir, "out");
    const opened = [
      { fd: openSync(file, "w"), blocks: true },
      { fd: openSync(file, constants.O_WRONLY | constants.O_NONBLOCK), blocks: false },
      { fd: openSync(file, "r"), blocks: true },
      { fd: openSync(file, constants.O_RDONLY | constants.O_NONBLOCK), blocks: false },
      // O_NONBLOCK among other flags (the octal `flags` line holds them all).
      {
        fd: openSync(file, constants.O_WRONLY | constants.O_APPEND | constants.O_NONBLOCK),
        blocks: false,
      },
      { fd: openSync(file, constants.O_WRONLY | constants.O_APPEND), blocks: true },
    ];
    try {
      for (const { fd, blocks } of opened) expect(fdBlocks(fd)).toBe(blocks);
    } finally {
      for (const { fd } of opened) closeSync(fd);
    }
  });

  it("says no for a descriptor that is not open, so the caller takes its careful path", () => {
    expect(fdBlocks(987654)).toBe(false);
    expect(fdBlocks(-1)).toBe(false);
  });
});
