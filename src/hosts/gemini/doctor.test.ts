import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { versionProgram } from "../hook-kit/test-support/version-program.js";
import { geminiDoctor } from "./doctor.js";
import { installGemini } from "./install.js";

const made: string[] = [];
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});
function temp(prefix: string) {
  const d = mkdtempSync(join(tmpdir(), prefix));
  made.push(d);
  return d;
}
/** An environment whose PATH has a `gemini` that answers `--version` as `version` does. */
function geminiOnPath(version: string): Record<string, string> {
  return { PATH: versionProgram(temp("gd-bin-"), "gemini", version) };
}

describe("geminiDoctor", () => {
  it("says nothing where the integration is not installed", async () => {
    expect(await geminiDoctor({ cwd: temp("gd-p-"), home: temp("gd-h-"), env: {} })).toEqual([]);
  });

  it("reports a default project install healthy (its hook starts), then what breaks it", async () => {
    const home = temp("gd-h-");
    const cwd = temp("gd-p-");
    mkdirSync(join(cwd, ".gemini"));
    writeFileSync(
      join(cwd, ".gemini", "settings.json"),
      JSON.stringify({ model: { name: "gemini-2.5-flash" } }),
    );
    await installGemini({
      projectDir: cwd,
      env: { HOME: home },
      out: () => {},
    });
    mkdirSync(join(home, ".gemini"), { recursive: true });
    writeFileSync(
      join(home, ".gemini", "trustedFolders.json"),
      JSON.stringify({ [cwd]: "TRUST_FOLDER" }),
    );
    const ok = await geminiDoctor({ cwd, home, env: geminiOnPath("0.61.0") });
    expect(ok.map((f) => [f.check, f.ok])).toEqual([
      ["version", true],
      ["hooks", true],
      ["loadable", true],
      ["trust", true],
      ["enabled", true],
      ["todo-tool", true],
    ]);

    expect(ok[0]?.message).toBe("Gemini CLI 0.61.0 (needs 0.39.0 or newer)");
    expect(ok[2]?.message).toMatch(/^the hook command starts \(.*dist\/hook\/main\.cjs\)$/);

    writeFileSync(join(home, ".gemini", "trustedFolders.json"), "{}");
    writeFileSync(
      join(home, ".gemini", "settings.json"),
      JSON.stringify({ hooksConfig: { enabled: false }, model: { name: "gemini-3-pro-preview" } }),
    );
    const settings = JSON.parse(
      (await import("node:fs")).readFileSync(join(cwd, ".gemini", "settings.json"), "utf8"),
    );
    delete settings.model;
    // The package moved away: the command names a script that is gone.
    const moved = JSON.stringify(settings).replaceAll(
      /[^"\\]*dist\/hook\/main\.cjs/g,
      "/gone/todo-continuation/dist/hook/main.cjs",
    );
    writeFileSync(join(cwd, ".gemini", "settings.json"), moved);
    const bad = await geminiDoctor({ cwd, home, env: { PATH: temp("gd-empty-") } });
    const failing = bad.filter((f) => !f.ok);
    expect(failing.map((f) => f.check)).toEqual([
      "version",
      "loadable",
      "trust",
      "enabled",
      "todo-tool",
    ]);
    expect(failing[0]?.message).toBe(
      "the hooks are installed, but no `gemini` on PATH answers `gemini --version`",
    );
    expect(failing[1]?.message).toContain(
      "runs /gone/todo-continuation/dist/hook/main.cjs, which is not there",
    );
    expect(failing.every((f) => typeof f.fix === "string" && f.fix !== "")).toBe(true);
  });

  it("says when Gemini CLI is older than the oldest release tested", async () => {
    const home = temp("gd-h-");
    const cwd = temp("gd-p-");
    await installGemini({ projectDir: cwd, env: { HOME: home }, out: () => {} });
    const version = async (v: string) =>
      (await geminiDoctor({ cwd, home, env: geminiOnPath(v) })).filter(
        (f) => f.check === "version",
      );
    expect(await version("0.38.2")).toEqual([
      {
        host: "gemini",
        check: "version",
        ok: false,
        message: "Gemini CLI 0.38.2 is older than 0.39.0, the oldest tested",
        fix: "npm install -g @google/gemini-cli@latest",
      },
    ]);
    expect((await version("0.39.0")).map((f) => f.ok)).toEqual([true]);
  });
});
