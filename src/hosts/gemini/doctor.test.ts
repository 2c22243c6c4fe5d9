import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
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
    const ok = await geminiDoctor({ cwd, home, env: {} });
    expect(ok.map((f) => [f.check, f.ok])).toEqual([
      ["hooks", true],
      ["loadable", true],
      ["trust", true],
      ["enabled", true],
      ["todo-tool", true],
    ]);

    expect(ok[1]?.message).toMatch(/^the hook command starts \(.*dist\/hook\/main\.cjs\)$/);

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
    const bad = await geminiDoctor({ cwd, home, env: {} });
    const failing = bad.filter((f) => !f.ok);
    expect(failing.map((f) => f.check)).toEqual(["loadable", "trust", "enabled", "todo-tool"]);
    expect(failing[0]?.message).toContain(
      "runs /gone/todo-continuation/dist/hook/main.cjs, which is not there",
    );
    expect(failing.every((f) => typeof f.fix === "string" && f.fix !== "")).toBe(true);
  });
});
