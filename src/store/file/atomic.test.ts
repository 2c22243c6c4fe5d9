import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { replaceFile, tempPathFor, writeDurably } from "./atomic.js";

/** The write or flush the next call fails with, as a full or broken disk would. */
const failing: { call: "writeSync" | "fsyncSync" | "renameSync" | null; code: string } = {
  call: null,
  code: "ENOSPC",
};

vi.mock("node:fs", async (importOriginal) => {
  const real = await importOriginal<typeof import("node:fs")>();
  const failWith = (call: typeof failing.call) => {
    if (failing.call !== call) return;
    const error = new Error(`${failing.code}: injected`) as NodeJS.ErrnoException;
    error.code = failing.code;
    throw error;
  };
  return {
    ...real,
    writeSync: (...args: Parameters<typeof real.writeSync>) => {
      failWith("writeSync");
      return real.writeSync(...args);
    },
    fsyncSync: (fd: number) => {
      failWith("fsyncSync");
      real.fsyncSync(fd);
    },
    renameSync: (from: fs.PathLike, to: fs.PathLike) => {
      failWith("renameSync");
      real.renameSync(from, to);
    },
  };
});

let dir: string;

beforeEach(() => {
  dir = fs.mkdtempSync(join(tmpdir(), "tc-atomic-"));
});

afterEach(() => {
  failing.call = null;
  fs.rmSync(dir, { recursive: true, force: true });
});

const CASES = [
  ["writeSync", "ENOSPC"],
  ["writeSync", "EDQUOT"],
  ["writeSync", "EIO"],
  ["fsyncSync", "EIO"],
] as const;

describe("a write that fails part way", () => {
  it.each(CASES)("writeDurably removes the file it started when %s fails with %s", (call, code) => {
    const path = join(dir, "doc.json.t.tmp");
    failing.call = call;
    failing.code = code;
    expect(() => writeDurably(path, Buffer.from("content"))).toThrow(code);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it.each([...CASES, ["renameSync", "EIO"]] as const)(
    "replaceFile keeps the old file and no temporary when %s fails with %s",
    (call, code) => {
      const path = join(dir, "doc.json");
      fs.writeFileSync(path, "old");
      failing.call = call;
      failing.code = code;
      expect(() => replaceFile(path, Buffer.from("new"), "t")).toThrow(code);
      failing.call = null;
      expect(fs.readdirSync(dir)).toEqual(["doc.json"]);
      expect(fs.readFileSync(path, "utf8")).toBe("old");
      replaceFile(path, Buffer.from("new"), "t");
      expect(fs.readFileSync(path, "utf8")).toBe("new");
      expect(fs.existsSync(tempPathFor(path, "t"))).toBe(false);
    },
  );
});
