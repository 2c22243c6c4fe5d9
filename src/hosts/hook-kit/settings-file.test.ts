import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { CONFIG_FILE, findProjectConfig } from "../../config/load.js";
import { trust, trustFilePath } from "../../config/trust.js";
import { readJsonFile, writeJsonFile, writeTextFile } from "./settings-file.js";

/**
 * Every writer outside the store (installers' settings, the trust record)
 * replaces a file through a temporary. A write refused part way, by a full
 * disk or a refused rename, must leave the file's old bytes and no temporary.
 */

/** The call the next write fails in, and how. */
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

const ORIGINAL = '{\n\t"model": "kept",\n\t"hooks": {}\n}\n';

let dir: string;

beforeEach(() => {
  dir = fs.mkdtempSync(join(tmpdir(), "tc-settings-file-"));
});

afterEach(() => {
  failing.call = null;
  fs.rmSync(dir, { recursive: true, force: true });
});

const CASES = [
  ["writeSync", "ENOSPC"],
  ["writeSync", "EDQUOT"],
  ["fsyncSync", "EIO"],
  ["renameSync", "EACCES"],
  ["renameSync", "EXDEV"],
] as const;

describe("writeTextFile refused part way", () => {
  it.each(CASES)(
    "keeps the old bytes and leaves no temporary when %s fails with %s",
    async (call, code) => {
      const path = join(dir, "settings.json");
      fs.writeFileSync(path, ORIGINAL);
      failing.call = call;
      failing.code = code;
      await expect(writeTextFile(path, '{"hooks":{"Stop":[]}}\n')).rejects.toThrow(code);
      failing.call = null;
      expect(fs.readFileSync(path, "utf8")).toBe(ORIGINAL);
      expect(fs.readdirSync(dir)).toEqual(["settings.json"]);
    },
  );

  it.each(CASES)("creates nothing when %s fails with %s on a new file", async (call, code) => {
    failing.call = call;
    failing.code = code;
    await expect(writeTextFile(join(dir, "new.json"), "{}\n")).rejects.toThrow(code);
    failing.call = null;
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it("through a symlink: the target keeps its bytes, the link stays a link, no temporary anywhere", async () => {
    const real = join(dir, "dotfiles");
    fs.mkdirSync(real);
    fs.writeFileSync(join(real, "settings.json"), ORIGINAL);
    const link = join(dir, "settings.json");
    fs.symlinkSync(join(real, "settings.json"), link);
    failing.call = "renameSync";
    failing.code = "EACCES";
    const file = await readJsonFile(link);
    await expect(writeJsonFile(file, { model: "changed" })).rejects.toThrow("EACCES");
    failing.call = null;
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
    expect(fs.readFileSync(link, "utf8")).toBe(ORIGINAL);
    expect(fs.readdirSync(real)).toEqual(["settings.json"]);
    expect(fs.readdirSync(dir).sort()).toEqual(["dotfiles", "settings.json"]);
  });

  it("a write that succeeds keeps the file's mode and layout", async () => {
    const path = join(dir, "settings.json");
    fs.writeFileSync(path, ORIGINAL, { mode: 0o600 });
    fs.chmodSync(path, 0o600);
    await writeJsonFile(await readJsonFile(path), { model: "changed" });
    expect(fs.readFileSync(path, "utf8")).toBe('{\n\t"model": "changed"\n}\n');
    expect(fs.statSync(path).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(dir)).toEqual(["settings.json"]);
  });
});

describe("the trust record refused part way", () => {
  it.each(CASES)(
    "keeps the old record and leaves no temporary when %s fails with %s",
    (call, code) => {
      const home = join(dir, "home");
      const repo = join(home, "repo");
      fs.mkdirSync(join(repo, ".git"), { recursive: true });
      const env = { XDG_CONFIG_HOME: join(dir, "xdg") };
      fs.writeFileSync(
        join(repo, CONFIG_FILE),
        JSON.stringify({ verify: { command: "npm test" } }),
      );
      const loaded = findProjectConfig(repo, home);
      if (loaded === null) throw new Error("no config");
      trust(loaded, { env, home, now: 1 });
      const record = trustFilePath(env, home);
      const before = fs.readFileSync(record, "utf8");
      fs.writeFileSync(
        join(repo, CONFIG_FILE),
        JSON.stringify({ verify: { command: "npm run ci" } }),
      );
      const edited = findProjectConfig(repo, home);
      if (edited === null) throw new Error("no config");
      failing.call = call;
      failing.code = code;
      expect(() => trust(edited, { env, home, now: 2 })).toThrow(code);
      failing.call = null;
      expect(fs.readFileSync(record, "utf8")).toBe(before);
      expect(fs.readdirSync(join(dir, "xdg", "todo-continuation"))).toEqual(["trusted.json"]);
    },
  );
});

/**
 * The same on a real full disk: a 64 KiB tmpfs filled to the last page.
 * Mounting needs root; elsewhere this suite is skipped.
 */
let mount: string | null = null;

function tryMount(): string | null {
  if (process.platform !== "linux" || process.getuid?.() !== 0) return null;
  const at = fs.mkdtempSync(join(tmpdir(), "tc-settings-full-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", at], { stdio: "ignore" });
    return at;
  } catch {
    fs.rmSync(at, { recursive: true, force: true });
    return null;
  }
}

/** Fills the file system up: appends pages to a filler file until no space is left. */
function fill(at: string): void {
  const fd = fs.openSync(join(at, "filler"), "w");
  try {
    for (;;) fs.writeSync(fd, Buffer.alloc(4096, 1));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOSPC") throw error;
  } finally {
    fs.closeSync(fd);
  }
}

beforeAll(() => {
  mount = tryMount();
});

afterAll(() => {
  if (mount === null) return;
  execFileSync("umount", [mount]);
  fs.rmSync(mount, { recursive: true, force: true });
});

describe("on a real full disk (root only: mounts a tmpfs)", () => {
  it("writeTextFile keeps the old bytes and leaves no temporary", async (context) => {
    if (mount === null) context.skip("mounting a tmpfs needs root on Linux");
    const at = mount as string;
    const path = join(at, "settings.json");
    fs.writeFileSync(path, ORIGINAL);
    fill(at);
    await expect(writeTextFile(path, `{"pad":"${"x".repeat(16_384)}"}\n`)).rejects.toThrow(
      /ENOSPC/,
    );
    expect(fs.readFileSync(path, "utf8")).toBe(ORIGINAL);
    expect(fs.readdirSync(at).sort()).toEqual(["filler", "settings.json"]);
    fs.rmSync(join(at, "filler"));
    fs.rmSync(path);
  });
});
