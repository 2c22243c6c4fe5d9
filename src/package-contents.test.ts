import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, posix } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";

/**
 * What `npm pack` would publish, read from npm itself: the files a user
 * installs, and nothing of the project's own tests. Needs `npm run build`
 * first (`npm test` does it), as the package's `dist` is what ships.
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const manifest = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  main: string;
  types: string;
  bin: Record<string, string>;
  exports: Record<string, string | { types: string; import: string }>;
};

let files: Set<string>;

/** A package path as npm lists it: no leading `./`. */
const packed = (path: string) => posix.normalize(path).replace(/^\.\//, "");

beforeAll(() => {
  if (!existsSync(join(ROOT, "dist", "index.js"))) {
    throw new Error("dist/ is missing: run `npm run build` before this test (npm test does)");
  }
  const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
    cwd: ROOT,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, npm_config_loglevel: "error" },
  });
  const [report] = JSON.parse(out) as [{ files: { path: string }[] }];
  files = new Set(report.files.map((f) => f.path));
}, 120_000);

describe("the packed package", () => {
  it("holds no test: no test or e2e files, no test folder, no sources, no source maps", () => {
    const unwanted = [...files].filter(
      (f) =>
        /\.(test|e2e)\.[cm]?[jt]s$/.test(f) ||
        /\.e2e\.test\./.test(f) ||
        f.startsWith("test/") ||
        f.startsWith("src/") ||
        f.startsWith(".") ||
        // The maps name ../src files, which do not ship: they would point nowhere.
        f.endsWith(".map"),
    );
    expect(unwanted).toEqual([]);
  });

  it("ships a test helper only where a shipped module imports it", () => {
    const helpers = [...files].filter((f) => f.includes("/test-support/") && f.endsWith(".js"));
    const shipped = [...files].filter((f) => f.endsWith(".js") && !f.includes("/test-support/"));
    const texts = shipped.map((f) => readFileSync(join(ROOT, f), "utf8"));
    const orphans = helpers.filter((helper) => {
      const name = `test-support/${posix.basename(helper)}`;
      return !texts.some((text) => text.includes(name));
    });
    expect(orphans).toEqual([]);
  });

  it("has the types and the JavaScript of every subpath export", () => {
    const missing: string[] = [];
    for (const [subpath, target] of Object.entries(manifest.exports)) {
      const targets = typeof target === "string" ? [target] : [target.types, target.import];
      for (const path of targets) {
        if (!files.has(packed(path))) missing.push(`${subpath} -> ${path}`);
      }
      if (typeof target !== "string") {
        expect(target.types, subpath).toMatch(/\.d\.ts$/);
        expect(target.import, subpath).toMatch(/\.js$/);
      }
    }
    expect(missing).toEqual([]);
    expect(Object.keys(manifest.exports).length).toBeGreaterThan(1);
  });

  it("has its main entry, its types, its command and the config schema", () => {
    const wanted = [
      manifest.main,
      manifest.types,
      ...Object.values(manifest.bin),
      "schema/config.schema.json",
      "schema/notify-payload.schema.json",
      // The detached process hooks hand notifications to.
      "dist/notify/child.js",
    ];
    expect(wanted.filter((path) => !files.has(packed(path)))).toEqual([]);
  });

  it("has the README, the license and the changelog", () => {
    for (const name of ["README.md", "LICENSE", "CHANGELOG.md", "package.json"]) {
      expect(files.has(name), name).toBe(true);
    }
  });

  it("has the hook command and each host's hook bundle the build makes", () => {
    const bundles = [
      "dist/hook/main.cjs",
      // What main.cjs requires when the resident server does not answer.
      "dist/hook/local.cjs",
      ...["claude-code", "codex", "copilot", "gemini", "qwen"].map(
        (host) => `dist/hook/${host}.cjs`,
      ),
    ];
    expect(bundles.filter((path) => !files.has(path))).toEqual([]);
  });
});
