import { spawnSync } from "node:child_process";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CODE_CACHE_ENV, codeCacheDir, compileBundle, loadBundle } from "./code-cache.js";

/** The built module: each load runs in a new process, as a hook's does (V8 keeps what one compiled). */
const BUILT = new URL("../../../dist/hosts/hook-kit/code-cache.js", import.meta.url).href;

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A folder with a bundle (as the build writes one) and a home for the cache. */
function fixture(body = "exports.answer = () => 42;", id = "0123456789abcdef") {
  const root = mkdtempSync(join(tmpdir(), "tc-code-cache-"));
  made.push(root);
  const bundle = join(root, "dist", "hook", "host.cjs");
  mkdirSync(join(root, "dist", "hook"), { recursive: true });
  const write = (text: string, build: string | null = id) =>
    writeFileSync(
      bundle,
      `${build === null ? "" : `// todo-continuation bundle ${build}\n`}${text}\n`,
    );
  write(body);
  const env: Record<string, string> = { HOME: join(root, "home") };
  const cacheDir = codeCacheDir(env) as string;
  const cached = () => (statSync(cacheDir, { throwIfNoEntry: false }) ? readdirSync(cacheDir) : []);
  return { root, bundle, env, cacheDir, cached, write };
}

/** Loads `bundle` in a new `node`, calls its `answer()`, saves the cache: what it saw. */
function load(
  bundle: string,
  env: Record<string, string>,
  event?: string,
): { fromCache: boolean; answer: number } {
  const script = `import(${JSON.stringify(BUILT)}).then(({ loadBundle }) => {
    const loaded = loadBundle(${JSON.stringify(bundle)}, process.env);
    const answer = loaded.exports.answer();
    loaded.saveCache(${JSON.stringify(event ?? null)});
    process.stdout.write(JSON.stringify({ fromCache: loaded.fromCache, answer }));
  })`;
  const run = spawnSync(process.execPath, ["-e", script], { env, encoding: "utf8" });
  if (run.status !== 0) throw new Error(run.stderr);
  return JSON.parse(run.stdout) as { fromCache: boolean; answer: number };
}

