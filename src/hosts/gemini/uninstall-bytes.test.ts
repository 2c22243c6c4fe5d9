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
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { geminiInstallLedgerPath, installGemini, uninstallGemini } from "./install.js";

/**
 * Install then uninstall must give back every file's exact bytes, and remove
 * the files and folders install created, whatever the files held before.
 */

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});
function temp(prefix: string) {
  const d = mkdtempSync(join(tmpdir(), prefix));
  made.push(d);
  return d;
}

/** Every file and symlink under a folder, with its bytes (or link text): the tree's fingerprint. */
function snapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {};
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

function world() {
  const home = temp("gem-bytes-home-");
  const project = temp("gem-bytes-proj-");
  const options = (dir: string = project) => ({
    projectDir: dir,
    env: { HOME: home },
    packageRoot: join(dir, "node_modules", "todo-continuation"),
    out: () => undefined,
  });
  const both = () => ({ home: snapshot(home), project: snapshot(project) });
  return { home, project, options, both };
}

const SETTINGS_VARIANTS: Record<string, string | null> = {
  absent: null,
  "empty file": "",
  "empty object": "{}",
  "empty object with newline": "{}\n",
  "spaced empty object": "{ }\r\n",
  "one line, odd spacing": '{"model":{"name" : "gemini-2.5-pro"},  "ui":{}}',
  "tabs and CRLF": '{\r\n\t"model": {\r\n\t\t"name": "gemini-2.5-pro"\r\n\t}\r\n}\r\n',
  "four spaces, no final newline": '{\n    "general": {\n        "vimMode": true\n    }\n}',
  "escaped unicode": '{\n  "ui": { "title": "caf\\u00e9 \\/ bar" }\n}\n',
  "other hooks": JSON.stringify(
    {
      hooks: {
        AfterAgent: [{ hooks: [{ type: "command", command: "echo mine", name: "mine" }] }],
        BeforeTool: [{ matcher: "x", hooks: [{ type: "command", command: "echo tool" }] }],
      },
      hooksConfig: { enabled: true },
    },
    null,
    2,
  ),
  "empty hooks object": '{\n  "hooks": {}\n}\n',
  "empty event list": '{ "hooks": { "AfterAgent": [] } }\n',
};

const TRUST_VARIANTS: Record<string, string | null> = {
  absent: null,
  "empty object": "{}",
  "other project": '{\n  "/elsewhere": ["mine:echo hi"]\n}\n',
  "odd layout": '{ "/elsewhere" : [ "mine:echo hi" ] }',
};

