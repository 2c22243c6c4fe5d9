import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * The folders of src/ stand on floors: a module imports only from its own
 * folder or from a floor below it, never up and never sideways. A piece two
 * floors share belongs on a floor below both. Tests count too: a test that
 * reaches up pins code to the wrong floor.
 */
const FLOORS: Readonly<Record<string, number>> = {
  core: 0,
  /** Helpers shared by tests of every floor (they import only Node). */
  "test-support": 0,
  store: 1,
  verify: 1,
  config: 2,
  runtime: 2,
  ui: 3,
  notify: 3,
  hosts: 4,
  demo: 4,
  sim: 4,
  cli: 5,
  bench: 5,
  docs: 5,
};

const SRC = import.meta.dirname;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** Every relative import of a file: `from "…"`, `import("…")`, `import "…"`. */
function importsOf(text: string): string[] {
  const out: string[] = [];
  for (const match of text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*["'](\.\.?\/[^"']+)["']/g)) {
    out.push(match[1] as string);
  }
  return out;
}

/** The top folder of src/ a path is in; null for files directly in src/ (entry points). */
function folderOf(path: string): string | null {
  const parts = relative(SRC, path).split(/[\\/]/);
  return parts.length > 1 ? (parts[0] as string) : null;
}

/** Each import that runs up a floor or sideways, as `file -> import`. */
function upwardImports(files: readonly string[], read = (f: string) => readFileSync(f, "utf8")) {
  const found: string[] = [];
  for (const file of files) {
    const own = folderOf(file);
    if (own === null) continue;
    for (const spec of importsOf(read(file))) {
      const target = folderOf(resolve(dirname(file), spec));
      if (target === null || target === own) continue;
      const from = FLOORS[own];
      const to = FLOORS[target];
      if (from === undefined || to === undefined || to >= from) {
        found.push(`${relative(SRC, file)} -> ${spec}`);
      }
    }
  }
  return found;
}

describe("the floors of src/", () => {
  it("every top folder has a floor", () => {
    const folders = readdirSync(SRC, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(folders.filter((f) => FLOORS[f] === undefined)).toEqual([]);
  });

  it("no import runs up a floor or sideways", () => {
    expect(upwardImports(sources(SRC))).toEqual([]);
  });

  it("catches an upward import, a sideways one and a dynamic one", () => {
    const files: Record<string, string> = {
      [join(SRC, "core", "a.ts")]: 'import { x } from "../store/x.js";',
      [join(SRC, "hosts", "b.ts")]: 'const m = await import("../cli/main.js");',
      [join(SRC, "demo", "c.ts")]: 'import type { S } from "../hosts/s.js";',
      [join(SRC, "cli", "d.ts")]: 'import { y } from "../hosts/y.js";\nimport "./own.js";',
    };
    expect(upwardImports(Object.keys(files), (f) => files[f] as string)).toEqual([
      "core/a.ts -> ../store/x.js",
      "hosts/b.ts -> ../cli/main.js",
      "demo/c.ts -> ../hosts/s.js",
    ]);
  });
});
