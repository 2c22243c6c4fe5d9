import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { installProbe } from "../hook-kit/install-ledger.js";
import { geminiInstallLedgerPath, installGemini, uninstallGemini } from "./install.js";

/**
 * An install is all or nothing: a failure between two of its writes puts
 * every file back, and a process killed there leaves a ledger that lets
 * uninstall give every file its exact bytes back.
 */

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});
afterEach(() => {
  installProbe.beforeWrite = null;
});
function temp(prefix: string) {
  const d = mkdtempSync(join(tmpdir(), prefix));
  made.push(d);
  return d;
}

type Tree = Record<string, string>;

/** Every file, folder and symlink under a folder, with its bytes (or link text). */
function snapshot(root: string): Tree {
  const out: Tree = {};
  if (!existsSync(root)) return out;
  const walk = (dir: string, rel: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const key = rel === "" ? name : `${rel}/${name}`;
      const info = lstatSync(path);
      if (info.isSymbolicLink()) out[key] = `-> ${readlinkSync(path)}`;
      else if (info.isDirectory()) {
        out[`${key}/`] = "";
        walk(path, key);
      } else out[key] = readFileSync(path, "utf8");
    }
  };
  walk(root, "");
  return out;
}

/** Makes a folder hold exactly a snapshot (the state a killed process left). */
function restore(root: string, tree: Tree): void {
  for (const name of readdirSync(root)) rmSync(join(root, name), { recursive: true, force: true });
  for (const [key, value] of Object.entries(tree).sort(([a], [b]) => a.length - b.length)) {
    const path = join(root, key);
    if (key.endsWith("/")) mkdirSync(path, { recursive: true });
    else if (value.startsWith("-> ")) symlinkSync(value.slice(3), path);
    else {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, value);
    }
  }
}

function world() {
  const home = temp("gem-tx-home-");
  const project = temp("gem-tx-proj-");
  const options = {
    projectDir: project,
    env: { HOME: home },
    packageRoot: join(project, "node_modules", "todo-continuation"),
    out: () => undefined,
  };
  const both = () => ({ home: snapshot(home), project: snapshot(project) });
  return { home, project, options, both };
}

/** What the user's files held before install, each a variant the install must give back. */
const BEFORE: Record<string, (w: ReturnType<typeof world>) => void | Promise<void>> = {
  "nothing at all": () => undefined,
  "settings of their own, no Gemini user folder": (w) => {
    mkdirSync(join(w.project, ".gemini"));
    writeFileSync(join(w.project, ".gemini", "settings.json"), '{\r\n\t"model": {}\r\n}');
  },
  "trusted hooks and a ledger of another project's install": async (w) => {
    const other = temp("gem-tx-other-");
    await installGemini({ ...w.options, projectDir: other });
  },
};

/** Fails the install just before it writes the file whose name ends so. */
function failBefore(name: string) {
  const seen: string[] = [];
  installProbe.beforeWrite = (path) => {
    seen.push(path);
    if (path.endsWith(name)) throw new Error(`injected failure before ${name}`);
  };
  return seen;
}

describe("a Gemini install that fails between two writes", () => {
  for (const [label, setUp] of Object.entries(BEFORE)) {
    for (const name of ["settings.json", "trusted_hooks.json"]) {
      it(`${label}: failing before ${name} leaves every file and folder as it was`, async () => {
        const w = world();
        await setUp(w);
        const before = w.both();
        const seen = failBefore(name);
        await expect(installGemini(w.options)).rejects.toThrow(`injected failure before ${name}`);
        expect(seen.some((p) => p.endsWith(name))).toBe(true);
        expect(w.both()).toEqual(before);
        // And a retry without the failure installs, and uninstall gives the bytes back.
        installProbe.beforeWrite = null;
        await installGemini(w.options);
        expect(w.both()).not.toEqual(before);
        await uninstallGemini(w.options);
        expect(w.both()).toEqual(before);
      });
    }
  }
});

describe("a Gemini install killed between two writes", () => {
  for (const [label, setUp] of Object.entries(BEFORE)) {
    it(`${label}: the ledger is on disk first, and uninstall gives every file its bytes back`, async () => {
      const w = world();
      await setUp(w);
      const before = w.both();
      const ledger = geminiInstallLedgerPath(w.options.env);
      let atKill: { home: Tree; project: Tree } | null = null;
      let ledgerFirst = false;
      installProbe.beforeWrite = (path) => {
        if (!path.endsWith("trusted_hooks.json")) return;
        ledgerFirst = existsSync(ledger);
        // What a kill here leaves on disk: settings written, trusted hooks not yet.
        atKill = w.both();
        throw new Error("killed");
      };
      await expect(installGemini(w.options)).rejects.toThrow("killed");
      installProbe.beforeWrite = null;
      expect(ledgerFirst).toBe(true);
      if (atKill === null) throw new Error("the install never reached its second write");
      const killed: { home: Tree; project: Tree } = atKill;
      expect(killed.project[".gemini/settings.json"]).toContain("todo-continuation");
      restore(w.home, killed.home);
      restore(w.project, killed.project);
      await uninstallGemini(w.options);
      expect(w.both()).toEqual(before);
    });
  }
});