describe("uninstall gemini returns every file to its bytes before install", () => {
  for (const [settingsName, settings] of Object.entries(SETTINGS_VARIANTS)) {
    for (const [trustName, trust] of Object.entries(TRUST_VARIANTS)) {
      it(`settings: ${settingsName}; trusted_hooks.json: ${trustName}`, async () => {
        const w = world();
        if (settings !== null) {
          mkdirSync(join(w.project, ".gemini"));
          writeFileSync(join(w.project, ".gemini", "settings.json"), settings);
        }
        if (trust !== null) {
          mkdirSync(join(w.home, ".gemini"));
          writeFileSync(join(w.home, ".gemini", "trusted_hooks.json"), trust);
        }
        const before = w.both();
        await installGemini(w.options());
        expect(w.both()).not.toEqual(before);
        // Installing again (even with another preset) changes what to restore to nothing.
        await installGemini({ ...w.options(), preset: "parley" });
        await installGemini(w.options());
        await uninstallGemini(w.options());
        expect(w.both()).toEqual(before);
      });
    }
  }

  it("a symlinked settings file: the link stays, its target gets its bytes back", async () => {
    const w = world();
    const dotfiles = temp("gem-bytes-dot-");
    const target = join(dotfiles, "settings.json");
    const text = '{"ui":{"theme":"dark"}}';
    writeFileSync(target, text);
    mkdirSync(join(w.project, ".gemini"));
    symlinkSync(target, join(w.project, ".gemini", "settings.json"));
    const before = { ...w.both(), dot: snapshot(dotfiles) };
    await installGemini(w.options());
    await uninstallGemini(w.options());
    expect({ ...w.both(), dot: snapshot(dotfiles) }).toEqual(before);
  });

  it("a dangling symlink: install creates its target, uninstall removes it again", async () => {
    const w = world();
    const dotfiles = temp("gem-bytes-dot-");
    mkdirSync(join(w.project, ".gemini"));
    symlinkSync(
      join(dotfiles, "nested", "settings.json"),
      join(w.project, ".gemini", "settings.json"),
    );
    const before = { ...w.both(), dot: snapshot(dotfiles) };
    await installGemini(w.options());
    expect(existsSync(join(dotfiles, "nested", "settings.json"))).toBe(true);
    await uninstallGemini(w.options());
    expect({ ...w.both(), dot: snapshot(dotfiles) }).toEqual(before);
  });

  it("two projects share trusted_hooks.json: uninstalling both, in either order, restores it", async () => {
    for (const order of [
      [0, 1],
      [1, 0],
    ]) {
      const w = world();
      const second = temp("gem-bytes-proj2-");
      const projects = [w.project, second];
      const before = { ...w.both(), second: snapshot(second) };
      for (const p of projects) await installGemini(w.options(p));
      for (const i of order) await uninstallGemini(w.options(projects[i]));
      expect({ ...w.both(), second: snapshot(second) }).toEqual(before);
      expect(existsSync(geminiInstallLedgerPath({ HOME: w.home }))).toBe(false);
    }
  });

  it("a user install under $GEMINI_CLI_HOME leaves that home as it found it", async () => {
    const w = world();
    const cliHome = temp("gem-bytes-cli-");
    const env = { HOME: w.home, GEMINI_CLI_HOME: cliHome };
    const before = snapshot(cliHome);
    await installGemini({ ...w.options(), target: "user", env });
    expect(snapshot(cliHome)).not.toEqual(before);
    await uninstallGemini({ ...w.options(), target: "user", env });
    expect(snapshot(cliHome)).toEqual(before);
  });

  it("keeps what the user added after install, and takes only our entries out", async () => {
    const w = world();
    mkdirSync(join(w.project, ".gemini"));
    const path = join(w.project, ".gemini", "settings.json");
    writeFileSync(path, '{"ui":{}}');
    await installGemini(w.options());
    const installed = JSON.parse(readFileSync(path, "utf8"));
    writeFileSync(path, JSON.stringify({ ...installed, general: { vimMode: true } }, null, 2));
    await uninstallGemini(w.options());
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({ ui: {}, general: { vimMode: true } });
  });

  it("restores the exact bytes when the user's edit since install is undone content-wise", async () => {
    const w = world();
    mkdirSync(join(w.project, ".gemini"));
    const path = join(w.project, ".gemini", "settings.json");
    const text = '{"b":1,  "a":[1,2]}';
    writeFileSync(path, text);
    await installGemini(w.options());
    // Re-saved by an editor in another layout, same content.
    writeFileSync(path, `${JSON.stringify(JSON.parse(readFileSync(path, "utf8")), null, 4)}\n`);
    await uninstallGemini(w.options());
    expect(readFileSync(path, "utf8")).toBe(text);
  });

  it("an install from before the ledger is never restored to: uninstall takes our hooks out", async () => {
    const w = world();
    await installGemini(w.options());
    // As an older release left it: our hooks in place, no ledger.
    rmSync(geminiInstallLedgerPath({ HOME: w.home }));
    // An upgrade rewrites our entries (another preset), and is recorded from here on.
    await installGemini({ ...w.options(), preset: "parley" });
    await uninstallGemini(w.options());
    const path = join(w.project, ".gemini", "settings.json");
    expect(readFileSync(path, "utf8")).not.toContain("todo-continuation");
    const trust = readFileSync(join(w.home, ".gemini", "trusted_hooks.json"), "utf8");
    expect(trust).not.toContain("todo-continuation");
  });

  it("for any JSON object in any layout, install then uninstall gives back the bytes", async () => {
    const key = fc.string({ minLength: 1, maxLength: 6 }).filter((k) => k !== "hooks");
    const value = fc.jsonValue({ maxDepth: 2 });
    const layout = fc.record({
      indent: fc.constantFrom(0, 1, 2, 4, "\t"),
      crlf: fc.boolean(),
      finalNewline: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(fc.dictionary(key, value, { maxKeys: 4 }), layout, async (obj, l) => {
        const w = world();
        mkdirSync(join(w.project, ".gemini"));
        let text = JSON.stringify(obj, null, l.indent);
        if (l.crlf) text = text.replace(/\n/g, "\r\n");
        if (l.finalNewline) text += l.crlf ? "\r\n" : "\n";
        writeFileSync(join(w.project, ".gemini", "settings.json"), text);
        const before = w.both();
        await installGemini(w.options());
        await uninstallGemini(w.options());
        expect(w.both()).toEqual(before);
      }),
      { numRuns: 25 },
    );
  });
});
