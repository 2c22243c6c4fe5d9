import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FLUSH_BESIDE } from "../../core/resident.js";
import { replaceFile, tempPathFor, writeDurably, writeEachDurably } from "./atomic.js";

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

describe("writeEachDurably, with the resident server's helper thread", () => {
  /** The descriptors handed to the helper; `fail` makes its wait throw, `busy` refuse. */
  const helper = { handed: [] as number[], fail: null as string | null, busy: false };
  const globals = globalThis as Record<symbol, unknown>;

  beforeEach(() => {
    helper.handed = [];
    helper.fail = null;
    helper.busy = false;
    globals[FLUSH_BESIDE] = (fd: number) => {
      if (helper.busy) return null;
      helper.handed.push(fd);
      return () => {
        if (helper.fail !== null) {
          const error = new Error(`${helper.fail}: injected`) as NodeJS.ErrnoException;
          error.code = helper.fail;
          throw error;
        }
        fs.fsyncSync(fd);
      };
    };
  });

  afterEach(() => {
    delete globals[FLUSH_BESIDE];
  });

  const files = () => [
    { path: join(dir, "a.tmp"), bytes: Buffer.from("first") },
    { path: join(dir, "b.tmp"), bytes: Buffer.from("second") },
  ];
  const openDescriptors = () => fs.readdirSync("/proc/self/fd").length;

  it("hands the first file's flush to the helper and flushes the others itself", () => {
    const before = openDescriptors();
    writeEachDurably(files());
    expect(helper.handed).toHaveLength(1);
    expect(fs.readFileSync(join(dir, "a.tmp"), "utf8")).toBe("first");
    expect(fs.readFileSync(join(dir, "b.tmp"), "utf8")).toBe("second");
    // Every descriptor closed, the helper's among them, once its flush is over.
    expect(openDescriptors()).toBe(before);
  });

  it("hands nothing over for one file, or when the helper is busy", () => {
    writeEachDurably([files()[0]!]);
    helper.busy = true;
    writeEachDurably(files());
    expect(helper.handed).toEqual([]);
    expect(fs.readdirSync(dir).sort()).toEqual(["a.tmp", "b.tmp"]);
  });

  it("fails with the helper's error and leaves none of the files", () => {
    helper.fail = "EIO";
    const before = openDescriptors();
    expect(() => writeEachDurably(files())).toThrow("EIO");
    expect(fs.readdirSync(dir)).toEqual([]);
    expect(openDescriptors()).toBe(before);
  });

  it.each(CASES)("leaves none of the files when its own %s fails with %s", (call, code) => {
    failing.call = call;
    failing.code = code;
    expect(() => writeEachDurably(files())).toThrow(code);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it("removes what it made, not a symlink planted at a later file's name", () => {
    fs.symlinkSync(join(dir, "elsewhere"), join(dir, "b.tmp"));
    expect(() => writeEachDurably(files())).toThrow();
    expect(fs.readdirSync(dir)).toEqual(["b.tmp"]);
    expect(fs.lstatSync(join(dir, "b.tmp")).isSymbolicLink()).toBe(true);
    expect(fs.existsSync(join(dir, "elsewhere"))).toBe(false);
  });
});
