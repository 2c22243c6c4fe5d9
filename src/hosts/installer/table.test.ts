import { describe, expect, it } from "vitest";
import { parseInstallArgs } from "./parse.js";
import { installerOptions, runInstaller } from "./run.js";
import { INSTALLERS, installerRow } from "./table.js";

const FLAGS = {
  targets: ["project", "local", "user"],
  targetsName: "settings files",
  options: ["project-dir", "preset"],
};

describe("the install command line, read against a row's flags", () => {
  it("takes the first target by default, the host's name in front, and the row's options", () => {
    expect(parseInstallArgs(FLAGS, ["h", "--preset", "omo"], ["h"])).toEqual({
      target: "project",
      values: { "project-dir": undefined, preset: "omo" },
      help: false,
    });
    expect(parseInstallArgs(FLAGS, ["--local", "-h"]).target).toBe("local");
  });

  it("refuses two targets, a stray argument and an option the row does not take", () => {
    expect(() => parseInstallArgs(FLAGS, ["--user", "--local"])).toThrow(
      "--local and --user name two settings files; pass only one",
    );
    expect(() => parseInstallArgs(FLAGS, ["h"])).toThrow('unexpected argument "h"');
    expect(() => parseInstallArgs(FLAGS, ["--entry", "x"])).toThrow(/entry/);
  });
});

describe("the host table", () => {
  it("names each host once, and finds a row by its name", () => {
    const names = INSTALLERS.flatMap((row) => [row.host, ...row.aliases]);
    expect(new Set(names).size).toBe(names.length);
    expect(installerRow("codex")?.host).toBe("codex");
    expect(installerRow("nope")).toBeUndefined();
    expect(installerRow(undefined)).toBeUndefined();
  });

  it("loads every host's installer and doctor, and each installer's help names its host", async () => {
    for (const row of INSTALLERS) {
      const installer = await row.load();
      expect(installer.usage).toContain(`install ${row.host}`);
      expect(typeof (await row.doctor())).toBe("function");
      // Every flag the row lists is one its installer reads without a complaint.
      expect(installerOptions(row, installer, [row.host], "/w")).toMatchObject({ help: false });
    }
  });

  it("answers --help with exit 0 and a bad flag with exit 2, naming the host once", async () => {
    const out: string[] = [];
    const err: string[] = [];
    const io = {
      stdout: { write: (t: string) => out.push(t) },
      stderr: { write: (t: string) => err.push(t) },
      env: {},
      cwd: "/w",
    };
    const row = installerRow("gemini") as NonNullable<ReturnType<typeof installerRow>>;
    expect(await runInstaller(row, "install", ["--help"], io)).toBe(0);
    expect(out.join("")).toContain("Usage: todo-continuation install gemini");
    expect(await runInstaller(row, "uninstall", ["--local"], io)).toBe(2);
    expect(err[0]).toMatch(/^todo-continuation uninstall gemini: .*local/);
  });
});