describe("loadBundle", () => {
  it("compiles the first time, writes the cache, and runs from it after", () => {
    const { bundle, env, cached, cacheDir } = fixture();
    expect(load(bundle, env)).toEqual({ fromCache: false, answer: 42 });
    const name = cached()[0] as string;
    expect(name).toBe(`host-0123456789abcdef-${process.version}-${process.arch}.bin`);
    expect(statSync(cacheDir).mode & 0o777).toBe(0o700);
    expect(statSync(join(cacheDir, name)).mode & 0o777).toBe(0o600);
    const written = statSync(join(cacheDir, name)).mtimeMs;
    for (let i = 0; i < 3; i++) expect(load(bundle, env)).toEqual({ fromCache: true, answer: 42 });
    // A cache V8 took is not written again.
    expect(statSync(join(cacheDir, name)).mtimeMs).toBe(written);
    expect(cached()).toEqual([name]);
  });

  it("writes the cache again the first time the bundle answers an event it had not", () => {
    const { bundle, env, cached, cacheDir } = fixture();
    const mtime = () => statSync(join(cacheDir, cached()[0] as string)).mtimeMs;
    const size = () => statSync(join(cacheDir, cached()[0] as string)).size;
    expect(load(bundle, env, "UserPromptSubmit").fromCache).toBe(false);
    let written = mtime();
    expect(load(bundle, env, "UserPromptSubmit")).toEqual({ fromCache: true, answer: 42 });
    expect(mtime()).toBe(written);
    // A Stop runs functions the prompt did not: the cache is made again, and then kept.
    const before = size();
    expect(load(bundle, env, "Stop")).toEqual({ fromCache: true, answer: 42 });
    expect(size()).toBeGreaterThan(before);
    written = mtime();
    for (const event of ["Stop", "UserPromptSubmit", "Stop"]) {
      expect(load(bundle, env, event)).toEqual({ fromCache: true, answer: 42 });
    }
    expect(mtime()).toBe(written);
  });

  it("runs a bundle whose cache is damaged from its source, and writes the cache anew", () => {
    const { bundle, env, cached, cacheDir } = fixture();
    load(bundle, env);
    const name = cached()[0] as string;
    const good = readFileSync(join(cacheDir, name));
    const half = good.length / 2;
    // One byte changed inside V8's data (which checks no checksum there, and may crash on it).
    const flipped = Buffer.from(good);
    flipped[30] = (flipped[30] as number) ^ 0xff;
    for (const damage of [
      Buffer.alloc(0),
      Buffer.from("not a code cache"),
      Buffer.alloc(4096, 7),
      good.subarray(0, half),
      good.subarray(0, good.length - 1),
      flipped,
    ]) {
      writeFileSync(join(cacheDir, name), damage, { mode: 0o600 });
      expect(load(bundle, env)).toEqual({ fromCache: false, answer: 42 });
      expect(load(bundle, env)).toEqual({ fromCache: true, answer: 42 });
    }
  });

  it("takes a new build's cache under its own name, and drops the old build's", () => {
    const { bundle, env, cached, write } = fixture();
    load(bundle, env);
    write("exports.answer = () => 43;", "fedcba9876543210");
    expect(load(bundle, env)).toEqual({ fromCache: false, answer: 43 });
    expect(cached()).toEqual([expect.stringMatching(/^host-fedcba9876543210-/)]);
    expect(load(bundle, env)).toEqual({ fromCache: true, answer: 43 });
  });

  it("caches nothing for a bundle without a build id, or when turned off", () => {
    const { bundle, env, cached, write } = fixture();
    write("exports.answer = () => 42;", null);
    expect(load(bundle, env).answer).toBe(42);
    expect(cached()).toEqual([]);
    write("exports.answer = () => 42;");
    expect(load(bundle, { ...env, [CODE_CACHE_ENV]: "0" }).answer).toBe(42);
    expect(cached()).toEqual([]);
    expect(codeCacheDir({})).toBeNull();
    expect(codeCacheDir({ XDG_CACHE_HOME: "/x", HOME: "/h" })).toBe(
      join("/x", "todo-continuation", "code-cache"),
    );
  });

  it("never takes a cache file or folder that others may write", () => {
    const { bundle, env, cached, cacheDir } = fixture();
    load(bundle, env);
    const file = join(cacheDir, cached()[0] as string);
    chmodSync(file, 0o666);
    expect(load(bundle, env).fromCache).toBe(false);
    chmodSync(file, 0o600);
    chmodSync(cacheDir, 0o777);
    expect(load(bundle, env).fromCache).toBe(false);
    chmodSync(cacheDir, 0o700);
    expect(load(bundle, env).fromCache).toBe(true);
  });

  it("serves the bundle's __import of a file beside it and of a Node module", async () => {
    const { root, bundle, env } = fixture(
      [
        "exports.load = async () => [",
        '  (await __import("../esm/value.mjs")).value,',
        '  (await __import("node:path")).sep,',
        "];",
      ].join("\n"),
    );
    mkdirSync(join(root, "dist", "esm"));
    writeFileSync(join(root, "dist", "esm", "value.mjs"), "export const value = 'from esm';\n");
    const loaded = loadBundle(bundle, env);
    await expect((loaded.exports.load as () => Promise<unknown>)()).resolves.toEqual([
      "from esm",
      "/",
    ]);
  });

  it("keeps the bundle's own line numbers in its stack traces", () => {
    const { bundle, env } = fixture(
      ["exports.fail = () => {", '  throw new Error("here");', "};"].join("\n"),
    );
    const loaded = loadBundle(bundle, env);
    let stack = "";
    try {
      (loaded.exports.fail as () => void)();
    } catch (error) {
      stack = (error as Error).stack ?? "";
    }
    // Line 1 is the build id, line 2 opens the function, line 3 throws.
    expect(stack).toContain(`${bundle}:3:`);
  });
});

describe("compileBundle", () => {
  it("gives every instance its own module state, from one compiled wrapper", () => {
    const { bundle } = fixture(
      "let count = 0; const seen = []; exports.bump = (x) => { count += 1; seen.push(x); return [count, seen.length]; };",
    );
    const compiled = compileBundle(bundle, readFileSync(bundle, "utf8"));
    const instances = Array.from({ length: 50 }, () => compiled.instantiate());
    // Each instance's state starts at nothing, however often the others ran.
    for (let round = 1; round <= 3; round++) {
      for (const instance of instances) {
        expect((instance.bump as (x: number) => number[])(round)).toEqual([round, round]);
      }
    }
    const fresh = compiled.instantiate();
    expect((fresh.bump as (x: number) => number[])(0)).toEqual([1, 1]);
  });

  it("keeps each instance's exports apart", () => {
    const { bundle } = fixture("exports.made = {};");
    const compiled = compileBundle(bundle, readFileSync(bundle, "utf8"));
    expect(compiled.instantiate().made).not.toBe(compiled.instantiate().made);
  });
});
